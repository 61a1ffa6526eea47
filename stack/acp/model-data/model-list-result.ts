/**
 * The shapes `model/list` answers with (spec 20 §3.11) and the pieces both of its paths share: the
 * synthetic model, one resolved request, and attaching declared session options (spec 30 §6.4).
 * Split out of model-list.ts so the CLI path (model-cli.ts) and ACP-native discovery
 * (model-discovery.ts) depend on one leaf module rather than on each other or on the orchestrator.
 */
import { ACP_DEFAULT_MODEL_ID } from "../agents/launch-args.js";
import type { AcpLaunchSpec } from "../agents/launch-spec.js";
import type { AcpModelProviderOptions, ModelFamily } from "./model-catalog.js";
import type { DeclaredSessionOption } from "./model-session-options.js";

/** One model of the result (spec 20 §3.11). */
export interface AcpModelDescriptor {
  id: string;
  model: string;
  displayName: string;
  description: string;
  supportedReasoningEfforts: Array<{ reasoningEffort: string; description: string }>;
  defaultReasoningEffort: string;
  isDefault: boolean;
}

/** A listed model with the agent's declared session options attached (spec 30 §6.4). */
export type AcpListedModel = (AcpModelDescriptor | ModelFamily) & { sessionOptions?: DeclaredSessionOption[] };

/** `{models, selectedOnlyModels}`. */
export interface AcpModelListResult {
  models: AcpListedModel[];
  selectedOnlyModels: AcpListedModel[];
}

/** The synthetic entry used when nothing better is known (spec 20 §3.11 step 3). */
export function syntheticModel(): AcpModelDescriptor {
  return {
    id: ACP_DEFAULT_MODEL_ID,
    model: ACP_DEFAULT_MODEL_ID,
    displayName: "Agent default",
    description: "Model selection is managed by the connected ACP agent.",
    supportedReasoningEfforts: [{ reasoningEffort: "medium", description: "Reasoning effort is managed by the connected ACP agent." }],
    defaultReasoningEffort: "medium",
    isDefault: true,
  };
}

/**
 * One `model/list` request, resolved once (spec 20 §3.11): the launch spec, the cwd (the request's,
 * else the bridge's temp dir) and the model options beside the spec.
 */
export interface ModelListRequest {
  spec: AcpLaunchSpec;
  cwd: string;
  extras: AcpModelProviderOptions;
  /** Cursor's parameterized catalog: the `cursor` dialect with `parameterizedModelPicker` (spec 30 §6.4). */
  parameterizedCatalog: boolean;
}

/**
 * `list` with `sessionOptions` attached to every model, the selected-only ones too (spec 30 §6.4);
 * `list` itself when there are none to attach. Pure: returns new model objects.
 */
export function withSessionOptions(list: AcpModelListResult, sessionOptions: DeclaredSessionOption[] | undefined): AcpModelListResult {
  if (!sessionOptions) return list;
  const attach = (m: AcpListedModel): AcpListedModel => ({ ...m, sessionOptions });
  return { models: list.models.map(attach), selectedOnlyModels: list.selectedOnlyModels.map(attach) };
}
