/**
 * One ACP session of one bb thread: the live agent connection, its translator, the active prompt,
 * queued steers and pending agent requests (spec 20 §2.3–§3.8, spec 30 §5–§6).
 *
 * A session is plain state plus the emit helpers every concern shares (state below, lifecycle
 * above): the behaviour lives in the rooms above, `session/` (session-setup.ts construction,
 * turns.ts prompts and steers, stop.ts) and `interaction/` (client-requests.ts).
 */
import type { BridgeIo } from "../../bridge-kit/io.js";
import type { ScheduledHandle, Scheduler } from "../../bridge-kit/scheduler.js";
import type { ExecutionOptions } from "../../protocol/methods.js";
import type { ErrorInfo, ThreadDelta } from "../../protocol/thread-delta.js";
import type { AcpAgentConnection } from "../connection/connection.js";
import type { NativeSettingsState, SessionOptionState } from "../model-data/session-settings.js";
import type { AcpDialect } from "../dialects/index.js";
import type { AcpLaunchSpec } from "../agents/launch-spec.js";
import type { AcpPermissionMode } from "../agents/launch-args.js";
import type { AcpTranslator } from "../translate/index.js";

/** Old texts of files an agent announced it will edit: absolute path → old text (`null`: the file did not exist); kept by `interaction/edit-baselines.ts`. */
export type EditBaselines = Map<string, string | null>;

/** An approval the session installed for its agent (Cursor's MCP approvals file, `interaction/cursor-mcp-approval.ts`); revoked when the session ends. */
export interface InstalledApproval {
  /** Removes the approval if this bridge added it (idempotent, never rejects). */
  revoke(): Promise<void>;
}

/**
 * What kind of prompt is running (spec 20 §3.5, spec 30 §6.2): a runtime `turn`, a `compaction`,
 * or an `agent`-initiated turn (work the agent started on its own while the session was idle).
 */
export type AcpPromptKind = "turn" | "compaction" | "agent";

/** One queued `turn/steer` input (spec 20 §3.7). */
export interface QueuedSteer {
  clientRequestId: string;
  input: Array<Record<string, unknown>>;
  /** The steer's execution options, reconciled in place before its re-prompt (spec 30 §6.2). */
  options?: ExecutionOptions | undefined;
}

/**
 * The active prompt run: one bb turn (possibly several `session/prompt` requests when steers
 * re-prompt it). `settled` resolves once the turn's terminal deltas are out (or it was abandoned).
 */
export interface PromptRun {
  /** Mutable: a steer into an agent-initiated turn makes it a runtime turn (no second `turn.open`). */
  kind: AcpPromptKind;
  /** The quiet timer that ends an agent-initiated turn; cleared when the run settles. */
  quietTimer: ScheduledHandle | undefined;
  /** True while a `session/cancel` sent for a steer (or stop) is outstanding. */
  cancelling: boolean;
  /** Resolves when the run is finished, whatever the outcome. */
  settled: Promise<void>;
  /** Marks the run finished (idempotent). */
  markSettled(): void;
  /** True once the run has emitted its terminal deltas or was abandoned. */
  done: boolean;
}

/** An agent request waiting on the runtime (permission or elicitation) that a stop/steer can cancel. */
export interface PendingAgentRequest {
  /** Answers the agent with the cancelled outcome now; a later runtime answer is ignored. */
  cancel(): void;
}

/** Per-session execution settings (spec 20 §1.2 options; spec 30 §6.2 per-turn reconcile). */
export interface AcpSessionSettings {
  permissionMode: AcpPermissionMode;
  /** `[cwd, ...additionalWorkspaceWriteRoots]`, absolute. */
  writeRoots: string[];
  cwd: string;
  model?: string | undefined;
  reasoningLevel?: string | undefined;
  envVars: Record<string, string>;
}

/** Agent facts read from the `initialize` result. */
export interface AcpAgentFacts {
  loadSession: boolean;
  resume: boolean;
  fork: boolean;
  image: boolean;
}

/**
 * Where a session is in its life (spec 20 §2.3–§3.8, spec 30 §5–§6.3). Whether it was announced
 * yet is apart from this (`deferred`): a stop or an exit can come while it is being constructed.
 * - `active`: it runs, and its turn output is its own (a fresh `session/new`, or any session once
 *   prompted); the phase a session is constructed in.
 * - `restoring`: its `session/load|resume` is out: updates replay history into session state only.
 * - `replaying`: a forked or restored session before its first prompt: turn output replays the
 *   source's history (opencode after `session/fork`) and is dropped (spec 30 §6.2). Also while its
 *   fork request is out (opencode streams history before the fork answer).
 * - `failed`: its last prompt failed while a cancel was outstanding; the next `turn/start` rebuilds it.
 * - `exited`: the agent exited without being asked to; the next `turn/start` rebuilds it.
 * - `stopping`: `thread/stop`, a rebuild or a failed setup is ending it: later `session/update`s
 *   are dropped and agent requests answered cancelled. Final.
 */
export type AcpSessionPhase = "active" | "restoring" | "replaying" | "failed" | "exited" | "stopping";

/** The phases each phase may move to; any other move is ignored (see {@link moveSessionPhase}). */
const PHASE_MOVES: Record<AcpSessionPhase, readonly AcpSessionPhase[]> = {
  active: ["restoring", "replaying", "failed", "exited", "stopping"],
  restoring: ["active", "replaying", "exited", "stopping"],
  replaying: ["active", "failed", "exited", "stopping"],
  failed: ["exited", "stopping"],
  exited: ["stopping"],
  stopping: [],
};

/**
 * Moves `session` to `next` when its phase may move there ({@link AcpSessionPhase}); otherwise
 * leaves it (a stop is never undone by a later step, an exit is never hidden by a failed prompt).
 * Returns whether it moved.
 */
export function moveSessionPhase(session: Pick<AcpSession, "phase">, next: AcpSessionPhase): boolean {
  if (!PHASE_MOVES[session.phase].includes(next)) return false;
  session.phase = next;
  return true;
}

/** True once `thread/identity` was sent for the session (its construction ended). */
export function isAnnounced(session: Pick<AcpSession, "deferred">): boolean {
  return session.deferred === null;
}

/** Whether a restart can restore the session (`sessionRestorable`): its agent can load or resume sessions. */
export function isSessionRestorable(session: Pick<AcpSession, "facts">): boolean {
  return session.facts.loadSession || session.facts.resume;
}

/** One ACP session (spec 20 §2.3). Mutable by design: it is the state of one live session. */
export interface AcpSession {
  readonly threadId: string;
  readonly label: string;
  readonly spec: AcpLaunchSpec;
  readonly dialect: AcpDialect;
  readonly translator: AcpTranslator;
  connection: AcpAgentConnection;
  facts: AcpAgentFacts;
  settings: AcpSessionSettings;
  /** The construction request, kept so a rebuild can resume the session with the same tools (spec 30 §6.3). */
  origin: { cwd: string; options: ExecutionOptions | undefined; dynamicTools: unknown[] | undefined };
  /** The agent's `sessionId`; `null` until `session/new|load|resume|fork` answered. */
  providerThreadId: string | null;
  /** Where the session is in its life ({@link AcpSessionPhase}); moved by {@link moveSessionPhase}. */
  phase: AcpSessionPhase;
  /** Old texts of files announced by edit `tool_call`s, for the fileChange diff of `fs/write_text_file`. */
  editBaselines: EditBaselines;
  prompt: PromptRun | null;
  steers: QueuedSteer[];
  pending: Set<PendingAgentRequest>;
  /** Instructions still to inject into the first prompt (fresh `session/new` only, spec 30 §6.3). */
  pendingInstructions: string | null;
  /**
   * Deltas produced before the session was announced (`thread/identity`), sent after it; `null`
   * once it was: deltas then go straight out. A session not yet announced is being constructed.
   */
  deferred: ThreadDelta[] | null;
  /** Cursor MCP approvals this session installed; revoked when it ends (spec 20 §2.7). */
  approvals: InstalledApproval[];
  /** Modes and config options the agent offered, for per-turn `sessionOptions` (spec 30 §6.2). */
  optionState: SessionOptionState;
  /** Native model / reasoning / tier state beside `optionState` (model-selection.ts); set once the session is created. */
  nativeSettings?: NativeSettingsState;
  /** Slash commands the agent advertised (`available_commands_update`). */
  agentCommands: Set<string>;
}

/** Revokes the session's Cursor MCP approvals (never rejects). */
export async function revokeApprovals(session: AcpSession): Promise<void> {
  const approvals = session.approvals.splice(0);
  await Promise.all(approvals.map((approval) => approval.revoke()));
}

/**
 * The agent's session id of a constructed session, for ACP calls that need it.
 * @throws Error when the session has none yet (a bridge bug: calls are only made after setup).
 */
export function agentSessionId(session: Pick<AcpSession, "threadId" | "providerThreadId">): string {
  if (session.providerThreadId === null) throw new Error(`ACP session of thread ${session.threadId} has no agent session id yet`);
  return session.providerThreadId;
}

/** Sends one `thread/delta` for a non-empty batch (never an empty one, spec 20 §1.4). */
export function emitDeltas(io: BridgeIo, session: Pick<AcpSession, "threadId" | "deferred">, deltas: ThreadDelta[]): void {
  if (deltas.length === 0) return;
  if (session.deferred !== null) {
    session.deferred.push(...deltas);
    return;
  }
  io.notify("thread/delta", { threadId: session.threadId, deltas });
}

/** Creates a prompt run whose `settled` promise resolves on `markSettled`; its quiet timer runs on `scheduler`. */
export function createPromptRun(kind: AcpPromptKind, scheduler: Scheduler): PromptRun {
  let resolve!: () => void;
  const settled = new Promise<void>((r) => (resolve = r));
  const run: PromptRun = {
    kind,
    quietTimer: undefined,
    cancelling: false,
    settled,
    done: false,
    markSettled() {
      scheduler.cancel(run.quietTimer);
      run.quietTimer = undefined;
      if (run.done) return;
      run.done = true;
      resolve();
    },
  };
  return run;
}

/** Answers every pending permission/elicitation `cancelled` (stop, steer, compaction; spec 30 §5 step 2). */
export function cancelPendingAgentRequests(session: AcpSession): void {
  const pending = [...session.pending];
  session.pending.clear();
  for (const request of pending) request.cancel();
}

/**
 * Reports a session error (spec 20 §3.5): the translator's `provider.error {settlesTurn}` delta and,
 * unless `deltaOnly`, the `error {threadId, providerThreadId?, message}` notification. `errorInfo`:
 * the typed facts of the agent's error answer (`translate/model-error.ts`), on the delta.
 * `promptFailed`: a rejected prompt, whose turn ends with a `turn.boundary` carrying `message` as its
 * error (translator `promptFailed`, issue 39) instead of the settling `provider.error`.
 */
export function emitSessionError(io: BridgeIo, session: AcpSession, message: string, options: { deltaOnly?: boolean; errorInfo?: ErrorInfo; promptFailed?: boolean } = {}): void {
  const translator = session.translator;
  emitDeltas(io, session, options.promptFailed ? translator.promptFailed(message, options.errorInfo) : translator.sessionError(message, options.errorInfo));
  if (options.deltaOnly) return;
  io.notify("error", {
    threadId: session.threadId,
    ...(session.providerThreadId ? { providerThreadId: session.providerThreadId } : {}),
    message,
  });
}
