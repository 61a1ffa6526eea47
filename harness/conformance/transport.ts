import type { ProviderBridge } from "../../stack/bridge-kit/define.js";
import type { BridgeChannel } from "../runtime/channel.js";
import { openInProcessBridge } from "../runtime/in-process.js";
import { spawnBridgeChannel, type SpawnBridgeOptions } from "../runtime/spawn-bridge.js";

/**
 * How conformance reaches a bridge (spec 10 §7 Transport). Unlike the reference's
 * `send`/`takeMessages` pair, a transport here is a factory of line channels: the
 * `session/provider-thread-id-not-counter` rule needs a second, independent bridge
 * instance, and channels deliver lines as events, so nothing polls.
 */
export interface ConformanceTransport {
  /** Name used in the report and in errors. */
  readonly name: string;
  /** Provider id the bridge runs as (given to the assembler, too). */
  readonly providerId: string;
  /** Opens a fresh bridge instance: a new process, or a new in-process context. */
  open(): Promise<BridgeChannel>;
  /**
   * Set when the bridge is the ACP bridge, whose `providerThreadId` is the agent's own
   * `session/new` sessionId (spec 30 §6.3: "the bridge mints nothing"): the not-counter rule
   * then blames the agent's ids, not the bridge. Absent for bridges that mint their own ids.
   */
  readonly passesAgentSessionId?: boolean;
}

/**
 * A transport over a bridge module loaded in this process; each `open()` is a new bridge
 * context with its own io, exactly as a new process would get. Used by tests and by
 * `captureBridgeJsonRpcOutput`.
 */
export function inProcessTransport(
  bridge: ProviderBridge,
  options: { providerId: string; name?: string; env?: Record<string, string | undefined>; onLog?: (text: string) => void },
): ConformanceTransport {
  let opened = 0;
  const name = options.name ?? `${options.providerId} (in-process)`;
  return {
    name,
    providerId: options.providerId,
    async open() {
      opened += 1;
      return openInProcessBridge(bridge, {
        providerId: options.providerId,
        name: `${name} #${opened}`,
        ...(options.env ? { env: options.env } : {}),
        ...(options.onLog ? { onLog: options.onLog } : {}),
      });
    },
  };
}

/**
 * A transport that spawns the bridge module as a child process through the bootstrap
 * (`node dist/stack/bridge-kit/bootstrap.js <module> <providerId> <dataDir>`), as a
 * runtime does. Each `open()` spawns a new process.
 */
export function childProcessTransport(options: SpawnBridgeOptions): ConformanceTransport {
  return {
    name: `${options.providerId} (${options.modulePath})`,
    providerId: options.providerId,
    async open() {
      return spawnBridgeChannel(options);
    },
  };
}
