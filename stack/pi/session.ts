/**
 * One runtime thread on one `pi --mode rpc` process (spec 60 "pi"): start (a fresh pi, its
 * `get_state` gives the session id), resume (a new pi with `--session <file>`), user-level
 * turns (`prompt` … `agent_end`), steer, stop (`abort`, whose answer pi sends only after
 * `agent_end`, so the turn's boundary is on the wire before the stop is answered) and the
 * approval gate's questions.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { BridgeContext } from "../bridge-kit/define.js";
import { killAfter, type Scheduler } from "../bridge-kit/scheduler.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ExecutionOptions } from "../protocol/methods.js";
import type { ThreadDelta, UsageBreakdown } from "../protocol/thread-delta.js";
import { gateExtensionSource, gateFileContent, gatedToolsFor } from "./extension.js";
import { piArgs, piLaunchSpecOf } from "./launch.js";
import { currentModelOf, selectPiModel, type PiModel } from "./models.js";
import { connectPiRpc, type PiResponse, type PiRpc } from "./rpc.js";
import { createPiTurnTranslator, type PiEvent, type PiTurnTranslator } from "./translate.js";
import { uiQuestionOf } from "./ui.js";

/** What a session needs from its bridge process. */
export interface PiSessionDeps {
  ctx: BridgeContext;
  scheduler: Scheduler;
  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess;
  /** Tees a pi process into the recording: a thread's, or `null` for the `_process` scope (model/list). */
  recordChild(child: ChildProcess, threadId: string | null): void;
  sanitizeEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string>;
  /** How long pi may take to answer `get_state` at start-up (ms; spec 60 measured 7–14 s on busy cores). */
  startTimeoutMs: number;
  /** How long pi may take to exit after its stdin closed before it is killed (ms). */
  exitGraceMs: number;
}

/** A user-level turn in progress. */
interface ActiveTurn {
  translator: PiTurnTranslator;
  clientRequestId: string;
  opened: boolean;
  /** Settles when `agent_end` has been translated. */
  ended: Promise<void>;
  end(): void;
}

/** A live session. */
export interface PiSession {
  readonly threadId: string;
  readonly providerThreadId: string;
  readonly sessionFile: string | undefined;
  /** `turn/start`: sends `prompt`; `reply` runs once pi accepted it, after `input.accepted` and `turn.open`. */
  startTurn(text: string, clientRequestId: string, options: ExecutionOptions | undefined, reply: () => void): Promise<void>;
  /** `turn/steer`: pi's `steer` (delivered before the turn's next model call); `reply` after `input.accepted`. */
  steer(text: string, clientRequestId: string, reply: () => void): Promise<void>;
  /** `thread/stop`: aborts a running turn (boundary first), then ends pi. */
  stop(intent: "interrupt" | "release"): Promise<void>;
}

/** What thread/start or thread/resume asks for. */
export interface PiSessionRequest {
  threadId: string;
  cwd: string;
  options: ExecutionOptions | undefined;
  /** The session to resume: its file when this process knows it, else pi's session id. */
  resume?: string;
}

function deltasOf(ctx: BridgeContext, threadId: string, deltas: ThreadDelta[]): void {
  if (deltas.length > 0) ctx.io.notify("thread/delta", { threadId, deltas });
}

function stateOf(response: PiResponse): { sessionId: string; sessionFile: string | undefined; model: PiModel | undefined } {
  const data = (response.data ?? {}) as Record<string, unknown>;
  if (!response.success || typeof data.sessionId !== "string" || data.sessionId === "") {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi get_state failed: ${response.error ?? "no sessionId"}`);
  }
  return {
    sessionId: data.sessionId,
    sessionFile: typeof data.sessionFile === "string" ? data.sessionFile : undefined,
    model: currentModelOf(data),
  };
}

/**
 * The typed recovery of a failed turn's model error (spec 30 §4), where pi's message names the
 * HTTP status: 401/403 → `authRequired` (not retryable), 429 → `rateLimited` (retryable).
 */
export function recoveryOf(httpStatus: number | null, message: string): { kind: "authRequired" | "rateLimited"; message: string; retryable: boolean } | undefined {
  if (httpStatus === 401 || httpStatus === 403) return { kind: "authRequired", message, retryable: false };
  if (httpStatus === 429) return { kind: "rateLimited", message, retryable: true };
  return undefined;
}

/** Writes the gate extension and its gate file into the bridge's temp dir; returns the extension path, or undefined when the mode gates nothing. */
function prepareGate(ctx: BridgeContext, threadId: string, options: ExecutionOptions | undefined): { extension?: string; gateFile: string } {
  const safe = threadId.replace(/[^A-Za-z0-9_.-]+/g, "-");
  const gateFile = path.join(ctx.tempDir, `pi-gate-${safe}.json`);
  const tools = gatedToolsFor(options?.permissionMode);
  writeFileSync(gateFile, gateFileContent(tools));
  if (tools.length === 0) return { gateFile };
  const extension = path.join(ctx.tempDir, `pi-gate-${safe}.ts`);
  writeFileSync(extension, gateExtensionSource(gateFile));
  return { extension, gateFile };
}

/**
 * Starts pi for a thread and waits for its `get_state` answer.
 * @throws BridgeJsonRpcError −32602 for a bad launch spec, −32000 when pi fails to start or answer.
 */
export async function openPiSession(deps: PiSessionDeps, req: PiSessionRequest): Promise<PiSession> {
  const { ctx } = deps;
  const spec = piLaunchSpecOf(req.options);
  const gate = prepareGate(ctx, req.threadId, req.options);
  const args = piArgs(spec, { ...(gate.extension ? { extensionFile: gate.extension } : {}), ...(req.resume ? { session: req.resume } : {}) });
  const env = { ...deps.sanitizeEnv(ctx.env), ...spec.env };
  let child: ChildProcess;
  try {
    child = deps.spawn(spec.command, args, { cwd: req.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi could not start: ${(error as Error).message}`);
  }
  deps.recordChild(child, req.threadId);
  const session = createSession(deps, req, child, gate.gateFile);
  return session.ready();
}

/**
 * The deltas that fail a running turn when pi ends under it: a `provider.error` (category
 * `internal`) and a failed `turn.boundary`, both naming pi's exit code (or signal) and the last
 * three lines of its stderr.
 */
function unexpectedExitDeltas(code: number | null, signal: string | null, stderrTail: string): ThreadDelta[] {
  const tail = stderrTail.trim();
  const message = `pi exited unexpectedly (code ${String(code ?? signal)})${tail ? `: ${tail.split("\n").slice(-3).join(" | ")}` : ""}`;
  return [
    { kind: "provider.error", message, category: "internal" },
    { kind: "turn.boundary", status: "failed", error: { message } },
  ];
}

interface SessionCore {
  ready(): Promise<PiSession>;
}

// One function holds the session's state and its closures, like the echo's sessions.
function createSession(deps: PiSessionDeps, req: PiSessionRequest, child: ChildProcess, gateFile: string): SessionCore {
  const { ctx, scheduler } = deps;
  const threadId = req.threadId;
  let turn: ActiveTurn | undefined;
  let usageTotal: UsageBreakdown | undefined;
  let model: PiModel | undefined; // pi's (get_state, then each set_model): its context window goes into usage
  let stopping = false;
  const notify = (deltas: ThreadDelta[]) => deltasOf(ctx, threadId, deltas);

  const openTurn = (t: ActiveTurn) => {
    if (t.opened) return;
    t.opened = true;
    notify([{ kind: "input.accepted", clientRequestId: t.clientRequestId }, { kind: "turn.open" }]);
  };

  const finishTurn = () => {
    const t = turn;
    if (!t) return;
    turn = undefined;
    openTurn(t);
    const { deltas, end } = t.translator.finish();
    const usage = deltas.find((d): d is Extract<ThreadDelta, { kind: "usage" }> => d.kind === "usage");
    if (usage) usageTotal = usage.total;
    notify(deltas);
    const recovery = end.error ? recoveryOf(end.error.httpStatus, end.error.message) : undefined;
    if (recovery) ctx.io.notify("provider/recovery", { threadId, ...recovery });
    t.end();
  };

  const onUiRequest = (event: PiEvent) => answerUiRequest(event, { ctx, threadId, providerThreadId, cwd: req.cwd, stopping, rpc, deny: (toolCallId) => turn?.translator.deny(toolCallId) });

  const onEvent = (event: PiEvent) => {
    if (event.type === "extension_ui_request") return onUiRequest(event);
    const t = turn;
    if (!t) return;
    if (event.type === "agent_start") return openTurn(t);
    if (event.type === "agent_end") return finishTurn();
    notify(t.translator.event(event));
  };

  const rpc: PiRpc = connectPiRpc(child, {
    onEvent,
    onExit: (code, signal, stderrTail) => {
      if (!turn || stopping) return;
      const t = turn;
      turn = undefined;
      openTurn(t);
      notify(unexpectedExitDeltas(code, signal, stderrTail));
      t.end();
    },
    onNoise: (line) => ctx.log(`pi ${threadId}: non-JSON line: ${line.slice(0, 200)}`),
  });

  let providerThreadId = "";
  let sessionFile: string | undefined;

  const endProcess = () => endPiProcess(rpc, killAfter(scheduler, child, deps.exitGraceMs, "SIGKILL"));

  const session: PiSession = {
    threadId,
    get providerThreadId() {
      return providerThreadId;
    },
    get sessionFile() {
      return sessionFile;
    },
    async startTurn(text, clientRequestId, options, reply) {
      if (turn) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "A turn is already active on this thread");
      if (options?.permissionMode !== undefined) writeFileSync(gateFile, gateFileContent(gatedToolsFor(options.permissionMode)));
      // A turn's own model applies from this turn on (spec 20 §1.2); a refused one opens no turn.
      model = await selectPiModel(rpc, options?.model, model);
      const t = newTurn(createPiTurnTranslator({ cwd: req.cwd, modelContextWindow: model?.contextWindow ?? null, usageBefore: usageTotal }), clientRequestId);
      turn = t;
      const response = await rpc
        .command("prompt", { message: text }, (r) => {
          if (!r.success) return;
          openTurn(t);
          reply();
        })
        .catch((error: Error) => ({ command: "prompt", success: false, error: error.message }) as PiResponse);
      if (!response.success) {
        if (turn === t) turn = undefined;
        throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi refused the prompt: ${response.error ?? "unknown error"}`);
      }
    },
    steer: (text, clientRequestId, reply) => steerTurn(rpc, turn, notify, text, clientRequestId, reply),
    async stop(intent) {
      const t = turn;
      if (t && intent === "interrupt" && !rpc.exited) {
        // pi answers abort only after agent_end: by then the boundary is on the wire.
        await rpc.command("abort").catch(() => undefined);
        await t.ended;
      }
      stopping = true;
      await endProcess();
      if (turn) {
        // release (or a pi that never ended the turn): nothing more comes from pi.
        const left = turn;
        turn = undefined;
        notify([{ kind: "turn.boundary", status: "interrupted" }]);
        left.end();
      }
    },
  };

  return {
    async ready() {
      const state = await startedState(rpc, req.options?.model, killAfter(scheduler, child, deps.startTimeoutMs, "SIGKILL"), async () => {
        stopping = true;
        await endProcess();
      });
      providerThreadId = state.sessionId;
      sessionFile = state.sessionFile;
      model = state.model;
      return session;
    },
  };
}

/** What {@link answerUiRequest} needs of its session. */
interface UiRequestContext {
  ctx: BridgeContext;
  threadId: string;
  providerThreadId: string;
  cwd: string;
  /** The session is stopping: every request is refused at once. */
  stopping: boolean;
  rpc: PiRpc;
  /** Marks a gated tool call denied in the running turn. */
  deny(toolCallId: string): void;
}

/**
 * Answers one `extension_ui_request` (spec 60 pi "Approvals"): the gate's confirm and the
 * other dialogs become the runtime's `interaction/request`; its answer (or a failed request,
 * or a stopping session) goes back as `extension_ui_response`; a refused gated call is denied.
 */
function answerUiRequest(event: PiEvent, c: UiRequestContext): void {
  const id = String(event.id);
  const q = uiQuestionOf(event, c.cwd);
  if (!q) return;
  const answer = (fields: Record<string, unknown>) => {
    if (!c.rpc.exited) c.rpc.send({ type: "extension_ui_response", id, ...fields });
  };
  if (c.stopping) return answer(q.refused);
  c.ctx.io.request("interaction/request", { threadId: c.threadId, providerThreadId: c.providerThreadId, turnId: null, payload: q.payload }).then(
    (reply) => {
      const fields = q.answer(reply);
      if (q.toolCallId && fields.confirmed === false) c.deny(q.toolCallId);
      answer(fields);
    },
    () => {
      if (q.toolCallId) c.deny(q.toolCallId);
      answer(q.refused);
    },
  );
}

/**
 * `turn/steer` as pi's `steer` command (steerMode `queue`); the input is accepted once pi
 * answers. @throws BridgeJsonRpcError with no active turn, or when pi refuses.
 */
async function steerTurn(rpc: PiRpc, turn: ActiveTurn | undefined, notify: (deltas: ThreadDelta[]) => void, text: string, clientRequestId: string, reply: () => void): Promise<void> {
  if (!turn) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.noActiveTurn, "No active turn to steer");
  const response = await rpc.command("steer", { message: text }, (r) => {
    if (!r.success) return;
    notify([{ kind: "input.accepted", clientRequestId }]);
    reply();
  });
  if (!response.success) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi refused the steer: ${response.error ?? "unknown error"}`);
}

/**
 * pi's first answer (`get_state`: session id and file, model), then the thread's `model` option
 * selected ({@link selectPiModel}); `cancelKill` ends the start-up deadline either way,
 * `onFail` ends the process before the error is thrown.
 * @throws BridgeJsonRpcError when pi did not answer, or −32602 when it has no such model.
 */
async function startedState(rpc: PiRpc, wantedModel: string | undefined, cancelKill: () => void, onFail: () => Promise<void>): Promise<ReturnType<typeof stateOf>> {
  try {
    const state = stateOf(await rpc.command("get_state"));
    return { ...state, model: await selectPiModel(rpc, wantedModel, state.model) };
  } catch (error) {
    await onFail();
    throw error instanceof BridgeJsonRpcError ? error : new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi did not start: ${(error as Error).message}`);
  } finally {
    cancelKill();
  }
}

/** Closes pi's stdin and waits for it to exit; `cancelKill` ends the grace period's SIGKILL once it has. */
async function endPiProcess(rpc: PiRpc, cancelKill: () => void): Promise<void> {
  await rpc.close();
  cancelKill();
}

/** A user-level turn (agent_start … agent_end) not yet opened on the wire, with its end signal. */
function newTurn(translator: PiTurnTranslator, clientRequestId: string): ActiveTurn {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return { translator, clientRequestId, opened: false, ended, end };
}
