import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BridgeContext, ProviderBridge } from "../../stack/bridge-kit/define.js";
import { createBridgeIo } from "../../stack/bridge-kit/io.js";
import { createListeners, type BridgeChannel } from "./channel.js";

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
 * Hosts a bridge module in this process behind a {@link BridgeChannel}, doing what the
 * bootstrap does for a process (CONTRACTS bridge-kit): one {@link BridgeContext} with its
 * own io, `start` before the first line, non-JSON lines ignored, runtime answers to the
 * bridge's own requests routed to `io.acceptResponse` before `handleLine`, and `onClose`
 * on close. Lines travel asynchronously (a microtask each way), as over a pipe, so a caller
 * cannot rely on a reply arriving synchronously. Each call is a separate bridge instance.
 */
export function openInProcessBridge(bridge: ProviderBridge, options: InProcessBridgeOptions): BridgeChannel {
  const name = options.name ?? `${options.providerId} (in-process)`;
  const ownDataDir = options.dataDir === undefined;
  const tempDir = mkdtempSync(path.join(tmpdir(), "parity-inproc-tmp-"));
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "parity-inproc-data-"));
  const lineListeners = createListeners<string>();
  const closeListeners = createListeners<string>();
  let closed = false;
  let closeReason = "";

  const deliver = (line: string) => {
    // Bridge output after close is dropped, as a dead pipe would drop it.
    if (!closed) queueMicrotask(() => lineListeners.emit(line));
  };
  const io = createBridgeIo(deliver);
  const ctx: BridgeContext = {
    providerId: options.providerId,
    dataDir,
    tempDir,
    io,
    env: { ...(options.env ?? {}) },
    log: (text) => options.onLog?.(text),
  };

  const fail = (what: string, error: unknown) => {
    options.onLog?.(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const started = Promise.resolve()
    .then(() => bridge.start?.(ctx))
    .catch((error: unknown) => fail("start failed", error));

  const finish = (reason: string) => {
    if (closed) return;
    closed = true;
    closeReason = reason;
    rmSync(tempDir, { recursive: true, force: true });
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    closeListeners.emit(reason);
  };

  return {
    name,
    send(line) {
      if (closed) return;
      void started.then(() => {
        if (closed) return;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return;
        }
        if (io.acceptResponse(message)) return;
        Promise.resolve()
          .then(() => bridge.handleLine(line, ctx, message))
          .catch((error: unknown) => fail("handleLine failed", error));
      });
    },
    onLine: (listener) => lineListeners.add(listener),
    onClose(listener) {
      if (closed) {
        listener(closeReason);
        return () => undefined;
      }
      return closeListeners.add(listener);
    },
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      await started;
      io.rejectPending(new Error("the runtime closed the connection"));
      try {
        await bridge.onClose?.(ctx);
      } catch (error) {
        fail("onClose failed", error);
      }
      // Let output written by onClose reach the listeners before the channel ends.
      await new Promise<void>((resolve) => queueMicrotask(resolve));
      finish("closed");
    },
    kill() {
      finish("killed");
    },
  };
}
