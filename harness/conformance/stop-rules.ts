import { ThreadSessionResultSchema } from "../../stack/protocol/methods.js";
import { createJsonRpcClient } from "../runtime/json-rpc-client.js";
import { askTurnStart, describeAnswer, isTurnEvent, waitTurnStarted, type RunContext } from "./context.js";
import { CONFORMANCE_INITIALIZE_PARAMS } from "./hygiene.js";
import { threadStartParams } from "./lifecycle.js";
import { result } from "./rules.js";

/**
 * `stop/interrupt-settles-before-answer` (this product's rule; spec 02 §5:
 * after `thread/stop` the interrupted turn's boundary goes out before the answer). Starts the session's hold prompt,
 * waits for its `turn/started`, sends `thread/stop {intent:"interrupt", activeTurnId}` and
 * checks that the line settling the turn came before the line answering the stop.
 * Only runs when the session supplies `holdPromptInput`.
 */
export async function checkInterruptSettlesBeforeAnswer(ctx: RunContext, providerThreadId: string): Promise<void> {
  const input = ctx.session.holdPromptInput;
  if (!input) return;
  const id = "stop/interrupt-settles-before-answer";
  const { fromIndex, answer } = await askTurnStart(ctx, providerThreadId, input);
  if (!answer || answer.kind === "error") {
    ctx.results.push(result(id, answer ? "skipped" : "fail", describeAnswer(ctx, "hold-prompt turn/start", answer)));
    return;
  }
  const opened = await waitTurnStarted(ctx, fromIndex);
  if (!opened) {
    ctx.results.push(result(id, "fail", `the hold prompt yielded no turn/started within ${ctx.timeoutMs} ms`));
    return;
  }
  const { turnId } = opened;
  const settledEarly = ctx.collector.events.find((r) => isTurnEvent(ctx, r, "turn/completed", turnId));
  if (settledEarly) {
    ctx.results.push(result(id, "skipped", `turn ${turnId} completed before the stop could be sent: the hold prompt did not hold`));
    return;
  }
  const stopId = ctx.client.send("thread/stop", {
    threadId: ctx.session.threadId,
    providerThreadId,
    intent: "interrupt",
    activeTurnId: turnId,
  });
  const stop = await ctx.client.answerOf(stopId, ctx.timeoutMs);
  if (!stop || stop.kind === "error") {
    ctx.results.push(result(id, "fail", describeAnswer(ctx, "thread/stop interrupt", stop)));
    return;
  }
  const settled = ctx.collector.events.find((r) => isTurnEvent(ctx, r, "turn/completed", turnId));
  if (settled && settled.position < stop.position) {
    ctx.results.push(result(id, "pass", `turn/completed ${(settled.event as { status?: string }).status ?? ""} on line ${settled.position}, answer on line ${stop.position}`));
    return;
  }
  const late = settled ?? (await ctx.collector.waitFor((r) => isTurnEvent(ctx, r, "turn/completed", turnId), { fromIndex, timeoutMs: ctx.timeoutMs }));
  ctx.results.push(
    result(
      id,
      "fail",
      late
        ? `thread/stop was answered on line ${stop.position} before turn ${turnId} settled on line ${late.position}`
        : `thread/stop was answered on line ${stop.position} and turn ${turnId} never settled`,
    ),
  );
}

/**
 * Why the not-counter rule failed. The rule is the same for every bridge; only whom the detail
 * blames differs: a bridge that mints ids is told to mint from entropy, while the ACP bridge
 * passes the agent's `session/new` sessionId through (spec 30 §6.3), so there the agent
 * answered with a counter-like id.
 */
function counterFailure(providerThreadId: string, passesAgentSessionId: boolean): string {
  const both = `two bridge instances both handed out providerThreadId "${providerThreadId}"`;
  return passesAgentSessionId
    ? `${both}; the ACP bridge passes the agent's sessionId through (spec 30 §6.3: the bridge mints nothing), so the agent answered session/new with a counter-like id — make the agent's session ids unique per process`
    : `${both}; mint it from entropy, not a process counter`;
}

/**
 * `session/provider-thread-id-not-counter` (this product's rule; spec 02 §4, §7:
 * no provider thread id from a process counter): a second, fresh bridge instance starts
 * the same thread; the two `providerThreadId`s must differ. A counter restarts with every
 * process, so it hands out the same first id twice.
 */
export async function checkProviderThreadIdNotCounter(ctx: RunContext, firstProviderThreadId: string): Promise<void> {
  const id = "session/provider-thread-id-not-counter";
  const channel = await ctx.transport.open();
  const client = createJsonRpcClient(channel, ctx.schedulerFor(channel));
  let endReason: string | undefined;
  channel.onClose((reason) => (endReason = reason));
  // The phrase must describe the second instance, not the run's first bridge.
  const second = { ...ctx, client, endReason } as RunContext;
  const describe = (method: string, answer: Parameters<typeof describeAnswer>[2]) => describeAnswer({ ...second, endReason }, method, answer);
  try {
    const init = await client.answerOf(client.send("initialize", CONFORMANCE_INITIALIZE_PARAMS), ctx.timeoutMs);
    if (!init || init.kind === "error") {
      ctx.results.push(result(id, "fail", `second bridge instance: ${describe("initialize", init)}`));
      return;
    }
    const start = await client.answerOf(client.send("thread/start", threadStartParams(ctx)), ctx.timeoutMs);
    const parsed = start?.kind === "result" ? ThreadSessionResultSchema.safeParse(start.result) : undefined;
    if (!parsed?.success) {
      ctx.results.push(result(id, "fail", `second bridge instance: ${describe("thread/start", start)}`));
      return;
    }
    const secondId = parsed.data.providerThreadId;
    ctx.results.push(secondId === firstProviderThreadId ? result(id, "fail", counterFailure(secondId, ctx.transport.passesAgentSessionId === true)) : result(id, "pass"));
    // Leave the second instance idle: release its session before closing.
    await client.answerOf(client.send("thread/stop", { threadId: ctx.session.threadId, providerThreadId: secondId, intent: "release", activeTurnId: null }), ctx.timeoutMs);
  } finally {
    await channel.close();
  }
}
