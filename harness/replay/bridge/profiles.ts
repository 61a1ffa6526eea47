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
