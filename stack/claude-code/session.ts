/**
 * One Claude Code session: one CLI process (spec 60: "one CLI process per session"), its turns,
 * approvals, interrupts and steers, as grammar-v3 deltas on one runtime thread. A turn is the user
 * line … the `result` line; nothing else ends it.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { AgentExit } from "../bridge-kit/agent-process.js";
import { isAllowDecision, replyDecision } from "../bridge-kit/approval-ledger.js";
import { askRuntime, type BridgeIo } from "../bridge-kit/io.js";
import type { Scheduler } from "../bridge-kit/scheduler.js";
import { moveSessionPhase, type SessionPhase } from "../bridge-kit/session-bridge.js";
import { addTokenUsage } from "../bridge-kit/usage.js";
import { isRecord } from "../protocol/json-value.js";
import type { ThreadDelta, UsageBreakdown } from "../protocol/thread-delta.js";
import { approvalPayload, permissionAnswer, readToolPermission, type ToolPermissionRequest } from "./approvals.js";
import { startCliProcess, type ClaudeCodeLaunch, type CliProcess } from "./cli-process.js";
import { claudePermissionMode, INITIAL_PERMISSION_MODE } from "./modes.js";
import { readTurnEnd, turnEndDeltas } from "./result.js";
import { createTurnTranslator, unhandledDelta, unknownKindDeltas, type TurnTranslator } from "./translate.js";
import { controlErrorLine, controlSuccessLine, STREAM_JSON_ARGS, userLine, type StreamJsonMessage } from "./wire.js";

/** What every session of one bridge process shares. */
export interface SessionDeps {
  io: BridgeIo;
  log(text: string): void;
  /** The bridge's environment; sanitized before the CLI inherits it (the launch's own env is laid over it). */
  inheritedEnv: Readonly<Record<string, string | undefined>>;
  scheduler: Scheduler;
  /** Injected for tests; default the bridge-kit record tee. */
  recordChild?: (child: ChildProcess, threadId: string | null) => void;
  spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
}

/** What a session is opened with. */
export interface SessionSpec {
  threadId: string;
  /** Claude Code's `session_id`: chosen by the bridge for a new session (`--session-id`), the resumed one for `--resume`. */
  providerThreadId: string;
  resume: boolean;
  cwd: string;
  launch: ClaudeCodeLaunch;
  model?: string;
  /** The thread's runtime permission mode (a turn's own option wins). */
  permissionMode?: string;
}

/** A live session. */
export interface ClaudeSession {
  readonly providerThreadId: string;
  /** True while a turn is between its user line and its `result`. */
  readonly busy: boolean;
  /** Sends `initialize` and resolves with its response once the CLI answered. */
  initialize(): Promise<unknown>;
  /** Starts a turn: mode, `input.accepted`, `turn.open`, `reply`, then the user line. */
  startTurn(text: string, clientRequestId: string, permissionMode: string | undefined, reply: () => void): Promise<void>;
  /** Writes a user line into the running turn (the CLI takes it in at its next tool result). */
  steer(text: string, clientRequestId: string, reply: () => void): void;
  /** Interrupts the running turn; resolves once its `turn.boundary` is on the wire (at once when idle). */
  interrupt(): Promise<void>;
  /** Ends the process (stdin closed); a turn still running settles `interrupted` when the process exits. */
  close(): void;
}

interface ActiveTurn {
  ended: Promise<void>;
  end(): void;
}

/** The state of one session; the functions below move it. */
interface SessionState {
  readonly spec: SessionSpec;
  readonly deps: SessionDeps;
  readonly translator: TurnTranslator;
  cli: CliProcess;
  /** `starting` until the CLI answered `initialize`; `stopping` once the bridge interrupts or closes it. */
  phase: SessionPhase;
  /** The CLI's permission mode as last set. */
  mode: string;
  turn: ActiveTurn | undefined;
  total: UsageBreakdown;
  /** The runtime's permission mode of the running turn. */
  runtimeMode: string | undefined;
}

function emit(s: SessionState, deltas: ThreadDelta[]): void {
  if (deltas.length > 0) s.deps.io.notify("thread/delta", { threadId: s.spec.threadId, deltas });
}

/** Ends the running turn: what the translator still holds, then `deltas`. */
function finishTurn(s: SessionState, deltas: ThreadDelta[]): void {
  const active = s.turn;
  s.turn = undefined;
  emit(s, [...s.translator.settle(), ...deltas]);
  active?.end();
}

/** The `result` line: usage summed, a recovery told, the turn ended (unless a queued steer runs on in it). */
function onResult(s: SessionState, message: StreamJsonMessage): void {
  if (!s.turn) return s.deps.log(`Claude Code thread ${s.spec.threadId}: a result outside any turn`);
  // A steer the CLI queued instead of taking it in runs as its own CLI turn: same runtime turn.
  if (typeof message.queued_turn_count === "number" && message.queued_turn_count > 0) return;
  const end = readTurnEnd(message, s.translator.syntheticError);
  s.total = addTokenUsage(s.total, end.usage);
  if (end.recovery) s.deps.io.notify("provider/recovery", { threadId: s.spec.threadId, ...end.recovery });
  finishTurn(s, turnEndDeltas(end, s.total));
}

/** One of the CLI's control requests: `can_use_tool` asked of the runtime, any other refused. */
function onControlRequest(s: SessionState, message: StreamJsonMessage): void {
  const requestId = typeof message.request_id === "string" ? message.request_id : "";
  const permission = readToolPermission(message.request);
  if (!permission) {
    const subtype = isRecord(message.request) ? String(message.request.subtype) : "?";
    // Refused, and counted: the request reaches the thread as `provider/unhandled` (issue 41).
    emit(s, [unhandledDelta(`control_request:${subtype}`, message)]);
    return s.cli.send(controlErrorLine(requestId, `the bridge does not serve ${subtype}`));
  }
  answerPermission(s, requestId, permission);
}

/**
 * Allowed at once in `full` (the runtime was not asked: the call's close says nothing of it);
 * else the runtime's `interaction/request` decides (a failed request denies), and its answer is
 * the call's `approvalStatus`. The answer goes to the CLI where the runtime's line is read
 * (`askRuntime`), so a `thread/stop` or `turn/steer` the runtime wrote after it in the same chunk
 * reaches the CLI after it, as the runtime said them.
 */
function answerPermission(s: SessionState, requestId: string, permission: ToolPermissionRequest): void {
  const reply = (allowed: boolean): void => s.cli.send(controlSuccessLine(requestId, permissionAnswer(permission, allowed)));
  if (s.runtimeMode === "full") return reply(true);
  const payload = approvalPayload(permission, s.spec.cwd);
  const params = { threadId: s.spec.threadId, providerThreadId: s.spec.providerThreadId, turnId: null, payload };
  askRuntime(s.deps.io, "interaction/request", params, (answer) => {
    const allowed = answer.ok && isAllowDecision(replyDecision(answer.result));
    s.translator.noteApproval(permission.toolUseId, allowed);
    reply(allowed);
  });
}

function onMessage(s: SessionState, message: StreamJsonMessage): void {
  if (message.type === "control_request") return onControlRequest(s, message);
  if (message.type === "result") return onResult(s, message);
  // Outside a turn only a kind the bridge does not know says anything: counted, thread-scoped.
  emit(s, s.turn ? s.translator.translate(message) : unknownKindDeltas(message));
}

/** The CLI ended: a running turn settles `interrupted` when the bridge ended it, else `failed`. */
function onExit(s: SessionState, exit: AgentExit): void {
  const stopping = s.phase === "stopping";
  moveSessionPhase(s, "exited");
  if (!s.turn) return;
  if (stopping) return finishTurn(s, [{ kind: "turn.boundary", status: "interrupted" }]);
  const message = `Claude Code exited (code ${String(exit.code)}) during the turn`;
  finishTurn(s, [{ kind: "turn.boundary", status: "failed", error: { message } }]);
}

/** `turn/start` on a session (see {@link ClaudeSession.startTurn}). */
async function startTurn(s: SessionState, text: string, clientRequestId: string, permissionMode: string | undefined, reply: () => void): Promise<void> {
  s.runtimeMode = permissionMode ?? s.spec.permissionMode;
  const wanted = claudePermissionMode(s.runtimeMode);
  if (wanted !== s.mode) {
    await s.cli.controlRequest("set_permission_mode", { mode: wanted });
    s.mode = wanted;
  }
  let end = () => undefined as void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  s.turn = { ended, end };
  emit(s, [{ kind: "input.accepted", clientRequestId }, { kind: "turn.open" }]);
  reply();
  s.cli.send(userLine(text));
}

/** `interrupt` of the running turn, resolved once its boundary is on the wire. */
async function interrupt(s: SessionState): Promise<void> {
  if (!s.turn) return;
  moveSessionPhase(s, "stopping");
  const ended = s.turn.ended;
  await s.cli.controlRequest("interrupt").catch((error: Error) => s.deps.log(`interrupt: ${error.message}`));
  await ended;
}

/** Opens a session: starts its CLI (see {@link SessionSpec}); call {@link ClaudeSession.initialize} next. */
export function openClaudeSession(spec: SessionSpec, deps: SessionDeps): ClaudeSession {
  const s = {
    spec,
    deps,
    translator: createTurnTranslator(spec.cwd),
    phase: "starting",
    mode: INITIAL_PERMISSION_MODE,
    turn: undefined,
    total: addTokenUsage(undefined, undefined),
    runtimeMode: spec.permissionMode,
  } as Omit<SessionState, "cli"> as SessionState;
  const extraArgs = [...STREAM_JSON_ARGS, ...(spec.resume ? ["--resume"] : ["--session-id"]), spec.providerThreadId, ...(spec.model ? ["--model", spec.model] : [])];
  s.cli = startCliProcess({
    launch: spec.launch,
    extraArgs,
    cwd: spec.cwd,
    inheritedEnv: deps.inheritedEnv,
    threadId: spec.threadId,
    scheduler: deps.scheduler,
    onMessage: (message) => onMessage(s, message),
    log: deps.log,
    ...(deps.recordChild ? { recordChild: deps.recordChild } : {}),
    ...(deps.spawn ? { spawn: deps.spawn } : {}),
  });
  void s.cli.exit.then((exit) => onExit(s, exit));
  return {
    providerThreadId: spec.providerThreadId,
    get busy() {
      return s.turn !== undefined;
    },
    initialize() {
      const answered = s.cli.controlRequest("initialize", { hooks: {} });
      // The caller awaits the answer itself: the phase moves beside it, adding no step before the announcement.
      answered.then(
        () => moveSessionPhase(s, "open"),
        () => undefined,
      );
      return answered;
    },
    startTurn: (text, clientRequestId, permissionMode, reply) => startTurn(s, text, clientRequestId, permissionMode, reply),
    steer(text, clientRequestId, reply) {
      emit(s, [{ kind: "input.accepted", clientRequestId }]);
      reply();
      s.cli.send(userLine(text));
    },
    interrupt: () => interrupt(s),
    close() {
      moveSessionPhase(s, "stopping");
      s.cli.close();
    },
  };
}
