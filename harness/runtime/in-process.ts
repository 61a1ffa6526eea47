import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ProviderBridge } from "../../stack/bridge-kit/define.js";
import { createBridgeHost } from "../../stack/bridge-kit/host.js";
import { createChannelEnd, createListeners, type BridgeChannel } from "./channel.js";

/** Options of {@link openInProcessBridge}. */
export interface InProcessBridgeOptions {
  /** Provider id put in the bridge context (what the bootstrap gets as argv). */
  providerId: string;
  /** Name used in errors; defaults to `<providerId> (in-process)`. */
  name?: string;
  /** Data directory of the context. Absent: a fresh temp dir, removed on close. */
  dataDir?: string;
  /** Environment of the context. Absent: empty (an in-process bridge must not read ours by accident). */
  env?: Record<string, string | undefined>;
  /** Receives the bridge's `ctx.log` lines (its stderr). */
  onLog?: (text: string) => void;
}

/**
 * Hosts a bridge module in this process behind a {@link BridgeChannel}, through the same
 * host the bootstrap uses (bridge-kit `createBridgeHost`): one context with its own io,
 * `start` before the first line, blank and non-JSON lines ignored, runtime answers to the
 * bridge's own requests routed to the io before `handleLine`, and `onClose` on close.
 * Lines travel asynchronously (a microtask each way), as over a pipe, so a caller cannot
 * rely on a reply arriving synchronously. Each call is a separate bridge instance.
 */
export function openInProcessBridge(bridge: ProviderBridge, options: InProcessBridgeOptions): BridgeChannel {
  const name = options.name ?? `${options.providerId} (in-process)`;
  const ownDataDir = options.dataDir === undefined;
  const tempDir = mkdtempSync(path.join(tmpdir(), "parity-inproc-tmp-"));
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "parity-inproc-data-"));
  const lineListeners = createListeners<string>();
  const channelEnd = createChannelEnd();
  const log = (text: string) => options.onLog?.(text);

  const host = createBridgeHost({
    bridge,
    providerId: options.providerId,
    dataDir,
    tempDir,
    env: { ...(options.env ?? {}) },
    // Bridge output after close is dropped, as a dead pipe would drop it.
    writeLine: (line) => {
      if (!channelEnd.closed) queueMicrotask(() => lineListeners.emit(line));
    },
    log,
  });
  const started = host.start().catch((error: unknown) => log(`start failed: ${error instanceof Error ? error.message : String(error)}`));

  const finish = (reason: string) => {
    if (channelEnd.closed) return;
    rmSync(tempDir, { recursive: true, force: true });
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    channelEnd.end(reason);
  };

  return {
    name,
    send(line) {
      if (channelEnd.closed) return;
      void started.then(() => {
        if (!channelEnd.closed) host.acceptLine(line);
      });
    },
    onLine: (listener) => lineListeners.add(listener),
    onClose: channelEnd.onClose,
    get closed() {
      return channelEnd.closed;
    },
    async close() {
      if (channelEnd.closed) return;
      await started;
      await host.close();
      // Let output written by onClose reach the listeners before the channel ends.
      await new Promise<void>((resolve) => queueMicrotask(resolve));
      finish("closed");
    },
    kill() {
      finish("killed");
    },
  };
}
