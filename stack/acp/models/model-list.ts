/**
 * `model/list` (spec 20 §3.11, spec 30 §6.4): which path answers, and the overlays on its answer.
 *
 * 1. Launch spec with `modelCli.listArgs` → the CLI path (model-cli.ts): run the list command,
 *    parse one model per line, build the catalog; declared session options from a fresh cached read
 *    or a throwaway session of its own opened concurrently.
 * 2. No list command → ACP-native discovery through a throwaway agent (model-discovery.ts), with
 *    per-model reasoning probes, cached 60 s per launch spec and shared by concurrent requests for
 *    the same agent (model-discovery-cache.ts).
 * 3. No or invalid launch spec → the synthetic model (not an error, spec 20 §1.2).
 * 4. Overlays (spec 20 §3.11, native-reasoning.ts): `reasoningCli` puts its levels on every model,
 *    `nativeReasoning` on the models whose efforts are the single agent-managed `medium`.
 *
 * The result shapes live in model-list-result.ts. Every model carries the agent's declared
 * `sessionOptions` when they could be read. The CLI command, each discovery request and the whole
 * CLI-path options read wait at most the bridge option `modelListTimeoutMs` (30 s by default).
 * The names the pieces export are re-exported here, so importers keep one entry point.
 *
 * Weaker than the reference: no reasoning probes on the CLI path (the reference's are not
 * specified there either; Cursor's sessions offer no `thought_level` option); discovery of a
 * picker-enabled agent lists its parameterized ids as they are rather than re-keyed to bases.
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { acpLaunchSpecSchema } from "../agents/launch-spec.js";
import { readModelProviderOptions } from "../model-data/model-catalog.js";
import { selectAcpDialect } from "../dialects/index.js";
import { overlayReasoningEfforts } from "../model-data/native-reasoning.js";
import { listFromCli } from "./model-cli.js";
import { discoverModels } from "./model-discovery.js";
import { syntheticModel, type AcpModelListResult, type ModelListRequest } from "../model-data/model-list-result.js";

export { syntheticModel, withSessionOptions, type AcpListedModel, type AcpModelDescriptor, type AcpModelListResult, type ModelListRequest } from "../model-data/model-list-result.js";
export { MODEL_LIST_MAX_BUFFER_BYTES, NOT_AUTHENTICATED_MESSAGE, cliModelCatalog, parseModelListOutput } from "./model-cli.js";
export { DISCOVERY_TIMEOUT_MESSAGE, REASONING_PROBE_BUDGET_MS, readThoughtLevels, reasoningProbeOrder } from "./model-discovery.js";

/** Default timeout of the CLI list command and of each discovery request, in ms (bridge option `modelListTimeoutMs`). */
export const MODEL_LIST_TIMEOUT_MS = 30_000;

/**
 * Serves `model/list {providerOptions.acpLaunchSpec?, cwd?}` (see module doc); the model options
 * beside the spec (`acpDialect`, `parameterizedModelPicker`, `primaryModels`,
 * `reasoningProbePriorityModelIds`) are read leniently. Every returned model carries the agent's
 * declared `sessionOptions` when they could be read (spec 30 §6.4).
 * @throws BridgeJsonRpcError -32000 (`spawn <cmd> ENOENT`, discovery failures including the
 *   timeout message), with `data.recovery` `authRequired` and sign-in guidance for sign-in failures.
 */
export async function listModels(rt: AcpBridgeRuntime, params: { providerOptions?: Record<string, unknown> | undefined; cwd?: string | undefined }): Promise<AcpModelListResult> {
  const parsed = acpLaunchSpecSchema.safeParse(params.providerOptions?.acpLaunchSpec);
  if (!parsed.success) return { models: [syntheticModel()], selectedOnlyModels: [] };
  const spec = parsed.data;
  const extras = readModelProviderOptions(params.providerOptions);
  const dialect = selectAcpDialect({ explicit: extras.acpDialect, command: spec.command }, rt.options.dialects);
  const req: ModelListRequest = { spec, cwd: params.cwd ?? rt.ctx.tempDir, extras, parameterizedCatalog: dialect.parameterizedModelCatalog === true && extras.parameterizedModelPicker };
  const list = spec.modelCli ? await listFromCli(rt, req) : await discoverModels(rt, req);
  return overlayReasoningEfforts(list, spec);
}
