import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { classifyJsonRpcMessage, type JsonRpcId } from "../../stack/protocol/json-rpc.js";
import { BridgeClosedError, BridgeTimeoutError } from "../runtime/errors.js";
import type { ConformanceTransport } from "./transport.js";

/** Options of {@link captureBridgeJsonRpcOutput}. */
export interface CaptureOptions {
  /** The bridge to run (a fresh instance is opened and closed). */
  transport: ConformanceTransport;
  /** Runtime input, in order: raw lines, or objects sent as one JSON line each. */
  input: ReadonlyArray<string | object>;
  /** Longest wait for the answer to one input request, in ms (default 5000). */
  timeoutMs?: number;
  /** Timers of that wait. Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/** What a bridge wrote while it served the input. */
export interface CapturedOutput {
  /** Every line the bridge wrote, in order, until it closed. */
  lines: string[];
  /** The lines that are JSON, parsed, in order (non-JSON output is left out). */
  messages: unknown[];
}

function requestIdOf(value: unknown): JsonRpcId | undefined {
  const classified = classifyJsonRpcMessage(value);
  return classified.kind === "request" ? classified.message.id : undefined;
}

function responseIdOf(line: string): JsonRpcId | null | undefined {
  try {
    const classified = classifyJsonRpcMessage(JSON.parse(line));
    return classified.kind === "response" ? classified.message.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a bridge over a fixed runtime input and returns everything it wrote (the kit's
 * testing helper `captureBridgeJsonRpcOutput`, spec 02 §1). Paced by causal order, never by sleeps:
 * each input request is sent only after every earlier input request has been answered,
 * and after the last input the bridge is closed (`onClose` runs), so the capture ends
 * exactly when the bridge's output does. Input ids are the caller's, sent unchanged.
 *
 * @throws BridgeTimeoutError when an input request gets no answer within `timeoutMs`;
 *   BridgeClosedError when the bridge ends before answering one (without waiting that long).
 */
export async function captureBridgeJsonRpcOutput(options: CaptureOptions): Promise<CapturedOutput> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const scheduler = options.scheduler ?? createRealScheduler();
  const channel = await options.transport.open();
  const lines: string[] = [];
  const answered = new Set<string>();
  const key = (id: JsonRpcId | null) => `${typeof id}:${String(id)}`;
  let wake: (() => void) | undefined;
  let closedWith: string | undefined;
  channel.onLine((line) => {
    lines.push(line);
    const id = responseIdOf(line);
    if (id !== undefined) answered.add(key(id));
    wake?.();
  });
  channel.onClose((reason) => {
    closedWith = reason;
    wake?.();
  });
  // A wait ends on the answer, or at once when the bridge is gone; the timer only bounds a hung bridge.
  const waitAnswer = (id: JsonRpcId) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        const done = answered.has(key(id));
        if (!done && closedWith === undefined) return false;
        scheduler.cancel(timer);
        wake = undefined;
        if (done) resolve();
        else reject(new BridgeClosedError(channel.name, `${closedWith ?? "closed"} before answering input request id ${String(id)}`));
        return true;
      };
      const timer = scheduler.schedule(timeoutMs, () => {
        wake = undefined;
        reject(new BridgeTimeoutError(channel.name, `answer to input request id ${String(id)}`, timeoutMs));
      });
      if (!check()) wake = check;
    });
  try {
    for (const item of options.input) {
      const line = typeof item === "string" ? item : JSON.stringify(item);
      channel.send(line);
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue;
      }
      const id = requestIdOf(parsed);
      if (id !== undefined) await waitAnswer(id);
    }
  } finally {
    await channel.close();
  }
  const messages = lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });
  return { lines, messages };
}
