/**
 * A session's model, reasoning level and service tier across its life (spec 20 §2.1, §2.3 step 7;
 * spec 30 §6.2, §6.4): what they put on the launch command line, when a change needs a new
 * process, and their native selection at setup and again on every turn.
 *
 * Launch (spec 20 §2.1): with `modelCli.selectFlag` the pinned id is resolved through the CLI
 * catalog (model-catalog.ts families) only when a reasoning level applies without `reasoningCli`,
 * or when the tier is `fast`: the catalog cached by the last `model/list` for the same list command,
 * else the list command run now. With Cursor's parameterized picker selection is always native, so
 * nothing is pinned on the command line.
 *
 * Per turn (spec 30 §6.2): a change of a launch-carried setting rebuilds the session
 * ({@link launchSettingsChanged}); otherwise a changed or drifted native model, level or tier is
 * re-selected in place ({@link reconcileNativeSettings}; turns.ts runs it on every `turn/start`
 * and before every steer re-prompt). A turn that omits a setting keeps the session's last one.
 *
 * Weaker than the reference: a launch-time list command that fails (missing command, sign-in text)
 * is logged and the id launches unresolved; a rebuild is decided on the settings alone, not on
 * whether the resolved variant id actually differs.
 */
import type { ExecutionOptions } from "../../protocol/methods.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import type { AcpSession } from "../state/session.js";
import { ACP_DEFAULT_MODEL_ID, resolveAgentArgs, type AcpPermissionMode, type ResolvedAgentArgs } from "../agents/launch-args.js";
import type { AcpLaunchSpec } from "../agents/launch-spec.js";
import { resolveModelVariant, type ModelFamily } from "../model-data/model-catalog.js";
import { cliModelCatalog } from "./model-list.js";
import { parameterizedPickerEnabled, selectNativeSettings } from "./model-selection.js";
import { readNativeSettingsState } from "../model-data/session-settings.js";
import { isAcpReasoningLevel } from "../model-data/native-reasoning.js";

/** The warning of a pinned model without a variant at the level (spec 20 §2.1), verbatim. */
export function missingVariantWarning(model: string, level: string): string {
  return `Model "${model}" has no ${level} reasoning variant; launching it at its default effort.`;
}

function pinnedModelOf(spec: AcpLaunchSpec, options: ExecutionOptions | undefined): string | undefined {
  const model = options?.model;
  if (!spec.modelCli?.selectFlag || !model || model === ACP_DEFAULT_MODEL_ID) return undefined;
  return parameterizedPickerEnabled(options?.providerOptions) ? undefined : model;
}

/** True when the launch resolves the pinned id through the catalog (module doc): a level without `reasoningCli`, or tier `fast`. */
function resolvesVariant(spec: AcpLaunchSpec, options: ExecutionOptions | undefined): boolean {
  return (isAcpReasoningLevel(options?.reasoningLevel) && !spec.reasoningCli) || options?.serviceTier === "fast";
}

/**
 * The pinned id to launch with (spec 20 §2.1) and the warnings it queues: `options.model` as given,
 * or its catalog variant when {@link resolvesVariant}; `undefined` when nothing is pinned (no
 * `selectFlag`, no model, `acp-default`, or the picker).
 */
async function resolvePinnedModel(rt: AcpBridgeRuntime, spec: AcpLaunchSpec, options: ExecutionOptions | undefined): Promise<{ model: string | undefined; warnings: string[] }> {
  const model = pinnedModelOf(spec, options);
  if (model === undefined || !spec.modelCli || !resolvesVariant(spec, options)) return { model, warnings: [] };
  let families: ModelFamily[];
  try {
    const catalog = await cliModelCatalog(rt, { ...spec, modelCli: spec.modelCli });
    families = [...catalog.models, ...catalog.selectedOnlyModels].filter((m): m is ModelFamily & typeof m => "variants" in m);
  } catch (error) {
    rt.ctx.log(`${spec.displayName}: could not read the model list to resolve "${model}" (${error instanceof Error ? error.message : String(error)}); launching it as given`);
    return { model, warnings: [] };
  }
  const level = !spec.reasoningCli && isAcpReasoningLevel(options?.reasoningLevel) ? options.reasoningLevel : undefined;
  const resolved = resolveModelVariant(families, model, { level, fast: options?.serviceTier === "fast" });
  if (!resolved) return { model, warnings: [] };
  return { model: resolved.id, warnings: resolved.missingLevel ? [missingVariantWarning(model, resolved.missingLevel)] : [] };
}

/**
 * The agent's argv for a construction (spec 20 §2.1): {@link resolveAgentArgs} with the pinned id
 * resolved (module doc) and no model pin under the parameterized picker. Warnings: a missing
 * variant first, then an unsupported `reasoningCli` level.
 */
export async function resolveLaunchArgs(rt: AcpBridgeRuntime, spec: AcpLaunchSpec, options: ExecutionOptions | undefined, permissionMode: AcpPermissionMode): Promise<ResolvedAgentArgs> {
  const pinned = await resolvePinnedModel(rt, spec, options);
  const resolved = resolveAgentArgs(spec, { permissionMode, model: pinned.model, reasoningLevel: options?.reasoningLevel });
  return { args: resolved.args, warnings: [...pinned.warnings, ...resolved.warnings] };
}

/**
 * Native selection at setup (spec 20 §2.3 step 7, spec 30 §6.4): reads the tracked state from the
 * `session/new|load|resume|fork` result, then selects the construction's model, level and tier
 * (model-selection.ts).
 * @throws the agent's error when `session/set_model` fails (it fails the construction).
 */
export async function selectSetupSettings(rt: AcpBridgeRuntime, session: AcpSession, result: unknown, options: ExecutionOptions | undefined): Promise<void> {
  session.nativeSettings = readNativeSettingsState(result, options?.serviceTier);
  await selectNativeSettings(
    rt,
    session,
    {
      model: options?.model,
      reasoningLevel: options?.reasoningLevel,
      serviceTier: options?.serviceTier,
      picker: parameterizedPickerEnabled(options?.providerOptions),
    },
    "setup",
  );
}

function currentTier(session: AcpSession): string | undefined {
  return session.nativeSettings ? session.nativeSettings.serviceTier : session.origin.options?.serviceTier;
}

/**
 * True when the turn changes a setting the launch command line carries (spec 30 §6.2 rebuild):
 * the pinned model (not under the picker), a `reasoningCli` level, and for a pinned model without
 * `reasoningCli` the level or a tier to or from `fast` (they pick the launched variant). A setting
 * the turn omits is unchanged.
 */
export function launchSettingsChanged(session: AcpSession, options: ExecutionOptions | undefined): boolean {
  const spec = session.spec;
  const settings = session.settings;
  const pins = spec.modelCli?.selectFlag !== undefined && !parameterizedPickerEnabled(session.origin.options?.providerOptions);
  if (pins && options?.model !== undefined && options.model !== settings.model) return true;
  const levelChanged = options?.reasoningLevel !== undefined && options.reasoningLevel !== settings.reasoningLevel;
  if (spec.reasoningCli && levelChanged) return true;
  const pinnedModel = pins && settings.model !== undefined && settings.model !== ACP_DEFAULT_MODEL_ID;
  if (!pinnedModel) return false;
  if (!spec.reasoningCli && levelChanged) return true;
  const tier = options?.serviceTier;
  return tier !== undefined && tier !== currentTier(session) && (tier === "fast" || currentTier(session) === "fast");
}

/**
 * Per-turn re-selection in place (spec 30 §6.2; call it when no rebuild was needed): the turn's
 * model, level and tier, each falling back to the session's last one, become the session's
 * settings (and the construction options a later rebuild resumes with); then whatever differs from
 * the tracked native state is selected again (model-selection.ts, phase `turn`: a refused model
 * warns, a refused level or tier is logged). A config id the turn sets through `sessionOptions` is
 * left to it. Settings that need a new process ({@link launchSettingsChanged}, a steer's) are left
 * to the next `turn/start`'s rebuild: nothing is selected then. Never throws for the agent's refusals.
 */
export async function reconcileNativeSettings(rt: AcpBridgeRuntime, session: AcpSession, options: ExecutionOptions | undefined): Promise<void> {
  // A steer whose settings need a new process leaves them all to the next turn/start's rebuild.
  if (launchSettingsChanged(session, options)) return;
  const model = options?.model ?? session.settings.model;
  const reasoningLevel = options?.reasoningLevel ?? session.settings.reasoningLevel;
  const serviceTier = options?.serviceTier ?? currentTier(session);
  session.settings.model = model;
  session.settings.reasoningLevel = reasoningLevel;
  if (session.nativeSettings) session.nativeSettings.serviceTier = serviceTier;
  const changed = { ...(model !== undefined ? { model } : {}), ...(reasoningLevel !== undefined ? { reasoningLevel } : {}), ...(serviceTier !== undefined ? { serviceTier } : {}) };
  session.origin.options = { ...(session.origin.options ?? {}), ...changed };
  await selectNativeSettings(
    rt,
    session,
    {
      model,
      reasoningLevel,
      serviceTier,
      picker: parameterizedPickerEnabled(session.origin.options.providerOptions),
      explicitConfigIds: new Set(Object.keys(options?.sessionOptions ?? {})),
    },
    "turn",
  );
}
