/**
 * The runtime script driver (docs/design/00-product.md `cells/`: "runtime script"): the steps a cell
 * needs — `initialize`, `thread/start` with per-step options, resume, fork, `model/list`, turns,
 * steer, stop with intent, explicit waits on thread events or on `interaction/request`s — and
 * scripted answers to those requests. `parity record` (harness/record) drives every bridge,
 * the echo included, with it.
 *
 * Pacing is causal only: every step waits for the answer to its request and then for the
 * event it names; timeouts only detect a divergence.
 */
import * as z from "zod";
import { createDeltaAssembler } from "../../stack/assembler/index.js";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { ThreadSessionResultSchema } from "../../stack/protocol/methods.js";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { EXIT_CODES, ParityError } from "../errors.js";
import { clientRequestIdFor } from "./client-request-id.js";
import { BridgeClosedError, BridgeRefusedError, BridgeTimeoutError } from "./errors.js";
import { initializeBridge } from "./handshake.js";
import type { JsonRpcClient } from "./json-rpc-client.js";
import { userAnswerFor } from "./user-answer.js";

/**
 * Prefix of the turn and item ids the runtime's assembler mints (they reach the wire as
 * `thread/stop`'s `activeTurnId`: `da00000000-t1`, …), fixed so a recording does not depend on
 * random entropy.
 */
export const SCRIPT_ID_PREFIX = "da00000000";

/**
 * A wait on one thread event: its `type`, for item events optionally the item's `type`, and
 * optionally top-level fields that must be equal (e.g. `{kind: "bb/provider-commands"}`), so a
 * script can wait for an agent's asynchronous state before it prompts.
 */
export const EventWaitSchema = z.strictObject({
  event: z.string().min(1),
  itemType: z.string().min(1).optional(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});

/**
 * What a turn step waits for after the answer: the turn's `turn/completed` (default), its
 * `turn/started`, the answer only (`answer`), the n-th (1-based, counted over the run)
 * `interaction/request` (`{interaction: n}`), or a thread event after the step was sent.
 */
export const UntilSchema = z.union([z.enum(["turn/completed", "turn/started", "answer"]), z.strictObject({ interaction: z.number().int().positive() }), EventWaitSchema]);
/** What a step waits for. */
export type Until = z.output<typeof UntilSchema>;

const options = z.record(z.string(), z.unknown()).optional();
const TextStep = <T extends string>(op: T) => z.strictObject({ op: z.literal(op), text: z.string().min(1), until: UntilSchema.default("turn/completed") });

/** One step of a cell's runtime script. */
export const CellStepSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("initialize") }),
  z.strictObject({ op: z.literal("thread/start"), options }),
  z.strictObject({ op: z.literal("thread/resume"), options }),
  /** Forks the current thread's session into `threadId`; later steps drive the fork. */
  z.strictObject({ op: z.literal("thread/fork"), threadId: z.string().min(1), options }),
  TextStep("turn/start"),
  TextStep("turn/steer"),
  z.strictObject({ op: z.literal("thread/stop"), intent: z.enum(["interrupt", "release"]) }),
  z.strictObject({ op: z.literal("model/list") }),
  /**
   * Ends the model's held response (script `hold`) through {@link RunCellOptions.releaseModel},
   * then waits for `until` (default: the open turn's `turn/completed`): a causal point for
   * agents that take a steer only after the running model call (pi).
   */
  z.strictObject({ op: z.literal("model/release"), until: UntilSchema.default("turn/completed") }),
  /** Waits for an event caused by the step before it (counted from when that step was sent). */
  z.strictObject({ op: z.literal("wait"), until: UntilSchema }),
]);
/** One cell step. */
export type CellStep = z.output<typeof CellStepSchema>;

/**
 * Holds an answer back until the run's n-th prompt (`turn/start` or `turn/steer`, 1-based) was
 * answered by the bridge: a steer sent while the agent waits for this answer provably reaches it
 * mid-turn, before the answer does (causal pacing, no timing window).
 */
const afterPrompt = z.number().int().positive().optional();

/** A scripted answer to one `interaction/request`, in the order they arrive. */
export const InteractionAnswerSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("approval"), decision: z.enum(["allow_once", "allow_for_session", "deny"]), afterPrompt }),
  z.strictObject({
    kind: z.literal("user_question"),
    action: z.enum(["accept", "decline", "cancel"]).default("accept"),
    answers: z.record(z.string(), z.unknown()).default({}),
    afterPrompt,
  }),
]);
/** One scripted interaction answer. */
export type InteractionAnswer = z.output<typeof InteractionAnswerSchema>;

/** The script a cell driver runs. */
export interface CellScript {
  threadId: string;
  cwd: string;
  /** Execution options of every session and turn request (a step's own options go over them). */
  options: Record<string, unknown>;
  steps: CellStep[];
  /** Answers to `interaction/request`s, in arrival order. */
  answers: InteractionAnswer[];
}

/** Options of {@link runCellScript}. */
export interface RunCellOptions {
  /** Longest wait for one answer or event, in ms (divergence detection only). */
  timeoutMs: number;
  /** Clock of the assembler's throttles, in ms. */
  now: () => number;
  /** Called before each step is sent (0-based index), e.g. for progress output. */
  onStep?: (index: number, step: CellStep) => void;
  /**
   * Ends the held model responses still streaming and returns how many (the loopback model
   * endpoint's `releaseHeld`); a `model/release` step with none to end, or without this
   * option, fails the run (`E_DIVERGED`).
   */
  releaseModel?: () => number;
  /** Aborting rejects every pending wait at once (with the signal's reason). */
  signal?: AbortSignal;
  /** Timers of the event waits' `timeoutMs`. Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/** What a cell run observed. */
export interface CellRun {
  /** The `providerThreadId` of the last session request per thread. */
  providerThreadIds: Record<string, string>;
  /** The thread the script drove last (the fork's, after a fork). */
  lastThreadId: string;
  /** Every thread event assembled from the bridge's `thread/delta`s. */
  events: ThreadEvent[];
  /** How many `interaction/request`s were answered. */
  interactions: number;
  /** Problems found while answering (an unexpected request kind, too few answers). */
  problems: string[];
  /** `thread/delta` notifications the assembler rejected (their messages); the run goes on. */
  invalidDeltas: string[];
}

const payloadKind = (params: unknown) => {
  const payload = (params as { payload?: { kind?: unknown } } | undefined)?.payload;
  return typeof payload?.kind === "string" ? payload.kind : "(none)";
};

const turnOf = (event: ThreadEvent) => (event.scope.kind === "turn" ? event.scope.turnId : undefined);

/** True when `event` is the one an event wait (`until: {event, itemType?, fields?}`) looks for in `threadId`. */
function matchesEventWait(event: ThreadEvent, threadId: string, until: z.output<typeof EventWaitSchema>): boolean {
  return (
    event.threadId === threadId &&
    event.type === until.event &&
    (until.itemType === undefined || (event as { item?: { type?: string } }).item?.type === until.itemType) &&
    Object.entries(until.fields ?? {}).every(([key, value]) => (event as unknown as Record<string, unknown>)[key] === value)
  );
}

/** The state of one cell script run: the events assembled so far, the answers given, the waits pending. */
class CellScriptRun {
  private readonly assembler: ReturnType<typeof createDeltaAssembler>;
  readonly events: ThreadEvent[] = [];
  readonly problems: string[] = [];
  readonly invalidDeltas: string[] = [];
  private readonly waiters = new Set<() => void>();
  interactions = 0;
  /** Set when the bridge is gone or the run was aborted: every wait ends with it. */
  private ended: Error | undefined;
  threadId: string;
  readonly providerThreadIds: Record<string, string> = {};
  private prompts = 0;
  private readonly scheduler: Scheduler;
  /** How many prompts (`turn/start`, `turn/steer`) the bridge has answered. */
  private promptsAnswered = 0;

  constructor(
    private readonly client: JsonRpcClient,
    private readonly script: CellScript,
    private readonly run: RunCellOptions,
  ) {
    this.assembler = createDeltaAssembler({ providerId: "cell-script", textDeltaFlushMs: 0, now: run.now, entropyPrefix: SCRIPT_ID_PREFIX });
    this.threadId = script.threadId;
    this.scheduler = run.scheduler ?? createRealScheduler();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** A `thread/delta` of the bridge: its events are assembled and kept. */
  onDelta(params: { threadId: string; deltas: unknown[] }): void {
    try {
      for (const event of this.assembler.assemble(params)) this.events.push({ ...event, threadId: params.threadId } as ThreadEvent);
    } catch (error) {
      // A bridge bug is recorded as it is; the lane builder reports it. The script goes on.
      this.invalidDeltas.push(error instanceof Error ? error.message : String(error));
    }
    this.wake();
  }

  /** Answers an `interaction/request` from `script.answers` in order (held back while its `afterPrompt` is not answered). */
  answerInteraction(method: string, params: unknown): unknown {
    if (method !== "interaction/request") throw new Error(`the cell script does not answer ${method}`);
    const answer = this.script.answers[this.interactions];
    this.interactions += 1;
    this.wake();
    const kind = payloadKind(params);
    if (!answer || answer.kind !== kind) {
      this.problems.push(`interaction/request #${this.interactions} (${kind}) had no scripted ${kind} answer`);
      return kind === "user_question" ? { action: "cancel" } : { decision: "deny", grantedPermissions: null };
    }
    const reply = () => {
      if (answer.kind === "approval") return { decision: answer.decision, grantedPermissions: null };
      return userAnswerFor((params as { payload?: unknown } | undefined)?.payload, answer.action, answer.answers);
    };
    const after = answer.afterPrompt;
    if (after === undefined) return reply();
    return this.waitFor(`the answer to prompt ${after}`, () => this.promptsAnswered >= after).then(reply);
  }

  /** Ends every wait with `error` (the first one given wins). */
  end(error: Error): void {
    this.ended ??= error;
    this.wake();
  }

  // A wait ends when its event comes, when the bridge is gone, or on abort — never only by its timer.
  private waitFor(what: string, check: () => boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const test = () => {
        const done = check();
        if (!done && !this.ended) return;
        this.waiters.delete(test);
        this.scheduler.cancel(timer);
        if (done) resolve();
        else reject(this.ended);
      };
      const timer = this.scheduler.schedule(this.run.timeoutMs, () => {
        this.waiters.delete(test);
        reject(new BridgeTimeoutError(this.client.name, what, this.run.timeoutMs));
      });
      this.waiters.add(test);
      test();
    });
  }

  private findEvent(from: number, match: (e: ThreadEvent) => boolean): ThreadEvent | undefined {
    return this.events.slice(from).find(match);
  }

  /** Waits for a step's `until`, looking at the events from index `from`. */
  private async awaitUntil(until: Until, from: number, turnId: string | undefined): Promise<void> {
    const { threadId } = this;
    if (until === "answer") return;
    if (typeof until === "object" && "interaction" in until) {
      await this.waitFor(`interaction/request #${until.interaction}`, () => this.interactions >= until.interaction);
      return;
    }
    if (typeof until === "object") {
      const what = `${until.event}${until.itemType ? ` (${until.itemType})` : ""}`;
      await this.waitFor(what, () => this.findEvent(from, (e) => matchesEventWait(e, threadId, until)) !== undefined);
      return;
    }
    let turn = turnId;
    if (turn === undefined) {
      const started = (e: ThreadEvent) => e.threadId === threadId && e.type === "turn/started";
      await this.waitFor(`turn/started in ${threadId}`, () => this.findEvent(from, started) !== undefined);
      turn = turnOf(this.findEvent(from, started)!);
    }
    if (until === "turn/completed") {
      await this.waitFor(`turn/completed of turn ${turn}`, () => this.findEvent(from, (e) => e.threadId === threadId && e.type === "turn/completed" && turnOf(e) === turn) !== undefined);
    }
  }

  private ask(method: string, params: unknown): Promise<unknown> {
    return this.client.request(method, params, { timeoutMs: this.run.timeoutMs });
  }

  /** The provider thread id of the current thread. */
  private current(): string {
    const id = this.providerThreadIds[this.threadId];
    if (id === undefined) throw new BridgeRefusedError(this.client.name, `the script uses thread ${this.threadId} before starting it`);
    return id;
  }

  private async openThread(step: Extract<CellStep, { op: "thread/start" | "thread/resume" | "thread/fork" }>): Promise<void> {
    const { script } = this;
    const base = { threadId: this.threadId, cwd: script.cwd, options: { ...script.options, ...(step.options ?? {}) }, instructionMode: "append" };
    let params: Record<string, unknown> = base;
    if (step.op === "thread/resume") params = { ...base, providerThreadId: this.current() };
    if (step.op === "thread/fork") {
      params = { ...base, threadId: step.threadId, sourceProviderThreadId: this.current(), sourceProviderCheckpointId: null };
      this.threadId = step.threadId;
    }
    this.providerThreadIds[this.threadId] = ThreadSessionResultSchema.parse(await this.ask(step.op, params)).providerThreadId;
  }

  private async prompt(step: Extract<CellStep, { op: "turn/start" | "turn/steer" }>): Promise<void> {
    const from = this.events.length;
    const openTurn = this.assembler.getOpenTurnId(this.threadId);
    await this.ask(step.op, {
      threadId: this.threadId,
      providerThreadId: this.current(),
      input: [{ type: "text", text: step.text, mentions: [] }],
      clientRequestId: clientRequestIdFor(++this.prompts),
      options: this.script.options,
      ...(step.op === "turn/steer" ? { expectedTurnId: openTurn ?? null } : {}),
    });
    this.promptsAnswered += 1;
    this.wake();
    await this.awaitUntil(step.until, from, step.op === "turn/steer" ? openTurn : undefined);
  }

  private async releaseModel(until: Until): Promise<void> {
    const from = this.events.length;
    const openTurn = this.assembler.getOpenTurnId(this.threadId);
    const released = this.run.releaseModel?.() ?? 0;
    // Off script: fail at once, not after a wait that cannot end.
    if (released === 0) throw new ParityError("E_DIVERGED", "model/release: no held model response was streaming (the script holds none, or the agent already closed it)", EXIT_CODES.parityFailure);
    await this.awaitUntil(until, from, openTurn);
  }

  /** Runs one step; a `wait` looks at the events from `previousStart` (what the step before it caused). */
  async runStep(step: CellStep, previousStart: number): Promise<void> {
    const { script } = this;
    switch (step.op) {
      case "initialize":
        await initializeBridge(this.client, { timeoutMs: this.run.timeoutMs });
        return;
      case "model/list":
        await this.ask("model/list", { cwd: script.cwd, providerOptions: (script.options.providerOptions as Record<string, unknown>) ?? {} });
        return;
      case "thread/start":
      case "thread/resume":
      case "thread/fork":
        return this.openThread(step);
      case "turn/start":
      case "turn/steer":
        return this.prompt(step);
      case "thread/stop":
        await this.ask("thread/stop", {
          threadId: this.threadId,
          providerThreadId: this.current(),
          intent: step.intent,
          activeTurnId: this.assembler.getOpenTurnId(this.threadId) ?? null,
        });
        return;
      case "model/release":
        return this.releaseModel(step.until);
      case "wait":
        await this.awaitUntil(step.until, previousStart, undefined);
        return;
    }
  }
}

/**
 * Drives a bridge through a cell's runtime script (docs/design/00-product.md flow 1). Steps run one
 * after another; `interaction/request`s are answered from `script.answers` in order (a
 * request with no answer left, or of another kind, is answered `deny`/`cancel` and noted in
 * `problems`).
 *
 * @throws BridgeRpcError when the bridge refuses a step; ParityError `E_DIVERGED` when a
 *   `model/release` step finds no held model response; BridgeTimeoutError when an answer
 *   or awaited event does not come within `timeoutMs`; BridgeRefusedError when the handshake
 *   fails or a resume/fork comes before any session.
 */
export async function runCellScript(client: JsonRpcClient, script: CellScript, run: RunCellOptions): Promise<CellRun> {
  const state = new CellScriptRun(client, script, run);
  const unsubscribe = client.onNotification((notification) => {
    if (notification.method !== "thread/delta") return;
    state.onDelta(notification.params as { threadId: string; deltas: unknown[] });
  });
  client.onRequest((method, params) => state.answerInteraction(method, params));
  const unsubscribeClose = client.channel.onClose((reason) => state.end(new BridgeClosedError(client.name, reason)));
  const onAbort = () => state.end(run.signal?.reason instanceof Error ? run.signal.reason : new Error("aborted"));
  run.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // A `wait` looks at the events since the step before it was sent (what that request caused).
    let stepStart = 0;
    let previousStart = 0;
    for (const [index, step] of script.steps.entries()) {
      run.onStep?.(index, step);
      previousStart = stepStart;
      stepStart = state.events.length;
      await state.runStep(step, previousStart);
    }
  } finally {
    unsubscribe();
    unsubscribeClose();
    run.signal?.removeEventListener("abort", onAbort);
    client.onRequest(undefined);
  }
  const { interactions, problems } = state;
  if (interactions < script.answers.length) problems.push(`${script.answers.length - interactions} scripted answer(s) were never asked for`);
  return { providerThreadIds: state.providerThreadIds, lastThreadId: state.threadId, events: state.events, interactions, problems, invalidDeltas: state.invalidDeltas };
}
