import { z } from "zod";
import { createDeltaAssembler } from "../../stack/assembler/index.js";
import { ThreadSessionResultSchema } from "../../stack/protocol/methods.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { clientRequestIdFor } from "./client-request-id.js";
import { BridgeRefusedError, BridgeTimeoutError } from "./errors.js";
import { initializeBridge } from "./handshake.js";
import type { JsonRpcClient } from "./json-rpc-client.js";

const TextStep = <T extends string>(op: T) =>
  z.strictObject({
    op: z.literal(op),
    /** The prompt, sent as one `{type:"text"}` input item. */
    text: z.string(),
    /** What to wait for after the answer: the turn's `turn/completed` (default) or only its `turn/started`. */
    until: z.enum(["turn/completed", "turn/started"]).default("turn/completed"),
  });

/**
 * One step of a runtime script (00-product.md `cells/`: "runtime script"). Each step sends
 * one request and waits for its answer; turn steps then wait, event-driven, for the
 * assembled `turn/started` / `turn/completed` of their turn.
 */
export const ScriptStepSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("initialize") }),
  z.strictObject({ op: z.literal("thread/start") }),
  z.strictObject({ op: z.literal("thread/resume") }),
  TextStep("turn/start"),
  TextStep("turn/steer"),
  z.strictObject({ op: z.literal("thread/stop"), intent: z.enum(["interrupt", "release"]) }),
]);

/** One step of a runtime script. */
export type ScriptStep = z.output<typeof ScriptStepSchema>;

/**
 * A runtime script: the thread it drives, the `cwd` and execution `options` sent with
 * `thread/start`, `thread/resume` and `turn/start`, and its steps.
 */
export const RuntimeScriptSchema = z.strictObject({
  threadId: z.string().min(1),
  cwd: z.string().min(1),
  options: z.record(z.string(), z.unknown()).default({}),
  steps: z.array(ScriptStepSchema).min(1),
});

/** A resolved runtime script. */
export type RuntimeScript = z.output<typeof RuntimeScriptSchema>;
/** A runtime script as written (defaults optional). */
export type RuntimeScriptInput = z.input<typeof RuntimeScriptSchema>;

/** Options of {@link runRuntimeScript}. */
export interface RunScriptOptions {
  /** Longest wait for one answer or event, in ms (divergence detection only). */
  timeoutMs: number;
  /** Clock of the assembler's throttles, in ms. */
  now: () => number;
  /**
   * Prefix of the turn and item ids the runtime's assembler mints (they reach the wire as
   * `thread/stop`'s `activeTurnId`); default {@link SCRIPT_ID_PREFIX}, so a recording does
   * not depend on random entropy.
   */
  idPrefix?: string;
}

/** Default prefix of the assembler ids a script run mints (`da00000000-t1`, …). */
export const SCRIPT_ID_PREFIX = "da00000000";

/** What a script run observed. */
export interface ScriptRun {
  /** The `providerThreadId` of the last `thread/start` or `thread/resume`. */
  providerThreadId: string | undefined;
  /** Every thread event assembled from the bridge's `thread/delta`s (threadId stamped). */
  events: ThreadEvent[];
}

/**
 * Drives a bridge through a runtime script (00-product.md flow 1: "A cell's runtime script
 * drives a bridge"). Steps run strictly one after another: each request's answer is awaited
 * before the next is sent, so the order of lines on the wire — and thus a recording — does
 * not depend on timing. `thread/stop interrupt` names the open turn as `activeTurnId`.
 *
 * @throws BridgeRpcError when the bridge refuses a step; BridgeTimeoutError when an answer
 *   or awaited event does not come within `timeoutMs`; BridgeRefusedError when
 *   `initialize` fails the grammar gate, a resume comes before any start, or the bridge
 *   sends a `thread/delta` the assembler refuses.
 */
export async function runRuntimeScript(client: JsonRpcClient, input: RuntimeScriptInput, options: RunScriptOptions): Promise<ScriptRun> {
  const script = RuntimeScriptSchema.parse(input);
  const assembler = createDeltaAssembler({
    providerId: "runtime-script",
    textDeltaFlushMs: 0,
    now: options.now,
    entropyPrefix: options.idPrefix ?? SCRIPT_ID_PREFIX,
  });
  const events: ThreadEvent[] = [];
  const waiters = new Set<() => void>();
  // A thread/delta the assembler refuses ends the run with that error at the next wait.
  let invalidDelta: Error | undefined;
  const unsubscribe = client.onNotification((notification) => {
    if (notification.method !== "thread/delta" || invalidDelta) return;
    const params = notification.params as { threadId: string; deltas: unknown[] };
    try {
      for (const event of assembler.assemble(params)) events.push({ ...event, threadId: params.threadId } as ThreadEvent);
    } catch (error) {
      invalidDelta = new BridgeRefusedError(client.name, `its thread/delta was refused by the assembler: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const wake of [...waiters]) wake();
  });

  const waitForEvent = (what: string, from: number, match: (event: ThreadEvent) => boolean) =>
    new Promise<ThreadEvent>((resolve, reject) => {
      const check = () => {
        if (invalidDelta) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(invalidDelta);
          return;
        }
        const found = events.slice(from).find(match);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new BridgeTimeoutError(client.name, what, options.timeoutMs));
      }, options.timeoutMs);
      waiters.add(check);
      check();
    });

  const turnOf = (event: ThreadEvent) => (event.scope.kind === "turn" ? event.scope.turnId : undefined);
  const inThread = (event: ThreadEvent) => event.threadId === script.threadId;
  let providerThreadId: string | undefined;
  let prompts = 0;
  const ask = (method: string, params: unknown) => client.request(method, params, { timeoutMs: options.timeoutMs });
  const session = async (method: "thread/start" | "thread/resume") => {
    if (method === "thread/resume" && providerThreadId === undefined) {
      throw new BridgeRefusedError(client.name, "the script resumes a thread it never started");
    }
    const params = { threadId: script.threadId, cwd: script.cwd, options: script.options, instructionMode: "append" };
    const result = await ask(method, method === "thread/resume" ? { ...params, providerThreadId } : params);
    providerThreadId = ThreadSessionResultSchema.parse(result).providerThreadId;
  };

  try {
    for (const step of script.steps) {
      switch (step.op) {
        case "initialize":
          await initializeBridge(client, { timeoutMs: options.timeoutMs });
          break;
        case "thread/start":
        case "thread/resume":
          await session(step.op);
          break;
        case "turn/start":
        case "turn/steer": {
          const from = events.length;
          const openTurn = assembler.getOpenTurnId(script.threadId);
          await ask(step.op, {
            threadId: script.threadId,
            providerThreadId,
            input: [{ type: "text", text: step.text, mentions: [] }],
            clientRequestId: clientRequestIdFor(++prompts),
            options: script.options,
            ...(step.op === "turn/steer" ? { expectedTurnId: openTurn ?? null } : {}),
          });
          const turnId =
            step.op === "turn/steer" && openTurn !== undefined
              ? openTurn
              : turnOf(await waitForEvent(`turn/started after ${step.op}`, from, (e) => inThread(e) && e.type === "turn/started"));
          if (step.until === "turn/completed") {
            await waitForEvent(`turn/completed of turn ${turnId}`, from, (e) => inThread(e) && e.type === "turn/completed" && turnOf(e) === turnId);
          }
          break;
        }
        case "thread/stop":
          await ask("thread/stop", {
            threadId: script.threadId,
            providerThreadId,
            intent: step.intent,
            activeTurnId: assembler.getOpenTurnId(script.threadId) ?? null,
          });
          break;
      }
    }
    if (invalidDelta) throw invalidDelta;
  } finally {
    unsubscribe();
  }
  return { providerThreadId, events };
}
