import { delay, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import type { BridgeChannel } from "../runtime/channel.js";
import { clientRequestIdFor } from "../runtime/client-request-id.js";
import type { JsonRpcClient, RpcAnswer } from "../runtime/json-rpc-client.js";
import type { EventCollector, AssembledEventRecord } from "./collector.js";
import type { ConformanceResult } from "./rules.js";
import type { ConformanceSession } from "./session.js";
import type { ConformanceTransport } from "./transport.js";

/** The `release-not-interrupted` window used only when no request can serve as a barrier, in ms (spec 10 §7). */
export const RELEASE_QUIET_WINDOW_MS = 150;

/**
 * The `clientRequestId` of the n-th prompt of a conformance run (spec 10 §7 Fixed values;
 * the counter belongs to the run): see `clientRequestIdFor`.
 */
export const conformanceClientRequestId = clientRequestIdFor;

/** What the hygiene phase learned about answering, so later phases pick a barrier that works. */
export interface AnsweringFacts {
  /** The bridge answered an unknown method (with any answer). */
  answersUnknownMethods: boolean;
  /** The bridge answered `thread/stop {}` (with any answer). */
  answersInvalidParams: boolean;
}

/** Shared state of one conformance run. */
export interface RunContext {
  transport: ConformanceTransport;
  client: JsonRpcClient;
  collector: EventCollector;
  session: ConformanceSession;
  /** Execution options of every request: the fixed conformance options, then the session's. */
  sessionOptions: Record<string, unknown>;
  /** Longest wait for any one answer or event, in ms. */
  timeoutMs: number;
  /** Timers of the run's waits (its `timeoutMs`, the quiet window) on the first bridge instance. */
  scheduler: Scheduler;
  /** The timers of the waits on another instance's channel (the counter rule's second bridge). */
  schedulerFor(channel: BridgeChannel): Scheduler;
  /** Results so far. */
  results: ConformanceResult[];
  /** Why the bridge's channel ended, once it has (exit code, signal, stderr tail). */
  endReason?: string;
  /** Every line the bridge wrote, in order (index = position − 1). */
  bridgeLines: string[];
  answering: AnsweringFacts;
  /** Next `clientRequestId`. */
  nextClientRequestId(): string;
}

/**
 * An answer, or why there is none, as one readable phrase for a result's detail: the error
 * or result it got, "no answer within N ms", or — once the bridge is gone — why it ended.
 */
export function describeAnswer(ctx: RunContext, method: string, answer: RpcAnswer | undefined): string {
  if (!answer && ctx.client.channel.closed) return `${method} got no answer: the bridge ended (${ctx.endReason ?? "closed"})`;
  if (!answer) return `${method} got no answer within ${ctx.timeoutMs} ms`;
  if (answer.kind === "error") return `${method} was answered with error ${answer.error.code}: ${answer.error.message}`;
  return `${method} was answered with result ${JSON.stringify(answer.result)?.slice(0, 200)}`;
}

/** Sends a request and waits for its answer (`undefined`: none within the run's timeout). */
export async function ask(ctx: RunContext, method: string, params?: unknown): Promise<RpcAnswer | undefined> {
  const id = ctx.client.send(method, params);
  return ctx.client.answerOf(id, ctx.timeoutMs);
}

/** A `turn/start` sent by a conformance phase: its answer and the collector index its events start at. */
export interface TurnStartSent {
  /** `ctx.collector.events.length` just before the request went out. */
  fromIndex: number;
  /** The answer (`undefined`: none within the run's timeout). */
  answer: RpcAnswer | undefined;
}

/**
 * Sends `turn/start {threadId, providerThreadId, input, clientRequestId, options}` with the next
 * `clientRequestId` and the run's options (spec 10 §7), and waits for its answer.
 */
export async function askTurnStart(ctx: RunContext, providerThreadId: string, input: unknown[]): Promise<TurnStartSent> {
  const fromIndex = ctx.collector.events.length;
  const answer = await ask(ctx, "turn/start", {
    threadId: ctx.session.threadId,
    providerThreadId,
    input,
    clientRequestId: ctx.nextClientRequestId(),
    options: { ...ctx.sessionOptions },
  });
  return { fromIndex, answer };
}

/**
 * Waits, event-driven, for the run's next `turn/started` at or after `fromIndex`; returns it with
 * its turn id, or undefined when none came within the run's timeout (or it had no turn scope).
 */
export async function waitTurnStarted(ctx: RunContext, fromIndex: number): Promise<{ started: AssembledEventRecord; turnId: string } | undefined> {
  const started = await ctx.collector.waitFor((r) => isTurnEvent(ctx, r, "turn/started"), { fromIndex, timeoutMs: ctx.timeoutMs });
  const turnId = started && turnIdOf(started);
  return started && turnId ? { started, turnId } : undefined;
}

/**
 * Waits until the bridge has handled everything sent so far, without sleeping: sends a
 * request the bridge is known to answer (the alive probe, else `thread/stop {}`) and waits
 * for its answer. Only a bridge that answered neither (it has failed hygiene already) falls back
 * to the {@link RELEASE_QUIET_WINDOW_MS} window, on the run's scheduler: a window in which the
 * bridge did not run at all, when that scheduler is patient.
 */
export async function barrier(ctx: RunContext): Promise<void> {
  if (ctx.answering.answersUnknownMethods) {
    await ask(ctx, "bb/conformance/alive-probe", {});
  } else if (ctx.answering.answersInvalidParams) {
    await ask(ctx, "thread/stop", {});
  } else {
    await delay(ctx.scheduler, RELEASE_QUIET_WINDOW_MS);
  }
}

/** True when `record` is a turn-scoped event of type `type` in the run's thread (and turn, when given). */
export function isTurnEvent(ctx: RunContext, record: AssembledEventRecord, type: string, turnId?: string): boolean {
  const event = record.event as { type: string; scope?: { kind: string; turnId?: string } };
  return record.threadId === ctx.session.threadId && event.type === type && (turnId === undefined || (event.scope?.kind === "turn" && event.scope.turnId === turnId));
}

/** The turn id of a turn-scoped event, or undefined. */
export function turnIdOf(record: AssembledEventRecord): string | undefined {
  const scope = (record.event as { scope?: { kind: string; turnId?: string } }).scope;
  return scope?.kind === "turn" ? scope.turnId : undefined;
}
