import { ThreadSessionResultSchema } from "../../stack/protocol/methods.js";
import { ask, askTurnStart, barrier, describeAnswer, isTurnEvent, turnIdOf, waitTurnStarted, type RunContext } from "./context.js";
import { result, type ConformanceRuleId } from "./rules.js";

/** Rules that need a started session; skipped when `session/start-identity` fails. */
const NEEDS_SESSION: ConformanceRuleId[] = [
  "turn/lifecycle",
  "stop/release-not-interrupted",
  "session/resume-id-uniqueness",
  "turn/settles-without-activity",
  "stop/interrupt-settles-before-answer",
  "session/provider-thread-id-not-counter",
];

/** The params of `thread/start` (spec 10 §7 `session/start-identity`). */
export function threadStartParams(ctx: RunContext): Record<string, unknown> {
  return {
    threadId: ctx.session.threadId,
    cwd: ctx.session.cwd,
    options: { ...ctx.sessionOptions },
    instructionMode: "append",
  };
}

/** Outcome of one prompt: the turn it opened and whether it completed, or why not. */
type TurnOutcome = { ok: true; turnId: string } | { ok: false; rejected: boolean; detail: string };

/**
 * Sends `turn/start` with `input` and waits, event-driven, for `turn/started` and then the
 * `turn/completed` of the same turn (spec 10 §7 `turn/lifecycle`).
 */
async function runTurn(ctx: RunContext, providerThreadId: string, input: unknown[]): Promise<TurnOutcome> {
  const { fromIndex, answer } = await askTurnStart(ctx, providerThreadId, input);
  if (!answer || answer.kind === "error") {
    return { ok: false, rejected: answer?.kind === "error", detail: describeAnswer(ctx, "turn/start", answer) };
  }
  const opened = await waitTurnStarted(ctx, fromIndex);
  if (!opened) return { ok: false, rejected: false, detail: `no turn/started within ${ctx.timeoutMs} ms of turn/start` };
  const { started, turnId } = opened;
  const completed = await ctx.collector.waitFor((r) => isTurnEvent(ctx, r, "turn/completed", turnId), {
    fromIndex: started.index + 1,
    timeoutMs: ctx.timeoutMs,
  });
  if (!completed) return { ok: false, rejected: false, detail: `turn ${turnId} started but no turn/completed within ${ctx.timeoutMs} ms` };
  return { ok: true, turnId };
}

/**
 * Phase 3, lifecycle (spec 10 §7): start identity, one turn, a release stop, resume plus a
 * second turn, the zero-work prompt. Returns the `providerThreadId` when the session
 * started (the later rules need it), else undefined after marking dependants skipped.
 */
export async function runLifecyclePhase(ctx: RunContext): Promise<string | undefined> {
  const start = await ask(ctx, "thread/start", threadStartParams(ctx));
  const parsed = start?.kind === "result" ? ThreadSessionResultSchema.safeParse(start.result) : undefined;
  if (!parsed?.success) {
    const why = parsed ? `thread/start result does not parse: ${parsed.error.issues[0]?.message ?? "invalid"}` : describeAnswer(ctx, "thread/start", start);
    ctx.results.push(result("session/start-identity", "fail", why));
    for (const id of NEEDS_SESSION) {
      if (id === "turn/settles-without-activity" && !ctx.session.zeroWorkPromptInput) continue;
      if (id === "stop/interrupt-settles-before-answer" && !ctx.session.holdPromptInput) continue;
      ctx.results.push(result(id, "skipped", "session/start-identity failed"));
    }
    return undefined;
  }
  const providerThreadId = parsed.data.providerThreadId;
  ctx.results.push(result("session/start-identity", "pass", `providerThreadId ${providerThreadId}`));

  const first = await runTurn(ctx, providerThreadId, ctx.session.input);
  ctx.results.push(first.ok ? result("turn/lifecycle", "pass") : result("turn/lifecycle", "fail", first.detail));

  await checkReleaseStop(ctx, providerThreadId);
  await checkResume(ctx, providerThreadId);

  if (ctx.session.zeroWorkPromptInput) await checkZeroWork(ctx, providerThreadId, ctx.session.zeroWorkPromptInput);
  return providerThreadId;
}

/** `stop/release-not-interrupted`: answered without error, and nothing interrupted by the time a barrier answers. */
async function checkReleaseStop(ctx: RunContext, providerThreadId: string): Promise<void> {
  const fromIndex = ctx.collector.events.length;
  const answer = await ask(ctx, "thread/stop", {
    threadId: ctx.session.threadId,
    providerThreadId,
    intent: "release",
    activeTurnId: null,
  });
  if (!answer || answer.kind === "error") {
    ctx.results.push(result("stop/release-not-interrupted", "fail", describeAnswer(ctx, "thread/stop release", answer)));
    return;
  }
  await barrier(ctx);
  const interrupted = ctx.collector.events.slice(fromIndex).find((r) => {
    const event = r.event as { type: string; status?: string };
    return event.type === "system/thread/interrupted" || (event.type === "turn/completed" && event.status === "interrupted");
  });
  // The runtime forgets the thread's grammar state on a release stop (spec 10 §3).
  ctx.collector.clearThread(ctx.session.threadId);
  ctx.results.push(
    interrupted ? result("stop/release-not-interrupted", "fail", `a release stop produced ${JSON.stringify(interrupted.event).slice(0, 200)}`) : result("stop/release-not-interrupted", "pass"),
  );
}

/** `session/resume-id-uniqueness`: resume, a second turn completes, no turn or item id repeats, ≥ 2 turns. */
async function checkResume(ctx: RunContext, providerThreadId: string): Promise<void> {
  const answer = await ask(ctx, "thread/resume", { ...threadStartParams(ctx), providerThreadId });
  if (!answer || answer.kind === "error") {
    ctx.results.push(result("session/resume-id-uniqueness", "skipped", describeAnswer(ctx, "thread/resume", answer)));
    return;
  }
  const second = await runTurn(ctx, providerThreadId, ctx.session.input);
  if (!second.ok) {
    ctx.results.push(result("session/resume-id-uniqueness", "fail", `after thread/resume, ${second.detail}`));
    return;
  }
  const mine = ctx.collector.events.filter((r) => r.threadId === ctx.session.threadId);
  const turnIds = mine.filter((r) => r.event.type === "turn/started").map((r) => turnIdOf(r) ?? "");
  const itemIds = mine.flatMap((r) => (r.event.type === "item/started" ? [(r.event as { item: { id: string } }).item.id] : []));
  const repeated = (ids: string[]) => ids.find((id, i) => ids.indexOf(id) !== i);
  const turnRepeat = repeated(turnIds);
  const itemRepeat = repeated(itemIds);
  if (turnIds.length < 2) {
    ctx.results.push(result("session/resume-id-uniqueness", "fail", `only ${turnIds.length} turn(s) started`));
  } else if (turnRepeat !== undefined || itemRepeat !== undefined) {
    const what = turnRepeat !== undefined ? `turn id ${turnRepeat}` : `item id ${itemRepeat}`;
    ctx.results.push(result("session/resume-id-uniqueness", "fail", `${what} repeats after thread/resume`));
  } else {
    ctx.results.push(result("session/resume-id-uniqueness", "pass", `${turnIds.length} turns, ${itemIds.length} items`));
  }
}

/** `turn/settles-without-activity`: the zero-work prompt still yields a new `turn/completed`. */
async function checkZeroWork(ctx: RunContext, providerThreadId: string, input: unknown[]): Promise<void> {
  const { fromIndex, answer } = await askTurnStart(ctx, providerThreadId, input);
  if (!answer || answer.kind === "error") {
    const status = answer ? "skipped" : "fail";
    ctx.results.push(result("turn/settles-without-activity", status, describeAnswer(ctx, "zero-work turn/start", answer)));
    return;
  }
  const completed = await ctx.collector.waitFor((r) => isTurnEvent(ctx, r, "turn/completed"), { fromIndex, timeoutMs: ctx.timeoutMs });
  ctx.results.push(
    completed
      ? result("turn/settles-without-activity", "pass")
      : result("turn/settles-without-activity", "fail", `the zero-work prompt yielded no turn/completed within ${ctx.timeoutMs} ms (a hung thread)`),
  );
}
