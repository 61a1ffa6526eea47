/**
 * The per-session ACP translator: ACP `session/update`s and the bridge's internal envelopes in,
 * grammar-v3 `ThreadDelta[]` out (spec 20 §3 as changed by spec 30). One instance per session
 * construction; no I/O, no timers; the clock is injected.
 */
import type { ThreadDelta } from "../../protocol/thread-delta.js";
import type { AcpDelegationReport, AcpDialect } from "../dialects/types.js";
import { AcpSessionUpdateSchema, readToolCallFields } from "./acp-update-schemas.js";
import { internalEnvelope, unhandledUpdate } from "./envelopes.js";
import type { InjectedToolDefinition } from "./injected-tools.js";
import { createInjectedToolBindings } from "./injected-tools.js";
import type { AcpPermissionSubject } from "./permission-subject.js";
import { permissionSubject } from "./permission-subject.js";
import { TURN_OUTPUT_UPDATE_KINDS, translateSessionUpdate } from "./session-updates.js";
import { createSessionStateModel } from "./session-state.js";
import { createToolCallTracker, fsWriteDelta } from "./tool-calls.js";
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
  /** One `session/update`'s `update` object; unparseable (no string `sessionUpdate`) → `[]`. */
  update(update: unknown): ThreadDelta[];
  /**
   * `acp/fs/write`: a completed `fileChange` close on channel `fs-write` (spec 20 §3.1), unless
   * an edit call claims it. `claimant` is `writeClaimant(path)` taken when the request arrived:
   * if that call settled while the bridge was writing (the agent's `completed` update overtook
   * the bridge's file I/O), the write was that call's and its close already reported the edit.
   */
  fsWrite(write: AcpFsWrite, claimant?: string): ThreadDelta[];
  /** The in-flight edit call a write of `path` belongs to now (see fsWrite), or `undefined`. */
  writeClaimant(path: string): string | undefined;
  /** `acp/warning`: `provider.warning {summary, details?, vouchedTurn:true}`. */
  warning(warning: { summary: string; details?: string }): ThreadDelta[];
  /**
   * Session error: the flush with open tools closed `failed` (streamed text completes), then
   * `provider.error {settlesTurn:true}`.
   */
  sessionError(detail: string): ThreadDelta[];
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
  restoreUpdate(update: unknown): void;
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
   * True for a `tool_call_update` of a call that already settled (the agent reported more after
   * the turn ended): it is not new work and opens no agent-initiated turn.
   */
  isLateToolUpdate(update: unknown): boolean;
}

/**
 * True when an update counts as turn output (spec 30 §6.2): chunks, tool calls, plans. An empty
 * text chunk (a usage-only chunk) is not output: it adds nothing to the timeline.
 */
export function isTurnOutputUpdate(update: unknown): boolean {
  const parsed = AcpSessionUpdateSchema.safeParse(update);
  if (!parsed.success || !TURN_OUTPUT_UPDATE_KINDS.includes(parsed.data.sessionUpdate)) return false;
  const content = (parsed.data as { content?: { type?: unknown; text?: unknown } }).content;
  return !(parsed.data.sessionUpdate.endsWith("_chunk") && content?.type === "text" && content.text === "");
}

/** The mutable state one session's translator methods share. */
interface TranslatorState {
  readonly threadId: string;
  readonly dialect: AcpTranslatorOptions["dialect"];
  readonly now: AcpTranslatorOptions["now"];
  readonly bindings: ReturnType<typeof createInjectedToolBindings>;
  readonly tools: ReturnType<typeof createToolCallTracker>;
  readonly state: ReturnType<typeof createSessionStateModel>;
  readonly updateContext: Parameters<typeof translateSessionUpdate>[0];
  lastUpdateAt: number | null;
  turnOutputSeen: boolean;
  compacting: boolean;
  compactionReply: string;
  contextSize: number | null;
  restoredUsage: Record<string, unknown> | undefined;
}

function createTranslatorState(options: AcpTranslatorOptions): TranslatorState {
  const { threadId, dialect, now } = options;
  const bindings = createInjectedToolBindings(options.injectedTools ?? []);
  const tools = createToolCallTracker({ threadId, dialect, bindings });
  const state = createSessionStateModel();
  const s: TranslatorState = {
    threadId,
    dialect,
    now,
    bindings,
    tools,
    state,
    updateContext: {
      threadId,
      tools,
      state,
      onAgentText(text: string) {
        if (s.compacting) s.compactionReply += text;
      },
      messageIds: new Map(),
    },
    lastUpdateAt: null,
    turnOutputSeen: false,
    compacting: false,
    compactionReply: "",
    contextSize: null,
    restoredUsage: undefined,
  };
  return s;
}

function contextWindow(s: TranslatorState, used: number): ThreadDelta {
  return { kind: "contextWindow", used, size: s.contextSize, estimated: false, attach: "open" };
}

/** Turn and compaction boundaries. */
function turnMethods(s: TranslatorState): Pick<AcpTranslator, "turnStarted" | "agentTurnStarted" | "turnCompleted" | "compactionStarted" | "compactionCompleted"> {
  const startTurn = (): ThreadDelta[] => {
    s.turnOutputSeen = false;
    s.compacting = false;
    return turns.turnStarted(s.tools);
  };
  return {
    turnStarted: startTurn,
    agentTurnStarted: startTurn,
    turnCompleted(stopReason, promptResult) {
      return turns.turnCompleted(s.tools, stopReason, s.turnOutputSeen, turns.promptResultDetail(promptResult));
    },
    compactionStarted() {
      s.compacting = true;
      s.compactionReply = "";
      s.turnOutputSeen = false;
      return turns.compactionStarted(s.tools);
    },
    compactionCompleted(end) {
      const deltas = turns.compactionCompleted(s.tools, end, s.dialect, s.compactionReply);
      s.compacting = false;
      s.compactionReply = "";
      return deltas;
    },
  };
}

/**
 * More about a call that already settled: a `tool_call_update` of a settled call, or a
 * `tool_call` of a call settled by its denial (an agent that asked first may report it after).
 */
function isLateToolUpdateOf(tools: TranslatorState["tools"], update: Record<string, unknown>): boolean {
  const kind = update.sessionUpdate;
  if (kind !== "tool_call_update" && kind !== "tool_call") return false;
  const fields = readToolCallFields(update);
  if (fields === undefined) return false;
  return kind === "tool_call_update" ? tools.isSettled(fields.toolCallId) : tools.isSettledDenial(fields.toolCallId);
}

/** Agent updates, client writes, warnings and errors as they come. */
function updateMethods(s: TranslatorState): Pick<AcpTranslator, "update" | "fsWrite" | "writeClaimant" | "warning" | "sessionError" | "unhandled" | "delegationReport"> {
  const { threadId, tools } = s;
  return {
    update(update) {
      const parsed = AcpSessionUpdateSchema.safeParse(update);
      if (!parsed.success) return [];
      s.lastUpdateAt = s.now();
      if (isLateToolUpdateOf(tools, parsed.data)) {
        // More about a call that already settled: kept as the raw update (in the turn when one is
        // open, else thread-scoped), never a new item of a call the lane already closed.
        return [unhandledUpdate(threadId, parsed.data)];
      }
      if (isTurnOutputUpdate(parsed.data)) s.turnOutputSeen = true;
      return translateSessionUpdate(s.updateContext, parsed.data);
    },
    fsWrite(write, claimant) {
      // One edit is one fileChange: a write made by an in-flight edit call settles with that call,
      // a write repeating a change a settled call of this turn reported is not a second edit, and
      // neither is a write whose call (claimant when the request arrived) settled meanwhile.
      const claimed = tools.claimWrite(write);
      if (claimed !== false) return [];
      if (claimant !== undefined && tools.isSettled(claimant)) return [];
      return [fsWriteDelta(threadId, write)];
    },
    writeClaimant: (path) => tools.writeClaimant(path),
    warning(warning) {
      const delta: ThreadDelta = { kind: "provider.warning", summary: warning.summary, vouchedTurn: true };
      if (warning.details !== undefined) delta.details = warning.details;
      return [delta];
    },
    sessionError(detail) {
      // The error settles the turn: its streamed text and its open tool calls settle first (a
      // message left started would never complete; spec 20 §3.1 left tools unclosed).
      const deltas = turns.flush(tools, "failed");
      const writes = tools.clear();
      return [...deltas, ...writes.map((write) => fsWriteDelta(threadId, write)), { kind: "provider.error", message: "Provider error", detail, settlesTurn: true }];
    },
    unhandled(method, params) {
      return [{ kind: "unhandled", raw: internalEnvelope(method, params), rawType: method, vouchedTurn: true }];
    },
    delegationReport: (report) => tools.delegationReport(report),
  };
}

/** Session setup, restore and what a prompt's result says about the context window. */
function sessionMethods(s: TranslatorState): Pick<AcpTranslator, "sessionSetup" | "restoreUpdate" | "restoreSettled" | "promptResult"> {
  const { dialect, state } = s;
  return {
    sessionSetup(result, { restored }) {
      state.observeSetup(result);
      const deltas = state.publish();
      if (dialect.contextWindow !== undefined) {
        s.contextSize = dialect.contextWindow.sizeFromSetup(result) ?? s.contextSize;
        if (!restored) deltas.push(contextWindow(s, 0));
      }
      return deltas;
    },
    restoreUpdate(update) {
      const parsed = AcpSessionUpdateSchema.safeParse(update);
      if (!parsed.success) return;
      if (parsed.data.sessionUpdate === "usage_update") s.restoredUsage = parsed.data;
      else state.observeUpdate(parsed.data);
    },
    restoreSettled() {
      const usage = s.restoredUsage;
      s.restoredUsage = undefined;
      const deltas = state.publish();
      if (usage !== undefined) deltas.push(...translateSessionUpdate(s.updateContext, usage));
      return deltas;
    },
    promptResult(result) {
      if (dialect.contextWindow === undefined) return [];
      const used = dialect.contextWindow.usedFromPromptResult(result);
      return used === undefined ? [] : [contextWindow(s, used)];
    },
  };
}

/** Permissions, injected tools and the quiet-detection facts. */
function callMethods(
  s: TranslatorState,
): Pick<AcpTranslator, "permissionSubject" | "bindInjectedToolCall" | "activity" | "notePermissionToolCall" | "permissionDecided" | "permissionDenied" | "isLateToolUpdate"> {
  const { tools, bindings } = s;
  return {
    permissionSubject: (toolCall) => permissionSubject(tools, toolCall),
    bindInjectedToolCall: (toolName) => bindings.proxiedCall(toolName),
    activity: () => ({ openToolCount: tools.openCount(), lastUpdateAt: s.lastUpdateAt, turnOutputSeen: s.turnOutputSeen }),
    notePermissionToolCall(toolCall) {
      const fields = readToolCallFields(toolCall);
      if (fields === undefined) return;
      // A request's text content describes the request (codex-acp: "Proposed Amendment: …
      // Available Decisions: …"), not what the call printed: only its diffs are kept.
      const content = fields.content?.filter((entry) => entry.type !== "content");
      tools.notePermissionToolCall({ ...fields, status: undefined, content: content?.length ? content : undefined } as typeof fields);
    },
    permissionDecided: (toolCallId, message) => tools.progressNote(toolCallId, message),
    permissionDenied: (toolCallId) => tools.deny(toolCallId),
    isLateToolUpdate: (update) => isLateToolUpdateOf(tools, update as Record<string, unknown>),
  };
}

/** Creates the translator of one ACP session (spec 20 §3, spec 30). */
export function createAcpTranslator(options: AcpTranslatorOptions): AcpTranslator {
  const s = createTranslatorState(options);
  const translator: AcpTranslator = { ...turnMethods(s), ...updateMethods(s), ...sessionMethods(s), ...callMethods(s) };
  // Every batch passes the whitespace-stream settler in emission order (whitespace-streams.ts).
  const settler = createWhitespaceStreamSettler();
  const settled = { ...translator } as Record<string, unknown>;
  for (const [name, value] of Object.entries(translator)) {
    if (typeof value !== "function" || !DELTA_METHODS.has(name)) continue;
    settled[name] = (...args: unknown[]) => settler.settle((value as (...a: unknown[]) => ThreadDelta[])(...args));
  }
  return settled as unknown as AcpTranslator;
}

/** The translator methods that return deltas (each batch passes the whitespace-stream settler). */
const DELTA_METHODS: ReadonlySet<string> = new Set([
  "turnStarted",
  "agentTurnStarted",
  "turnCompleted",
  "compactionStarted",
  "compactionCompleted",
  "update",
  "fsWrite",
  "warning",
  "sessionError",
  "unhandled",
  "delegationReport",
  "sessionSetup",
  "restoreSettled",
  "promptResult",
  "permissionDecided",
  "permissionDenied",
]);
