import { SHIPPED_REPLAY_ADAPTERS, type ReplayAdapter } from "../adapters/index.js";
import { UsageError } from "../errors.js";

/**
 * How the harness replays one provider's recordings (spec 10 §5.1 Profiles): the bridge
 * module the bootstrap loads (relative to the repository root) and the adapter of its bridge
 * family (harness/adapters).
 */
export interface ReplayProfile {
  /** Bridge module path relative to the repository root. */
  modulePath: string;
  /** The bridge family's adapter. */
  adapter: ReplayAdapter;
}

/**
 * The profile of a provider id: the first of `adapters` that handles it (shipped: `acp-*` →
 * the ACP bridge `dist/stack/acp/bridge.js`; `echo` → `dist/stack/echo/bridge.js`).
 *
 * @throws UsageError for a provider no adapter handles (exit 2), naming the replayable ones
 */
export function replayProfileFor(provider: string, adapters: readonly ReplayAdapter[] = SHIPPED_REPLAY_ADAPTERS): ReplayProfile {
  const adapter = adapters.find((a) => a.handles(provider));
  if (adapter) return { modulePath: adapter.modulePath, adapter };
  throw new UsageError(`no replay profile for provider "${provider}" (replayable: ${adapters.map((a) => a.providers).join(", ")})`);
}
