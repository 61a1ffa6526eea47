/**
 * `turn/start` and `turn/steer`: prompts, the steer queue and turn completion
 * (spec 20 §2.4, §3.5, §3.7; spec 30 §6.2, §6.3 rebuild).
 *
 * Acceptance timing (spec 20 §8.1): `turn.open` → write `session/prompt` → `input.accepted` → reply.
 * A steer is replied to at once and accepted only when its re-prompt is written.
 */
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../../protocol/errors.js";
import type { JsonRpcId } from "../../protocol/json-rpc.js";
import type { TurnStartParams, TurnSteerParams, ExecutionOptions } from "../../protocol/methods.js";
import type { ErrorInfo, ThreadDelta } from "../../protocol/thread-delta.js";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { AcpAgentExitedError, AcpAgentRequestError } from "../connection/connection.js";
import { modelErrorInfo, STOP_REASON_STATUS } from "../translate/index.js";
import { buildPromptBlocks, COMPACT_COMMAND, instructionsBlock, isCompactInput, rewriteUnknownSkillCommand, type AcpPromptBlock } from "./prompt-blocks.js";
import { staleTurnError, toRequestError } from "../connection/recovery.js";
import { agentSessionId, cancelPendingAgentRequests, createPromptRun, emitDeltas, emitSessionError, moveSessionPhase, type AcpSession, type PromptRun, type QueuedSteer } from "../state/session.js";
import { constructSession, permissionModeOf, writeRootsOf } from "./session-setup.js";
import { stopSession } from "./stop.js";
import { finishAgentTurnForRuntimeTurn } from "./agent-turns.js";
import { applySessionOptions } from "./session-options.js";
import { launchSettingsChanged, reconcileNativeSettings } from "../models/execution-settings.js";
import { BUSY_RETRY_LIMIT, isSessionBusyError, waitForAgentQuiet } from "./busy-retry.js";

/** Steer mode the bridge reports in its handshake: steers queue behind a cancel (spec 20 §3.7). */
export const ACP_STEER_MODE = "queue";

function noSession(): BridgeJsonRpcError {
  return new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "No active ACP session");
}

function inputOf(params: { input: Array<Record<string, unknown>> }): Array<Record<string, unknown>> {
  return params.input as Array<Record<string, unknown>>;
}

/** Why a live session must be rebuilt before this turn, or null (spec 30 §6.2 reconcile). */
function rebuildReason(session: AcpSession, options: ExecutionOptions | undefined): string | null {
  if (session.phase === "exited") return "The agent exited unexpectedly";
  if (session.phase === "failed") return "The agent failed during cancellation";
  const mode = options?.permissionMode;
  if (mode && mode !== session.settings.permissionMode && session.spec.permissionCli) return "Execution settings changed";
  // A model or reasoning level chosen by a launch flag can only change with a new process.
  if (launchSettingsChanged(session, options)) return "Execution settings changed";
  // An empty per-turn envVars means "unchanged" (runtimes send {} on turns); only set keys count.
  const envVars = options?.envVars ?? {};
  if (Object.entries(envVars).some(([key, value]) => session.settings.envVars[key] !== value)) return "Execution settings changed";
  return null;
}

/**
 * Rebuilds a session (spec 30 §6.3): stops what is left of it, resume-constructs the same
 * `providerThreadId` with the turn's settings, then sends `session/replaced {threadId,
 * providerThreadId, reason, contextLost}` (`contextLost` = the id changed).
 */
async function rebuildSession(rt: AcpBridgeRuntime, session: AcpSession, options: ExecutionOptions | undefined, reason: string): Promise<AcpSession> {
  const previousId = session.providerThreadId;
  await stopSession(rt, session, "interrupt");
  const merged: ExecutionOptions = { ...(session.origin.options ?? {}), ...(options ?? {}) };
  if (!options?.providerOptions?.acpLaunchSpec && session.origin.options?.providerOptions) {
    merged.providerOptions = { ...session.origin.options.providerOptions, ...(options?.providerOptions ?? {}) };
  }
  if (options?.envVars && Object.keys(options.envVars).length === 0) merged.envVars = session.settings.envVars;
  const result = await constructSession(rt, {
    threadId: session.threadId,
    cwd: session.origin.cwd,
    options: merged,
    dynamicTools: session.origin.dynamicTools,
    mode: previousId ? { kind: "resume", providerThreadId: previousId } : { kind: "start" },
  });
  rt.ctx.io.notify("session/replaced", {
    threadId: session.threadId,
    providerThreadId: result.providerThreadId,
    reason,
    contextLost: result.providerThreadId !== previousId,
  });
  const rebuilt = rt.sessions.get(session.threadId);
  if (!rebuilt) throw noSession();
  return rebuilt;
}

/**
 * The part of reconciling execution settings that applies to the live session (spec 30 §6.2):
 * permission mode, write roots, pending permissions cancelled, changed session options sent.
 * Run for every `turn/start` (after any rebuild) and before every steer re-prompt.
 */
async function reconcileInPlace(rt: AcpBridgeRuntime, session: AcpSession, options: ExecutionOptions | undefined, permissionMode: AcpSession["settings"]["permissionMode"]): Promise<void> {
  session.settings.permissionMode = permissionMode;
  if (options?.providerOptions?.additionalWorkspaceWriteRoots !== undefined) {
    session.settings.writeRoots = writeRootsOf(session.origin.cwd, options);
  }
  cancelPendingAgentRequests(session);
  await reconcileNativeSettings(rt, session, options);
  await applySessionOptions(rt, session, options?.sessionOptions);
}

/**
 * `turn/start` (spec 20 §3.5): answers the request itself once the prompt is written.
 * @throws BridgeJsonRpcError -32000 `No active ACP session`, `A turn is already active`,
 *   `ACP does not support permission mode "auto".`, or a failed rebuild (with recovery data).
 */
export async function startTurn(rt: AcpBridgeRuntime, id: JsonRpcId, params: TurnStartParams): Promise<void> {
  // Called at the request's place in read order (bridge.ts, connection/read-order.ts): the lines
  // the agent wrote before this turn/start arrived were handled first, so output before the first
  // prompt stays dropped and idle output stays in its agent turn, however fast the runtime is.
  // Waiting here again would also wait for agent lines read after it.
  let session = rt.sessions.get(params.threadId);
  if (!session) throw noSession();
  // The skills as of this request's place: a skills/configure read after it may act while the
  // awaits below run, and must not change this turn's prompt.
  const skillNames = new Set(rt.skills.flatMap((root) => root.skills.map((skill) => skill.name)));
  finishAgentTurnForRuntimeTurn(rt, session);
  if (session.prompt) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "A turn is already active");
  // A turn without a permission mode keeps the session's current one.
  const permissionMode = params.options?.permissionMode === undefined ? session.settings.permissionMode : permissionModeOf(params.options);
  const reason = rebuildReason(session, params.options);
  if (reason) {
    try {
      session = await rebuildSession(rt, session, params.options, reason);
    } catch (error) {
      throw toRequestError(error);
    }
    if (session.prompt) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "A turn is already active");
  }
  await reconcileInPlace(rt, session, params.options, permissionMode);
  // Another turn/start may have won the race while the options were applied.
  if (session.prompt) throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, "A turn is already active");

  const input = rewriteUnknownSkillCommand(inputOf(params), skillNames, session.agentCommands);
  const kind = isCompactInput(input) ? "compaction" : "turn";
  const run = createPromptRun(kind, rt.options.scheduler);
  session.prompt = run;
  if (session.phase === "replaying") moveSessionPhase(session, "active");
  const io = rt.ctx.io;
  emitDeltas(io, session, kind === "turn" ? session.translator.turnStarted() : session.translator.compactionStarted());

  let blocks: AcpPromptBlock[];
  if (kind === "compaction") blocks = [{ type: "text", text: COMPACT_COMMAND }];
  else {
    blocks = buildPromptBlocks(input, { imageSupported: session.facts.image });
    if (session.pendingInstructions) blocks.unshift(instructionsBlock(session.pendingInstructions));
    session.pendingInstructions = null;
  }
  const prompt = session.connection.request("session/prompt", { sessionId: agentSessionId(session), prompt: blocks });
  emitDeltas(io, session, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]);
  io.sendResult(id, { threadId: params.threadId });
  void runPromptLoop(rt, session, run, prompt, blocks);
}

/** Sends `session/cancel` for a steer (or a stop) once per outstanding prompt (spec 20 §3.7). */
export function cancelActivePrompt(session: AcpSession, run: PromptRun): void {
  if (run.cancelling) return;
  run.cancelling = true;
  cancelPendingAgentRequests(session);
  session.connection.notify("session/cancel", { sessionId: agentSessionId(session) });
}

/**
 * `turn/steer` (spec 20 §3.7, spec 30 §4): queues the input, cancels the outstanding prompt, and
 * answers `{threadId}` at once.
 * @throws BridgeJsonRpcError -32000 `No active ACP session`; -32001 `No active turn to steer`
 *   with a `staleTurn` hint when idle, compacting or stopping.
 */
export function steerTurn(rt: AcpBridgeRuntime, params: TurnSteerParams): { threadId: string } {
  const session = rt.sessions.get(params.threadId);
  if (!session) throw noSession();
  const run = session.prompt;
  if (run && run.kind === "agent" && session.phase !== "stopping" && !run.done) {
    promptInsideAgentTurn(rt, session, run, params);
    return { threadId: params.threadId };
  }
  if (!run || run.kind !== "turn" || session.phase === "stopping" || run.done) throw staleTurnError();
  // A permission mode the bridge cannot run refuses the steer before anything is cancelled.
  if (params.options?.permissionMode !== undefined) permissionModeOf(params.options);
  session.steers.push({ clientRequestId: params.clientRequestId, input: inputOf(params), options: params.options });
  cancelActivePrompt(session, run);
  return { threadId: params.threadId };
}

/**
 * A steer into an agent-initiated turn (spec 30 §6.2): the run becomes a runtime turn (no second
 * `turn.open`), the steer's input is prompted and accepted once written.
 */
function promptInsideAgentTurn(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun, params: TurnSteerParams): void {
  rt.options.scheduler.cancel(run.quietTimer);
  run.quietTimer = undefined;
  run.kind = "turn";
  if (session.phase === "replaying") moveSessionPhase(session, "active");
  const blocks = buildPromptBlocks(inputOf(params), { imageSupported: session.facts.image });
  const prompt = session.connection.request("session/prompt", { sessionId: agentSessionId(session), prompt: blocks });
  emitDeltas(rt.ctx.io, session, [{ kind: "input.accepted", clientRequestId: params.clientRequestId }]);
  void runPromptLoop(rt, session, run, prompt, blocks);
}

/**
 * Reconciles a steer's execution settings before its re-prompt (spec 30 §6.2). Settings that
 * need a new agent process are not applied inside a running turn: the next `turn/start` with
 * them rebuilds the session (logged here).
 */
async function reconcileSteer(rt: AcpBridgeRuntime, session: AcpSession, steer: QueuedSteer): Promise<void> {
  const options = steer.options;
  if (!options) return;
  const reason = rebuildReason(session, options);
  if (reason) rt.ctx.log(`ACP steer ${steer.clientRequestId}: "${reason}" needs a new agent process; applied at the next turn/start`);
  const mode = options.permissionMode === undefined ? session.settings.permissionMode : permissionModeOf(options);
  // A mode whose launch flags differ stays as the process was launched until that rebuild.
  const inPlaceMode = reason && session.spec.permissionCli ? session.settings.permissionMode : mode;
  await reconcileInPlace(rt, session, options, inPlaceMode);
}

/** The warning that says a stopped turn's agent answered with another stop reason. */
function stopAnsweredWarning(stopReason: string): ThreadDelta {
  return {
    kind: "provider.warning",
    summary: "Stop requested; the turn was interrupted",
    details: `The agent answered the cancelled prompt with stop reason ${stopReason}.`,
    vouchedTurn: true,
  };
}

/** Emits the terminal deltas of a run and clears it (idempotent per run). */
export function finishRun(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun, stopReason: string, promptResult: unknown): void {
  if (session.prompt !== run || run.done) return;
  session.prompt = null;
  const t = session.translator;
  let deltas: ThreadDelta[];
  if (run.kind === "compaction") deltas = [...t.promptResult(promptResult), ...t.compactionCompleted({ stopReason })];
  else {
    // An agent answering a stopped turn with anything but `cancelled` (it finished before the cancel
    // reached it, or ignored it) still settles it interrupted: a stop was requested (spec 30 §5).
    const stopped = session.phase === "stopping" && stopReason !== "cancelled" && STOP_REASON_STATUS[stopReason] !== undefined;
    try {
      deltas = [...t.promptResult(promptResult), ...(stopped ? [stopAnsweredWarning(stopReason)] : []), ...t.turnCompleted(stopped ? "cancelled" : stopReason, promptResult)];
    } catch (error) {
      // An unknown stop reason fails result validation and counts as a prompt error (spec 20 §3.5).
      session.prompt = run;
      failRun(rt, session, run, `ACP agent returned an unexpected session/prompt result: ${(error as Error).message}`);
      return;
    }
  }
  emitDeltas(rt.ctx.io, session, deltas);
  // Agent requests still waiting (approvals, dynamic tool calls) are stale once the turn ended.
  cancelPendingAgentRequests(session);
  run.markSettled();
}

/**
 * A rejected prompt (spec 20 §3.5, spec 30 §6.2): queued steers dropped; while stopping the turn
 * settles `interrupted` (the stop owes a boundary); a compaction closes `failed`; otherwise the
 * session error: `provider.error` + `error`, and the turn ends `failed` with a `turn.boundary` that
 * carries `message`, the agent's error as it answered it (a deviation from spec 20 §3.5, which
 * settles through `provider.error` and leaves the turn without its error: docs/design/20 §3.5).
 */
function failRun(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun, message: string, errorInfo?: ErrorInfo): void {
  if (session.prompt !== run || run.done) return;
  session.steers = [];
  if (run.cancelling) moveSessionPhase(session, "failed");
  if (session.phase === "stopping") {
    finishRun(rt, session, run, "cancelled", null);
    return;
  }
  session.prompt = null;
  if (run.kind === "compaction") emitDeltas(rt.ctx.io, session, session.translator.compactionCompleted({ error: message }));
  else emitSessionError(rt.ctx.io, session, message, { promptFailed: true, ...(errorInfo !== undefined ? { errorInfo } : {}) });
  run.markSettled();
}

function stopReasonOf(result: unknown): string | undefined {
  const value = result && typeof result === "object" ? (result as { stopReason?: unknown }).stopReason : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * Awaits the outstanding prompt; re-sends it after a busy rejection once the agent is quiet
 * (busy-retry.ts); re-prompts once per queued steer in the same bb turn (stop reason of a cancelled
 * prompt discarded, only the steer's content sent); then finishes the turn.
 */
async function runPromptLoop(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun, first: Promise<unknown>, firstBlocks: AcpPromptBlock[]): Promise<void> {
  let current = first;
  let currentBlocks = firstBlocks;
  let busyRetries = 0;
  for (;;) {
    let result: unknown;
    try {
      result = await current;
    } catch (error) {
      // An exited agent is reported once by the exit handler, which already cleared the run.
      if (error instanceof AcpAgentExitedError && session.prompt !== run) return;
      if (isSessionBusyError(error) && busyRetries < BUSY_RETRY_LIMIT && (await waitForAgentQuiet(rt, session, run))) {
        busyRetries += 1;
        current = session.connection.request("session/prompt", { sessionId: agentSessionId(session), prompt: currentBlocks });
        continue;
      }
      // The agent's error answer, typed (HTTP status, category, its own kind) where it names them.
      const errorInfo = error instanceof AcpAgentRequestError ? modelErrorInfo({ code: error.code, message: error.agentMessage, data: error.data }) : undefined;
      failRun(rt, session, run, error instanceof Error ? error.message : String(error), errorInfo);
      return;
    }
    if (session.prompt !== run || run.done) return;
    run.cancelling = false;
    const steer = session.phase === "stopping" || run.kind !== "turn" ? undefined : session.steers.shift();
    if (steer) {
      await reconcileSteer(rt, session, steer);
      // A stop while the steer's settings were applied drops it (it is never accepted).
      if (session.prompt !== run || run.done || session.phase === "stopping") return;
      const blocks = buildPromptBlocks(steer.input, { imageSupported: session.facts.image });
      current = session.connection.request("session/prompt", { sessionId: agentSessionId(session), prompt: blocks });
      currentBlocks = blocks;
      busyRetries = 0;
      emitDeltas(rt.ctx.io, session, [{ kind: "input.accepted", clientRequestId: steer.clientRequestId }]);
      if (session.steers.length > 0) cancelActivePrompt(session, run);
      continue;
    }
    const stopReason = stopReasonOf(result);
    if (stopReason === undefined) {
      failRun(rt, session, run, "ACP agent returned an unexpected session/prompt result: stopReason missing");
      return;
    }
    finishRun(rt, session, run, stopReason, result);
    return;
  }
}
