import { REPLAY_ADAPTERS, type ReplayAdapter } from "../../families/replay-adapters.js";
import { UsageError } from "../../errors.js";

/**
 * How the harness replays one provider's recordings (spec 10 §5.1 Profiles): the bridge
 * module the bootstrap loads (relative to the repository root) and the replay hooks of its bridge
 * family (harness/families).
 */
export interface ReplayProfile {
  /** Bridge module path relative to the repository root. */
  modulePath: string;
  /** The bridge family's adapter. */
  adapter: ReplayAdapter;
}

/**
 * The profile of a provider id: the first of `adapters` that handles it (default the shipped
 * bridge families, harness/families: `acp-*` → the ACP bridge, `echo` → the echo bridge).
 *
 * @throws UsageError for a provider no adapter handles (exit 2), naming the replayable ones (sorted)
 */
export function replayProfileFor(provider: string, adapters: readonly ReplayAdapter[] = REPLAY_ADAPTERS): ReplayProfile {
  const adapter = adapters.find((a) => a.handles(provider));
  if (adapter) return { modulePath: adapter.modulePath, adapter };
  throw new UsageError(
    `no replay profile for provider "${provider}" (replayable: ${adapters
      .map((a) => a.providers)
      .sort()
      .join(", ")})`,
  );
}

/**
 * Why a recording is not replayed, or undefined when it is a replayable thread-scoped cell (spec
 * 10 §6.6: "each replayable, thread-scoped cell"): a process-scoped recording has no thread lane,
 * and a provider no adapter handles has no profile (`replayProfileFor`'s message). With a
 * `modulePath` override every provider is replayable. Shared by `check` and `rerecord`.
 *
 * @param manifest the recording's scope and provider
 * @param replay the run's bridge override and adapters, if any
 */
export function replaySkipReason(manifest: { scope: string; provider: string }, replay: { modulePath?: string; adapters?: readonly ReplayAdapter[] } | undefined): string | undefined {
  if (manifest.scope === "process") return "process-scoped: no thread lane";
  if (replay?.modulePath !== undefined) return undefined;
  try {
    replayProfileFor(manifest.provider, replay?.adapters);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}
