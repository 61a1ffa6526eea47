/**
 * One runtime thread on one `pi --mode rpc` process (spec 60 "pi"): start (a fresh pi, its
 * `get_state` gives the session id), resume (a new pi with `--session <file>`), user-level
 * turns (`prompt` … `agent_end`), steer, stop (`abort`, whose answer pi sends only after
 * `agent_end`, so the turn's boundary is on the wire before the stop is answered) and the
 * approval gate's questions.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { stderrTailLines, type AgentExit } from "../bridge-kit/agent-process.js";
import type { BridgeContext } from "../bridge-kit/define.js";
import { askRuntime } from "../bridge-kit/io.js";
import { moveSessionPhase, noActiveTurnError, turnActiveError, type SessionPhase } from "../bridge-kit/session-bridge.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ExecutionOptions } from "../protocol/methods.js";
import type { ThreadDelta, UsageBreakdown } from "../protocol/thread-delta.js";
import { gateExtensionSource, gateFileContent, gatedToolsFor } from "./extension.js";
import { piArgs, piLaunchSpecOf } from "./launch.js";
import { currentModelOf, selectPiModel, type PiModel } from "./models.js";
import { startPiRpc, type PiProcessDeps, type PiResponse, type PiRpc } from "./rpc.js";
import { createPiTurnTranslator, eventOutsideTurn, unknownKindDeltas, type PiEvent, type PiTurnTranslator } from "./translate.js";
import { uiQuestionOf } from "./ui.js";

/** What a session needs from its bridge process (the pi process's needs). */
export type PiSessionDeps = PiProcessDeps;

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

/** The state of one session; the functions below move it. */
interface SessionState {
  readonly deps: PiSessionDeps;
  readonly req: PiSessionRequest;
  readonly gateFile: string;
  rpc: PiRpc;
  /** `starting` until `get_state` answered; `stopping` once the bridge ends pi. */
  phase: SessionPhase;
  turn: ActiveTurn | undefined;
  usageTotal: UsageBreakdown | undefined;
  /** pi's model (get_state, then each set_model): its context window goes into usage. */
  model: PiModel | undefined;
  providerThreadId: string;
  sessionFile: string | undefined;
}

function notify(s: SessionState, deltas: ThreadDelta[]): void {
  if (deltas.length > 0) s.deps.ctx.io.notify("thread/delta", { threadId: s.req.threadId, deltas });
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
  const spec = piLaunchSpecOf(req.options);
  const gate = prepareGate(deps.ctx, req.threadId, req.options);
  const args = piArgs(spec, { ...(gate.extension ? { extensionFile: gate.extension } : {}), ...(req.resume ? { session: req.resume } : {}) });
  const s = { deps, req, gateFile: gate.gateFile, phase: "starting", turn: undefined, usageTotal: undefined, model: undefined, providerThreadId: "", sessionFile: undefined } as Omit<
    SessionState,
    "rpc"
  > as SessionState;
  try {
    s.rpc = startPiRpc(deps, { command: spec.command, args, env: spec.env }, req.cwd, req.threadId, {
      onEvent: (event) => onEvent(s, event),
      onExit: (exit) => onExit(s, exit),
      onNoise: (line) => deps.ctx.log(`pi ${req.threadId}: non-JSON line: ${line.slice(0, 200)}`),
    });
  } catch (error) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi could not start: ${(error as Error).message}`);
  }
  const state = await startedState(s.rpc, req.options?.model, s.rpc.killAfter(deps.startTimeoutMs), async () => {
    moveSessionPhase(s, "stopping");
    await s.rpc.close();
  });
  Object.assign(s, { providerThreadId: state.sessionId, sessionFile: state.sessionFile, model: state.model });
  moveSessionPhase(s, "open");
  return sessionOf(s);
}

/**
 * The deltas that fail a running turn when pi ends under it: a `provider.error` (category
 * `internal`) and a failed `turn.boundary`, both naming pi's exit code (or signal) and the last
 * three lines of its stderr.
 */
function unexpectedExitDeltas(exit: AgentExit): ThreadDelta[] {
  const tail = stderrTailLines(exit);
  const message = `pi exited unexpectedly (code ${String(exit.code ?? exit.signal)})${tail ? `: ${tail}` : ""}`;
  return [
    { kind: "provider.error", message, category: "internal" },
    { kind: "turn.boundary", status: "failed", error: { message } },
  ];
}

/** Puts a turn on the wire once: `input.accepted` and `turn.open`. */
function openTurn(s: SessionState, t: ActiveTurn): void {
  if (t.opened) return;
  t.opened = true;
  notify(s, [{ kind: "input.accepted", clientRequestId: t.clientRequestId }, { kind: "turn.open" }]);
}

/** Ends the running turn with `deltas`; `open` first puts a turn pi never started on the wire. */
function settleTurn(s: SessionState, deltas: ThreadDelta[], open: boolean): void {
  const t = s.turn;
  if (!t) return;
  s.turn = undefined;
  if (open) openTurn(s, t);
  notify(s, deltas);
  t.end();
}

/** `agent_end`: the turn's translation finished, its usage kept for the next turn's total, then a model error's recovery. */
function finishTurn(s: SessionState): void {
  const t = s.turn;
  if (!t) return;
  s.turn = undefined;
  openTurn(s, t);
  const { deltas, end } = t.translator.finish();
  const usage = deltas.find((d): d is Extract<ThreadDelta, { kind: "usage" }> => d.kind === "usage");
  if (usage) s.usageTotal = usage.total;
  notify(s, deltas);
  const recovery = end.error ? recoveryOf(end.error.httpStatus, end.error.message) : undefined;
  if (recovery) s.deps.ctx.io.notify("provider/recovery", { threadId: s.req.threadId, ...recovery });
  t.end();
}

/** One event of pi: the gate's and other questions answered, the turn's events translated. */
function onEvent(s: SessionState, event: PiEvent): void {
  if (event.type === "extension_ui_request") {
    const { ctx } = s.deps;
    const noteApproval = (toolCallId: string, allowed: boolean) => s.turn?.translator.noteApproval(toolCallId, allowed);
    return answerUiRequest(event, { ctx, threadId: s.req.threadId, providerThreadId: s.providerThreadId, cwd: s.req.cwd, stopping: s.phase === "stopping", rpc: s.rpc, noteApproval });
  }
  const t = s.turn;
  // Outside a turn only a type the bridge does not know says anything: counted, thread-scoped.
  if (!t) return notify(s, eventOutsideTurn(event));
  if (event.type === "agent_start") return openTurn(s, t);
  if (event.type === "agent_end") return finishTurn(s);
  notify(s, t.translator.event(event));
}

/** pi ended: unless the bridge ended it, a running turn fails naming the exit. */
function onExit(s: SessionState, exit: AgentExit): void {
  const stopping = s.phase === "stopping";
  moveSessionPhase(s, "exited");
  if (!stopping) settleTurn(s, unexpectedExitDeltas(exit), true);
}

/** `turn/start` on a session (see {@link PiSession.startTurn}). */
async function startTurn(s: SessionState, text: string, clientRequestId: string, options: ExecutionOptions | undefined, reply: () => void): Promise<void> {
  if (s.turn) throw turnActiveError();
  if (options?.permissionMode !== undefined) writeFileSync(s.gateFile, gateFileContent(gatedToolsFor(options.permissionMode)));
  // A turn's own model applies from this turn on (spec 20 §1.2); a refused one opens no turn.
  s.model = await selectPiModel(s.rpc, options?.model, s.model);
  const t = newTurn(createPiTurnTranslator({ cwd: s.req.cwd, modelContextWindow: s.model?.contextWindow ?? null, usageBefore: s.usageTotal }), clientRequestId);
  s.turn = t;
  const response = await s.rpc
    .command("prompt", { message: text }, (r) => {
      if (!r.success) return;
      openTurn(s, t);
      reply();
    })
    .catch((error: Error) => ({ command: "prompt", success: false, error: error.message }) as PiResponse);
  if (!response.success) {
    if (s.turn === t) s.turn = undefined;
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `pi refused the prompt: ${response.error ?? "unknown error"}`);
  }
}

/** `thread/stop` on a session (see {@link PiSession.stop}). */
async function stop(s: SessionState, intent: "interrupt" | "release"): Promise<void> {
  const t = s.turn;
  if (t && intent === "interrupt" && !s.rpc.exited) {
    // pi answers abort only after agent_end: by then the boundary is on the wire.
    await s.rpc.command("abort").catch(() => undefined);
    await t.ended;
  }
  moveSessionPhase(s, "stopping");
  await s.rpc.close();
  // release (or a pi that never ended the turn): nothing more comes from pi.
  settleTurn(s, [{ kind: "turn.boundary", status: "interrupted" }], false);
}

/** The session's face towards the bridge. */
function sessionOf(s: SessionState): PiSession {
  return {
    threadId: s.req.threadId,
    get providerThreadId() {
      return s.providerThreadId;
    },
    get sessionFile() {
      return s.sessionFile;
    },
    startTurn: (text, clientRequestId, options, reply) => startTurn(s, text, clientRequestId, options, reply),
    steer: (text, clientRequestId, reply) => steerTurn(s.rpc, s.turn, (deltas) => notify(s, deltas), text, clientRequestId, reply),
    stop: (intent) => stop(s, intent),
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
  /** Records whether a gated tool call of the running turn was allowed (its close's `approvalStatus`). */
  noteApproval(toolCallId: string, allowed: boolean): void;
}

/** The `extension_ui_request` methods pi sends without waiting for an answer (status lines, widgets, the title, a notice, the editor's text): nothing to ask the runtime. */
const FIRE_AND_FORGET_UI_METHODS: ReadonlySet<string> = new Set(["notify", "setStatus", "setWidget", "setTitle", "set_editor_text"]);

/**
 * Answers one `extension_ui_request` (spec 60 pi "Approvals"): the gate's confirm and the
 * other dialogs become the runtime's `interaction/request`; its answer (or a failed request,
 * or a stopping session) goes back as `extension_ui_response`; a gated call's close says whether
 * it was allowed. The response is written where the runtime's answer is read (`askRuntime`), so
 * a `thread/stop`'s `abort` or a `turn/steer`'s `steer` the runtime wrote after it in the same
 * chunk reaches pi after it, as the runtime said them.
 */
function answerUiRequest(event: PiEvent, c: UiRequestContext): void {
  const id = String(event.id);
  const q = uiQuestionOf(event, c.cwd);
  if (!q) {
    // A fire-and-forget method pi documents needs no answer; any other is refused by silence, and counted (issue 41).
    const method = String(event.method);
    if (!FIRE_AND_FORGET_UI_METHODS.has(method)) c.ctx.io.notify("thread/delta", { threadId: c.threadId, deltas: unknownKindDeltas(event, `extension_ui_request:${method}`) });
    return;
  }
  const answer = (fields: Record<string, unknown>) => {
    if (!c.rpc.exited) c.rpc.send({ type: "extension_ui_response", id, ...fields });
  };
  if (c.stopping) return answer(q.refused);
  askRuntime(c.ctx.io, "interaction/request", { threadId: c.threadId, providerThreadId: c.providerThreadId, turnId: null, payload: q.payload }, (reply) => {
    const fields = reply.ok ? q.answer(reply.result) : q.refused;
    if (q.toolCallId) c.noteApproval(q.toolCallId, reply.ok && fields.confirmed === true);
    answer(fields);
  });
}

/**
 * `turn/steer` as pi's `steer` command (steerMode `queue`); the input is accepted once pi
 * answers. @throws BridgeJsonRpcError with no active turn, or when pi refuses.
 */
async function steerTurn(rpc: PiRpc, turn: ActiveTurn | undefined, notify: (deltas: ThreadDelta[]) => void, text: string, clientRequestId: string, reply: () => void): Promise<void> {
  if (!turn) throw noActiveTurnError();
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

/** A user-level turn (agent_start … agent_end) not yet opened on the wire, with its end signal. */
function newTurn(translator: PiTurnTranslator, clientRequestId: string): ActiveTurn {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return { translator, clientRequestId, opened: false, ended, end };
}
