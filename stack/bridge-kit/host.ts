/**
 * The bridge host: one bridge, its context and io, fed runtime lines one at a time
 * (stack/bridge-kit/README.md). The bootstrap wraps it around stdio; an in-process harness can
 * drive it directly with strings.
 */
import { BridgeIoClosedError, createBridgeIo, type BridgeIo } from "./io.js";
import type { BridgeContext, ProviderBridge } from "./define.js";
import type { BridgeRecorder } from "./recorder.js";

/** Options of {@link createBridgeHost}. */
export interface BridgeHostOptions {
  bridge: ProviderBridge;
  providerId: string;
  dataDir: string;
  tempDir: string;
  /** The bridge's environment (the record variable already removed). */
  env: Readonly<Record<string, string | undefined>>;
  /** Writes one protocol line to the runtime (the real stdout in the bootstrap). */
  writeLine: (line: string) => void;
  /** Writes one diagnostic line (stderr in the bootstrap). */
  log: (text: string) => void;
  /** Record mode: tees both runtime lanes. Absent or null: not recording. */
  recorder?: BridgeRecorder | null;
}

/** A running bridge. */
export interface BridgeHost {
  /** The context every hook receives. */
  readonly ctx: BridgeContext;
  /** Runs the bridge's `start` hook. */
  start(): Promise<void>;
  /**
   * Handles one runtime line: records it, ignores it if blank or not JSON, settles a pending
   * bridge request if it answers one, else hands it to `handleLine` (not awaited; a throw or
   * rejection is logged, and the host keeps serving).
   */
  acceptLine(line: string): void;
  /**
   * Once: rejects the bridge's pending requests to the runtime, runs `onClose`, then waits for
   * every `handleLine` still in flight to settle, so a reply the bridge still owes (say, to a
   * `thread/stop` sent just before stdin closed) goes out before the process exits. Later
   * calls return the same promise.
   */
  close(): Promise<void>;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Creates the host of one bridge; see {@link BridgeHost}. */
export function createBridgeHost(options: BridgeHostOptions): BridgeHost {
  const { bridge, recorder, log } = options;
  const io: BridgeIo = createBridgeIo((line) => {
    recorder?.recordRuntimeLine("bridge→runtime", line);
    options.writeLine(line);
  });
  const ctx: BridgeContext = Object.freeze({
    providerId: options.providerId,
    dataDir: options.dataDir,
    tempDir: options.tempDir,
    io,
    env: Object.freeze({ ...options.env }),
    log,
  });
  let closing: Promise<void> | null = null;
  const inFlight = new Set<Promise<void>>();

  return {
    ctx,
    async start() {
      await bridge.start?.(ctx);
    },
    acceptLine(line) {
      if (line.trim() === "") return;
      recorder?.recordRuntimeLine("runtime→bridge", line);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (io.acceptResponse(message)) return;
      try {
        const pending = bridge.handleLine(line, ctx, message);
        if (pending && typeof (pending as Promise<void>).then === "function") {
          const settled = (pending as Promise<void>).then(
            () => undefined,
            (error: unknown) => log(`bridge-kit: handleLine failed: ${describe(error)}`),
          );
          inFlight.add(settled);
          void settled.then(() => inFlight.delete(settled));
        }
      } catch (error) {
        log(`bridge-kit: handleLine failed: ${describe(error)}`);
      }
    },
    close() {
      closing ??= (async () => {
        io.rejectPending(new BridgeIoClosedError());
        try {
          await bridge.onClose?.(ctx);
        } catch (error) {
          log(`bridge-kit: onClose failed: ${describe(error)}`);
        }
        await Promise.all([...inFlight]);
      })();
      return closing;
    },
  };
}
