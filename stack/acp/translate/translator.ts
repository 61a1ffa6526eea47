/**
 * The per-session ACP translator: ACP `session/update`s and the bridge's internal envelopes in,
 * grammar-v3 `ThreadDelta[]` out (spec 20 §3 as changed by spec 30). One instance per session
 * construction; no I/O, no timers; the clock is injected.
 */
import type { ErrorInfo, ThreadDelta, UsageBreakdown } from "../../protocol/thread-delta.js";
import type { AcpDelegationReport, AcpDialect } from "../dialects/types.js";
import { readToolCallFields } from "./acp-update-schemas.js";
import { AcpUpdate } from "./acp-update.js";
import { internalEnvelope, suppressedUpdate, unhandledUpdate } from "./envelopes.js";
import { createInjectedToolBindings, type InjectedToolBindings, type InjectedToolDefinition } from "./injected-tools.js";
import type { AcpPermissionSubject } from "./permission-subject.js";
import { permissionSubject } from "./permission-subject.js";
import { addUsage, readPromptUsage } from "./prompt-usage.js";
import { translateSessionUpdate, type SessionUpdateContext } from "./session-updates.js";
import { createSessionStateModel, type SessionStateModel } from "./session-state.js";
import { createToolCallTracker, fsWriteDelta, type ToolCallTracker } from "./tool-calls.js";
import type { CompactionEnd } from "./turns.js";
import * as turns from "./turns.js";
import { createWhitespaceStreamSettler } from "./whitespace-streams.js";

export { FS_WRITE_CHANNEL } from "./tool-calls.js";

/** Options of {@link createAcpTranslator}. */
export interface AcpTranslatorOptions {
  /** The bb thread id (it appears in raw envelopes). */
  threadId: string;
  /** The session's dialect ({@link selectAcpDialect}). */
  dialect: AcpDialect;
  /** Clock in ms since the epoch; read once per update for {@link AcpTranslator.activity}. */
  now: () => number;
  /** bb dynamic tools registered as injected tools (spec 20 §2.3 step 1). */
  injectedTools?: readonly InjectedToolDefinition[];
}

/** A client file write the bridge performed (`fs/write_text_file`). */
export interface AcpFsWrite {
  path: string;
  /** Text before the write; null when the file did not exist (kind `add`). */
  oldText: string | null;
  newText: string;
}

/** Quiet-detection facts for agent-initiated turns and busy retries (spec 30 §6.2). */
export interface AcpTranslatorActivity {
  /** Cached (unsettled) tool calls. */
  openToolCount: number;
  /** `now()` at the last `update`, or null before any. Milliseconds. */
  lastUpdateAt: number | null;
  /** Whether the current turn has seen turn output (message/thought chunk, tool call, plan). */
  turnOutputSeen: boolean;
}

/** The translator of one ACP session (stack/acp/translate/README.md). */
export interface AcpTranslator {
  /** `acp/turn/started` for a runtime turn: clears the tool cache, `[turn.open]`. */
  turnStarted(): ThreadDelta[];
  /** `acp/turn/started` for an agent-initiated turn (spec 30 §6.2); same deltas. */
  agentTurnStarted(): ThreadDelta[];
  /**
   * `acp/turn/completed`: zero-output warning, flush, `turn.boundary` (spec 20 §3.5, 30 §6.2); a
   * failed boundary's error keeps the prompt result's `_meta` error text.
   * @throws AcpTranslateError for a stop reason outside ACP's set.
   */
  turnCompleted(stopReason: string, promptResult?: unknown): ThreadDelta[];
  /** `acp/compaction/started` (spec 20 §3.1). */
  compactionStarted(): ThreadDelta[];
  /** `acp/compaction/completed` from the prompt's stop reason or rejection text (spec 20 §3.5, 30 §1.5). */
  compactionCompleted(end: CompactionEnd): ThreadDelta[];
  /**
   * One `session/update`'s `update`: as read where it entered the bridge (an {@link AcpUpdate}), or
   * a raw object, read here; unparseable (no string `sessionUpdate`) → `[]`.
   */
  update(update: AcpUpdate | unknown): ThreadDelta[];
  /**
   * `acp/fs/write`: a completed `fileChange` close on channel `fs-write` (spec 20 §3.1), unless
   * an edit call claims it. `claimant` is `writeClaimant(path)` taken when the request arrived:
   * if that call settled while the bridge was writing (the agent's `completed` update overtook
   * the bridge's file I/O), the write was that call's and its close already reported the edit.
   */
  fsWrite(write: AcpFsWrite, claimant?: string): ThreadDelta[];
  /** The in-flight edit call a write of `path` belongs to now (see fsWrite), or `undefined`. */
  writeClaimant(path: string): string | undefined;
  /**
   * The in-flight read call an `fs/read_text_file` of `path` (absolute) belongs to, or
   * `undefined`: the one unsettled call that is a `fileRead` of that file (tool-calls.ts
   * `readClaimant`). Taken when the request arrives.
   */
  readClaimant(path: string): string | undefined;
  /**
   * `acp/fs/read`: the text the bridge answered to an `fs/read_text_file` that `claimant`
   * (readClaimant, taken when the request arrived) made; that call's `fileRead` close then
   * carries these bytes as its `resultText` (read-bytes.ts). No claimant, or a call settled
   * meanwhile: nothing. Makes no delta.
   */
  fsRead(content: string, claimant: string | undefined): void;
  /** `acp/warning`: `provider.warning {summary, details?, vouchedTurn:true}`. */
  warning(warning: { summary: string; details?: string }): ThreadDelta[];
  /**
   * Session error: the flush with open tools closed `failed` (streamed text completes), then
   * `provider.error {settlesTurn:true}`.
   */
  sessionError(detail: string, errorInfo?: ErrorInfo): ThreadDelta[];
  /**
   * A prompt the agent rejected (issue 39): the flush with open tools closed `failed`, then
   * `provider.error` (not settling) and `turn.boundary {failed, error: {message: detail}, claimIfIdle}`,
   * so the failed turn carries the error as the agent answered it, as a native bridge's does. The
   * grammar's settling `provider.error` completes a turn without an error (docs/design/10 §2.5).
   */
  promptFailed(detail: string, errorInfo?: ErrorInfo): ThreadDelta[];
  /** Any other internal envelope: `unhandled {raw, rawType: method, vouchedTurn:true}`. */
  unhandled(method: string, params: unknown): ThreadDelta[];
  /** A vendor sub-agent report (spec 30 §1.3 `noteDelegationReport`). */
  delegationReport(report: AcpDelegationReport): ThreadDelta[];
  /**
   * A `session/new|load|resume|fork` result, after identity and `session.reset`: the session
   * snapshot (`extension.state`), then `contextWindow` 0 for a fresh session when the dialect reads context
   * windows (grok, spec 30 §1.4, §6.3).
   */
  sessionSetup(result: unknown, options: { restored: boolean }): ThreadDelta[];
  /** An update replayed during `session/load|resume`: feeds session state, keeps the last usage. */
  restoreUpdate(update: AcpUpdate | unknown): void;
  /** After the restore's snapshot: the kept last `usage_update` as `contextWindow` (spec 20 §2.3 step 6). */
  restoreSettled(): ThreadDelta[];
  /** A `session/prompt` result: the dialect's context accounting (grok, spec 30 §1.4); else `[]`. */
  promptResult(result: unknown): ThreadDelta[];
  /** The approval subject of a permission's `toolCall` (spec 20 §3.8 step 3). */
  permissionSubject(toolCall: unknown): AcpPermissionSubject;
  /** A proxied bb tool call arrived: the bound `toolCallId`, or null (queued) (spec 20 §3.3). */
  bindInjectedToolCall(toolName: string): string | null;
  /** Quiet-detection facts (spec 30 §6.2). */
  activity(): AcpTranslatorActivity;
  /**
   * A permission request's `toolCall`: for an id the agent has not reported, its fields are kept
   * for the call the request implicitly creates (its title reaches the item). No deltas.
   */
  notePermissionToolCall(toolCall: unknown): void;
  /** The decision a permission got, as `item.progress` on the call's open item (nothing when it has none). */
  permissionDecided(toolCallId: string, message: string): ThreadDelta[];
  /**
   * The runtime denied a permission request: the call settles with `approvalStatus: "denied"`, at
   * once when only the request named it, else when the agent closes it (tool-calls.ts `deny`).
   */
  permissionDenied(toolCallId: string): ThreadDelta[];
  /**
   * The runtime allowed a permission request (an `allow_*` option went back to the agent): the
   * call's close says `approvalStatus: "approved"` when it is a command or file change. No deltas.
   */
  permissionApproved(toolCallId: string): void;
  /**
   * True for a `tool_call_update` of a call that already settled (the agent reported more after
   * the turn ended): it is not new work and opens no agent-initiated turn.
   */
  isLateToolUpdate(update: AcpUpdate | unknown): boolean;
}

/**
 * True when an update counts as turn output (spec 30 §6.2): chunks, tool calls, plans. An empty
 * text chunk (a usage-only chunk) is not output: it adds nothing to the timeline.
 */
export function isTurnOutputUpdate(update: AcpUpdate | unknown): boolean {
  return AcpUpdate.read(update)?.turnOutput ?? false;
}

/**
 * More about a call that already settled: a `tool_call_update` of a settled call, or a
 * `tool_call` of a call settled by its denial (an agent that asked first may report it after).
 */
function isLateToolUpdateOf(tools: ToolCallTracker, update: AcpUpdate): boolean {
  if (update.toolCall === undefined) return false;
  return update.kind === "tool_call_update" ? tools.isSettled(update.toolCall.toolCallId) : tools.isSettledDenial(update.toolCall.toolCallId);
}

/**
 * The translator of one ACP session: it owns the translation state (the tool-call cache, the
 * session model, the injected-tool bindings, turn and compaction facts), and every delta batch it
 * returns leaves through {@link SessionTranslator.emit}, which passes the whitespace-stream settler
 * in emission order (whitespace-streams.ts). A public method never calls another public one, so
 * no batch is settled twice.
 */
class SessionTranslator implements AcpTranslator {
  private readonly threadId: string;
  private readonly dialect: AcpDialect;
  private readonly now: () => number;
  private readonly bindings: InjectedToolBindings;
  private readonly tools: ToolCallTracker;
  private readonly state: SessionStateModel;
  private readonly updateContext: SessionUpdateContext;
  private readonly settler = createWhitespaceStreamSettler();
  private lastUpdateAt: number | null = null;
  private turnOutputSeen = false;
  private compacting = false;
  private compactionReply = "";
  private contextSize: number | null = null;
  // The context size the agent's last `usage_update` named (the usage delta's modelContextWindow when no dialect sizes it).
  private reportedContextSize: number | null = null;
  // The session's token usage so far (the sum of its prompts' usage), once an answer reported one.
  private usageTotal: UsageBreakdown | undefined;
  private restoredUsage: AcpUpdate | undefined = undefined;

  constructor(options: AcpTranslatorOptions) {
    this.threadId = options.threadId;
    this.dialect = options.dialect;
    this.now = options.now;
    this.bindings = createInjectedToolBindings(options.injectedTools ?? []);
    this.tools = createToolCallTracker({ threadId: this.threadId, dialect: this.dialect, bindings: this.bindings });
    this.state = createSessionStateModel();
    this.updateContext = {
      threadId: this.threadId,
      tools: this.tools,
      state: this.state,
      onAgentText: (text: string) => {
        if (this.compacting) this.compactionReply += text;
      },
      messageIds: new Map(),
    };
  }

  /** The one way out for deltas: the batch after the whitespace-stream settler. */
  private emit(deltas: ThreadDelta[]): ThreadDelta[] {
    return this.settler.settle(deltas);
  }

  private startTurn(): ThreadDelta[] {
    this.turnOutputSeen = false;
    this.compacting = false;
    return this.emit(turns.turnStarted(this.tools));
  }

  private contextWindow(used: number): ThreadDelta {
    return { kind: "contextWindow", used, size: this.contextSize, estimated: false, attach: "open" };
  }

  turnStarted(): ThreadDelta[] {
    return this.startTurn();
  }

  agentTurnStarted(): ThreadDelta[] {
    return this.startTurn();
  }

  turnCompleted(stopReason: string, promptResult?: unknown): ThreadDelta[] {
    return this.emit(turns.turnCompleted(this.tools, stopReason, this.turnOutputSeen, turns.promptResultDetail(promptResult)));
  }

  compactionStarted(): ThreadDelta[] {
    this.compacting = true;
    this.compactionReply = "";
    this.turnOutputSeen = false;
    return this.emit(turns.compactionStarted(this.tools));
  }

  compactionCompleted(end: CompactionEnd): ThreadDelta[] {
    const deltas = turns.compactionCompleted(this.tools, end, this.dialect, this.compactionReply);
    this.compacting = false;
    this.compactionReply = "";
    return this.emit(deltas);
  }

  update(update: AcpUpdate | unknown): ThreadDelta[] {
    const read = AcpUpdate.read(update);
    if (read === undefined) return this.emit([]);
    this.lastUpdateAt = this.now();
    // More about a call that already settled: kept as the raw update (in the turn when one is
    // open, else thread-scoped), never a new item of a call the lane already closed.
    // A late report of a call its denial settled that says nothing the settled item does not is
    // shown where that report, had it come before the deny, would have been shown: only with no
    // turn open (its open's and close's noTurnFallback), tool-calls.ts `repeatsSettledDenial`.
    if (isLateToolUpdateOf(this.tools, read)) {
      const repeats = read.toolCall !== undefined && this.tools.repeatsSettledDenial(read.toolCall);
      return this.emit([repeats ? suppressedUpdate(this.threadId, read.value) : unhandledUpdate(this.threadId, read.value)]);
    }
    if (read.turnOutput) this.turnOutputSeen = true;
    if (read.kind === "usage_update" && typeof read.value.size === "number") this.reportedContextSize = read.value.size;
    return this.emit(translateSessionUpdate(this.updateContext, read));
  }

  fsWrite(write: AcpFsWrite, claimant?: string): ThreadDelta[] {
    // One edit is one fileChange: a write made by an in-flight edit call settles with that call,
    // a write repeating a change a settled call of this turn reported is not a second edit, and
    // neither is a write whose call (claimant when the request arrived) settled meanwhile.
    if (this.tools.claimWrite(write) !== false) return this.emit([]);
    if (claimant !== undefined && this.tools.isSettled(claimant)) return this.emit([]);
    return this.emit([fsWriteDelta(this.threadId, write)]);
  }

  writeClaimant(path: string): string | undefined {
    return this.tools.writeClaimant(path);
  }

  readClaimant(path: string): string | undefined {
    return this.tools.readClaimant(path);
  }

  fsRead(content: string, claimant: string | undefined): void {
    if (claimant !== undefined) this.tools.noteRead(claimant, content);
  }

  warning(warning: { summary: string; details?: string }): ThreadDelta[] {
    const delta: ThreadDelta = { kind: "provider.warning", summary: warning.summary, vouchedTurn: true };
    if (warning.details !== undefined) delta.details = warning.details;
    return this.emit([delta]);
  }

  sessionError(detail: string, errorInfo?: ErrorInfo): ThreadDelta[] {
    // The error settles the turn: its streamed text and its open tool calls settle first (a
    // message left started would never complete; spec 20 §3.1 left tools unclosed).
    const deltas = turns.flush(this.tools, "failed");
    const writes = this.tools.clear().map((write) => fsWriteDelta(this.threadId, write));
    return this.emit([...deltas, ...writes, { kind: "provider.error", message: "Provider error", detail, ...(errorInfo !== undefined ? { errorInfo } : {}), settlesTurn: true }]);
  }

  promptFailed(detail: string, errorInfo?: ErrorInfo): ThreadDelta[] {
    // As sessionError, but the turn ends with a boundary that carries the agent's error: a settling
    // provider.error completes the turn `failed` with no error (docs/design/10 §2.5).
    const deltas = turns.flush(this.tools, "failed");
    const writes = this.tools.clear().map((write) => fsWriteDelta(this.threadId, write));
    return this.emit([
      ...deltas,
      ...writes,
      { kind: "provider.error", message: "Provider error", detail, ...(errorInfo !== undefined ? { errorInfo } : {}) },
      { kind: "turn.boundary", status: "failed", error: { message: detail }, claimIfIdle: true },
    ]);
  }

  unhandled(method: string, params: unknown): ThreadDelta[] {
    return this.emit([{ kind: "unhandled", raw: internalEnvelope(method, params), rawType: method, vouchedTurn: true }]);
  }

  delegationReport(report: AcpDelegationReport): ThreadDelta[] {
    return this.emit(this.tools.delegationReport(report));
  }

  sessionSetup(result: unknown, { restored }: { restored: boolean }): ThreadDelta[] {
    this.state.observeSetup(result);
    const deltas = this.state.publish();
    if (this.dialect.contextWindow !== undefined) {
      this.contextSize = this.dialect.contextWindow.sizeFromSetup(result) ?? this.contextSize;
      if (!restored) deltas.push(this.contextWindow(0));
    }
    return this.emit(deltas);
  }

  restoreUpdate(update: AcpUpdate | unknown): void {
    const read = AcpUpdate.read(update);
    if (read === undefined) return;
    if (read.kind === "usage_update") this.restoredUsage = read;
    else this.state.observeUpdate(read.value);
  }

  restoreSettled(): ThreadDelta[] {
    const usage = this.restoredUsage;
    this.restoredUsage = undefined;
    const deltas = this.state.publish();
    if (usage !== undefined) deltas.push(...translateSessionUpdate(this.updateContext, usage));
    return this.emit(deltas);
  }

  promptResult(result: unknown): ThreadDelta[] {
    const deltas: ThreadDelta[] = [];
    const used = this.dialect.contextWindow?.usedFromPromptResult(result);
    if (used !== undefined) deltas.push(this.contextWindow(used));
    // The prompt's token usage, as the agent answered it (prompt-usage.ts): `last` is this
    // prompt's, `total` the sum over the prompts of this session the bridge saw.
    const last = readPromptUsage(result);
    if (last !== undefined) {
      this.usageTotal = this.usageTotal === undefined ? last : addUsage(this.usageTotal, last);
      deltas.push({ kind: "usage", total: this.usageTotal, last, modelContextWindow: this.contextSize ?? this.reportedContextSize });
    }
    return this.emit(deltas);
  }

  permissionSubject(toolCall: unknown): AcpPermissionSubject {
    return permissionSubject(this.tools, toolCall);
  }

  bindInjectedToolCall(toolName: string): string | null {
    return this.bindings.proxiedCall(toolName);
  }

  activity(): AcpTranslatorActivity {
    return { openToolCount: this.tools.openCount(), lastUpdateAt: this.lastUpdateAt, turnOutputSeen: this.turnOutputSeen };
  }

  notePermissionToolCall(toolCall: unknown): void {
    const fields = readToolCallFields(toolCall);
    if (fields === undefined) return;
    // A request's text content describes the request (codex-acp: "Proposed Amendment: …
    // Available Decisions: …"), not what the call printed: only its diffs are kept.
    const content = fields.content?.filter((entry) => entry.type !== "content");
    this.tools.notePermissionToolCall({ ...fields, status: undefined, content: content?.length ? content : undefined } as typeof fields);
  }

  permissionDecided(toolCallId: string, message: string): ThreadDelta[] {
    return this.emit(this.tools.progressNote(toolCallId, message));
  }

  permissionDenied(toolCallId: string): ThreadDelta[] {
    return this.emit(this.tools.deny(toolCallId));
  }

  permissionApproved(toolCallId: string): void {
    this.tools.approve(toolCallId);
  }

  isLateToolUpdate(update: AcpUpdate | unknown): boolean {
    const read = AcpUpdate.read(update);
    return read !== undefined && isLateToolUpdateOf(this.tools, read);
  }
}

/** Creates the translator of one ACP session (spec 20 §3, spec 30). */
export function createAcpTranslator(options: AcpTranslatorOptions): AcpTranslator {
  return new SessionTranslator(options);
}
