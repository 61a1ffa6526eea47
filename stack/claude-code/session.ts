/**
 * One Claude Code session: one CLI process (spec 60: "one CLI process per session"), its turns,
 * approvals, interrupts and steers, as grammar-v3 deltas on one runtime thread. A turn is the user
 * line … the `result` line; nothing else ends it.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { addTokenUsage } from "../bridge-kit/usage.js";
import type { BridgeIo } from "../bridge-kit/io.js";
import { isRecord } from "../protocol/json-value.js";
import type { ThreadDelta, UsageBreakdown } from "../protocol/thread-delta.js";
import { approvalPayload, isAllowed, permissionAnswer, readToolPermission } from "./approvals.js";
import { startCliProcess, type ClaudeCodeLaunch, type CliProcess } from "./cli-process.js";
import { claudePermissionMode, INITIAL_PERMISSION_MODE } from "./modes.js";
import { readTurnEnd, turnEndDeltas } from "./result.js";
import { createTurnTranslator } from "./translate.js";
import { controlErrorLine, controlSuccessLine, STREAM_JSON_ARGS, userLine, type StreamJsonMessage } from "./wire.js";

/** What every session of one bridge process shares. */
export interface SessionDeps {
  io: BridgeIo;
  log(text: string): void;
  /** The sanitized environment of the CLI (the launch's own env is laid over it). */
  env: Readonly<Record<string, string>>;
  recordChild(child: ChildProcess, threadId: string): void;
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
  stopping: boolean;
  ended: Promise<void>;
  end(): void;
}

/** Opens a session: starts its CLI (see {@link SessionSpec}); call {@link ClaudeSession.initialize} next. */
export function openClaudeSession(spec: SessionSpec, deps: SessionDeps): ClaudeSession {
  const translator = createTurnTranslator(spec.cwd);
  const emit = (deltas: ThreadDelta[]) => {
    if (deltas.length > 0) deps.io.notify("thread/delta", { threadId: spec.threadId, deltas });
  };
  let mode = INITIAL_PERMISSION_MODE;
  let turn: ActiveTurn | undefined;
  let total: UsageBreakdown = addTokenUsage(undefined, undefined);
  let runtimeMode = spec.permissionMode;

  const finishTurn = (deltas: ThreadDelta[]) => {
    const active = turn;
    turn = undefined;
    emit([...translator.settle(), ...deltas]);
    active?.end();
  };

  const onResult = (message: StreamJsonMessage) => {
    if (!turn) return deps.log(`Claude Code thread ${spec.threadId}: a result outside any turn`);
    // A steer the CLI queued instead of taking it in runs as its own CLI turn: same runtime turn.
    if (typeof message.queued_turn_count === "number" && message.queued_turn_count > 0) return;
    const end = readTurnEnd(message, translator.syntheticError);
    total = addTokenUsage(total, end.usage);
    if (end.recovery) deps.io.notify("provider/recovery", { threadId: spec.threadId, ...end.recovery });
    finishTurn(turnEndDeltas(end, total));
  };

  const onControlRequest = (message: StreamJsonMessage) => {
    const requestId = typeof message.request_id === "string" ? message.request_id : "";
    const permission = readToolPermission(message.request);
    if (!permission) {
      const subtype = isRecord(message.request) ? String(message.request.subtype) : "?";
      return cli.send(controlErrorLine(requestId, `the bridge does not serve ${subtype}`));
    }
    void answerPermission(requestId, permission);
  };

  const answerPermission = async (requestId: string, permission: NonNullable<ReturnType<typeof readToolPermission>>) => {
    let allowed = runtimeMode === "full";
    if (!allowed) {
      const payload = approvalPayload(permission, spec.cwd);
      const params = { threadId: spec.threadId, providerThreadId: spec.providerThreadId, turnId: null, payload };
      allowed = await deps.io.request<{ decision?: unknown }>("interaction/request", params).then(
        (answer) => isAllowed(answer?.decision),
        () => false,
      );
    }
    if (!allowed) translator.noteDenied(permission.toolUseId);
    cli.send(controlSuccessLine(requestId, permissionAnswer(permission, allowed)));
  };

  const onMessage = (message: StreamJsonMessage) => {
    if (message.type === "control_request") return onControlRequest(message);
    if (message.type === "result") return onResult(message);
    if (turn) emit(translator.translate(message));
  };

  const extraArgs = [...STREAM_JSON_ARGS, ...(spec.resume ? ["--resume"] : ["--session-id"]), spec.providerThreadId, ...(spec.model ? ["--model", spec.model] : [])];
  const cli: CliProcess = startCliProcess({
    launch: spec.launch,
    extraArgs,
    cwd: spec.cwd,
    env: deps.env,
    onMessage,
    recordChild: (child) => deps.recordChild(child, spec.threadId),
    log: deps.log,
    ...(deps.spawn ? { spawn: deps.spawn } : {}),
  });
  void cli.exited.then((code) => {
    if (!turn) return;
    if (turn.stopping) return finishTurn([{ kind: "turn.boundary", status: "interrupted" }]);
    const message = `Claude Code exited (code ${String(code)}) during the turn`;
    finishTurn([{ kind: "turn.boundary", status: "failed", error: { message } }]);
  });

  return {
    providerThreadId: spec.providerThreadId,
    get busy() {
      return turn !== undefined;
    },
    initialize: () => cli.controlRequest("initialize", { hooks: {} }),
    async startTurn(text, clientRequestId, permissionMode, reply) {
      runtimeMode = permissionMode ?? spec.permissionMode;
      const wanted = claudePermissionMode(runtimeMode);
      if (wanted !== mode) {
        await cli.controlRequest("set_permission_mode", { mode: wanted });
        mode = wanted;
      }
      let end = () => undefined as void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      turn = { stopping: false, ended, end };
      emit([{ kind: "input.accepted", clientRequestId }, { kind: "turn.open" }]);
      reply();
      cli.send(userLine(text));
    },
    steer(text, clientRequestId, reply) {
      emit([{ kind: "input.accepted", clientRequestId }]);
      reply();
      cli.send(userLine(text));
    },
    async interrupt() {
      if (!turn) return;
      turn.stopping = true;
      const ended = turn.ended;
      await cli.controlRequest("interrupt").catch((error: Error) => deps.log(`interrupt: ${error.message}`));
      await ended;
    },
    close() {
      if (turn) turn.stopping = true;
      cli.close();
    },
  };
}
