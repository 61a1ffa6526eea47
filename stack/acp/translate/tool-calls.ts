/**
 * The tool-call part of the translator: the per-session cache of open tool calls and the
 * deltas of `tool_call`, `tool_call_update`, drains and delegation reports (spec 20 §3.2–3.4,
 * spec 30 §1.1 exit-code rule, §1.3 report handling).
 */
import type { ItemStatus, NoTurnFallback, ThreadDelta } from "../../protocol/thread-delta.js";
import type { AcpDelegationReport, AcpDialect, AcpToolCallEvent } from "../dialects/types.js";
import { isTerminalToolStatus, mergeToolCall } from "./acp-update-schemas.js";
import { closeAssistant, closeThought, internalEnvelope, suppressedUpdate, updateFallback } from "./envelopes.js";
import type { InjectedToolBindings } from "./injected-tools.js";
import { readCommandResult, readOutputText, streamedCommandOutput, toolOutputText } from "./output.js";
import { isNoOutputPlaceholder } from "./command-text.js";
import { textsUnifiedDiff } from "../../bridge-kit/texts-diff.js";
import { exactReadBytes, namesSameFile } from "./read-bytes.js";
import { delegationPresentation, shapePresentation } from "../dialects/presentation.js";
import type { ClassifiedToolCall } from "./tool-classification.js";
import { classifyToolCall, isInjectedToolCandidate, withToolIdentity } from "./tool-classification.js";

interface CachedToolCall {
  /** The merged event as the agent sent it (identity is filled at each classification). */
  event: AcpToolCallEvent;
  /** True when the call came as a `tool_call` (an update for an unknown id is never opened). */
  announced: boolean;
  /** Client file writes the agent made through this call (`fs/write_text_file`), in order. */
  writes: AcpFsWriteChange[];
  /**
   * The texts the bridge answered to the agent's `fs/read_text_file` requests that belong to this
   * call (a read of its file while it was in flight: {@link ToolCallTracker.readClaimant}), in order.
   */
  reads?: string[];
  /** True while only a permission request named the call: no item until the agent itself reports it. */
  permissionOnly?: boolean;
  /** Set by a delegation report while the call is open (spec 30 §1.3). */
  delegation?: { childRef: string; label: string; detail?: string };
  /** The classification of the last `item.open` sent for the call; absent before its first open. */
  opened?: ClassifiedToolCall;
}

/** A client file write folded into the tool call that made it. */
export interface AcpFsWriteChange {
  path: string;
  /** Text before the write; null when the file did not exist (kind `add`). */
  oldText: string | null;
  newText: string;
}

/**
 * Kinds whose shared shape needs fields the agent may send only in later updates (spec 20 §3.3
 * (b)–(f)). A call of such a kind that classifies as a generic tool is not yet filled.
 */
const FILLABLE_KINDS: ReadonlySet<string> = new Set(["read", "edit", "delete", "execute", "search", "fetch"]);

/**
 * True while a call's announced kind still lacks the fields its item shape needs (an agent that
 * opens every call with `rawInput: {}` and refines it by status-less updates, spec 50 "How they
 * behave on the wire"). Its `item.open` waits for those fields, so the item is opened once, with
 * the type it keeps, rather than opened generic and settled as another type (`item/settles-once`).
 */
function isUnfilled(event: AcpToolCallEvent, classified: ClassifiedToolCall): boolean {
  return classified.item.type === "tool" && classified.item.server !== "bb" && event.kind !== undefined && FILLABLE_KINDS.has(event.kind);
}

/**
 * Whether a dialect's unfilled calls wait for their fields before opening (its
 * `opensUnfilledToolCalls`). Cursor's do not: the
 * real acp-cursor recordings pin the reference bridge opening "Edit File" as a generic tool at its
 * `tool_call` and settling it as a fileChange (spec 20 §4 item 8, the one pinned grammar drop), and
 * a parity gate cannot mask a grammar drop that disappears.
 */
function defersUnfilledOpens(dialect: AcpDialect): boolean {
  return dialect.opensUnfilledToolCalls !== true;
}

/** The `fileChange` change of a client write, with the diff of its two texts (bridge-kit/texts-diff.ts). */
export function fsWriteChange(write: AcpFsWriteChange): { path: string; kind: "add" | "update"; diff?: string; oldText?: string; newText: string } {
  const diff = textsUnifiedDiff(write.path, write.oldText, write.newText);
  const base = write.oldText === null ? { path: write.path, kind: "add" as const } : { path: write.path, kind: "update" as const, oldText: write.oldText };
  return { ...base, ...(diff !== undefined ? { diff } : {}), newText: write.newText };
}

/**
 * True when an update turned a call into a delegation, or changed an open delegation's childRef,
 * label or detail: the runtime is told by a fresh `item.open` (spec 30 §1.6 — opencode's Task
 * reveals `subagent_type` and its description only after the first `tool_call`).
 */
function delegationChanged(before: ClassifiedToolCall, after: ClassifiedToolCall): boolean {
  if (after.item.type !== "delegation") return false;
  if (before.item.type !== "delegation") return true;
  return before.item.childRef !== after.item.childRef || before.item.label !== after.item.label || before.presentation.detail !== after.presentation.detail;
}

/** The tool-call state of one session translator. */
export interface ToolCallTracker {
  /**
   * Deltas of a `tool_call` (`fields` parsed from `update`). A call whose kind still lacks its
   * shape's fields is cached without an `item.open` until it is filled; a second `tool_call` with
   * a cached id refines the call like an update and never sends a second `item.open`.
   */
  toolCall(update: Record<string, unknown>, fields: AcpToolCallEvent): ThreadDelta[];
  /**
   * Deltas of a `tool_call_update`. Never flushes text streams, except when it opens a call whose
   * open waited for its fields (then it flushes as the `tool_call` would have). A non-terminal
   * update that makes an opened call a delegation, or changes an open delegation, re-opens it
   * (`item.open`, same key).
   */
  toolCallUpdate(update: Record<string, unknown>, fields: AcpToolCallEvent): ThreadDelta[];
  /**
   * A client file write: folded into the in-flight edit call that made it (so one edit is one
   * `fileChange` item) and `true` returned; `false` when no cached call claims it, or when a
   * settled call of this turn already reported the same change.
   */
  claimWrite(write: AcpFsWriteChange): boolean | "duplicate";
  /**
   * The `toolCallId` of the cached call that would claim a write of `path` now (claimWrite's
   * rule), or `undefined`. Taken when the `fs/write_text_file` request arrives, before the
   * bridge's awaits, so a write the call settles ahead of is still known as that call's.
   */
  writeClaimant(path: string): string | undefined;
  /**
   * The `toolCallId` of the read call an `fs/read_text_file` of `path` (absolute, as the bridge
   * resolved it) belongs to: the one call in flight now (announced or refined, not yet settled)
   * that classifies as a `fileRead` of that file; `undefined` when there is none or more than one.
   * Taken when the request arrives. The rule never looks past the call's life: a read of the same
   * path before the call was reported or after it settled (gemini reads a file for its edit's
   * permission request right after its own read call completed) belongs to no read call.
   */
  readClaimant(path: string): string | undefined;
  /**
   * The text the bridge answered to an `fs/read_text_file` its claimant (readClaimant) made: kept
   * on the call, whose `fileRead` close then carries those bytes (read-bytes.ts). Nothing when
   * the call has settled meanwhile. Makes no delta.
   */
  noteRead(toolCallId: string, content: string): void;
  /** Closes every cached call in insertion order with `status` and empties the cache. */
  drain(status: ItemStatus): ThreadDelta[];
  /**
   * Forgets every cached call without closing it; returns the client writes they had claimed, so
   * the caller can still report them.
   */
  clear(): AcpFsWriteChange[];
  /** Forgets the changes settled calls reported (a new turn starts). */
  newTurn(): void;
  /** Re-opens an open delegation with the report's childRef/label/detail; else nothing. */
  delegationReport(report: AcpDelegationReport): ThreadDelta[];
  /** The merged in-flight call with this id (identity filled), if cached. */
  inFlight(toolCallId: string): AcpToolCallEvent | undefined;
  /** Classifies a call the way the timeline does (identity, binding, dialect, shared). */
  classify(event: AcpToolCallEvent): ClassifiedToolCall;
  /** Number of cached (unsettled) calls the agent reported. */
  openCount(): number;
  /**
   * A permission request's `toolCall` for an id the agent has not reported: its fields (title,
   * kind, rawInput) are kept so the agent's later updates for the id build on them. Makes no item.
   */
  notePermissionToolCall(fields: AcpToolCallEvent): void;
  /** True when a call with this id has settled (closed or drained) in this session. */
  isSettled(toolCallId: string): boolean;
  /** `item.progress` on an opened call, or nothing when the call has no open item. */
  progressNote(toolCallId: string, message: string): ThreadDelta[];
  /**
   * The runtime denied the call's permission request. A call the agent has not reported (it asked
   * first: qwen, gemini, codex-acp) settles now as its denied item, and whatever the agent later
   * sends about it is a late update; a reported call settles denied when the agent closes it.
   */
  deny(toolCallId: string): ThreadDelta[];
  /**
   * The runtime allowed the call's permission request: its close says `approvalStatus:
   * "approved"` when it settles as a command or file change (a later denial of the same id wins).
   */
  approve(toolCallId: string): void;
  /** True when the call was denied and has settled: more `tool_call`s about it are late, not new work. */
  isSettledDenial(toolCallId: string): boolean;
  /**
   * True when a late `tool_call`/`tool_call_update` of a call that {@link deny} settled says
   * nothing its settled item does not already say: merged into what the call was, it settles as
   * the same item, presentation and output. An agent that asked first and reported the call after
   * the runtime's deny (omp) then sends what it would have sent had its report come first, and
   * the bridge shows it only where that report would have shown (with no turn open). The merged
   * fields are kept, so the next late update builds on them. False for any other call.
   */
  repeatsSettledDenial(fields: AcpToolCallEvent): boolean;
}

type FileChangeItem = Extract<ClassifiedToolCall["item"], { type: "fileChange" }>;

/** Adds a call's client writes to its fileChange: a change of the same file without text takes the write's (its absolute path and texts); other files are appended. */
function withWrites(item: FileChangeItem, writes: readonly AcpFsWriteChange[]): FileChangeItem {
  if (writes.length === 0) return item;
  const changes = [...item.changes];
  for (const write of writes) {
    // The same file: the same path, or a relative one the write's ends with (qwen reports `notes.txt` and writes `/…/notes.txt`).
    const at = changes.findIndex((change) => namesSameFile(change.path, write.path));
    if (at === -1) changes.push(fsWriteChange(write));
    else if (changes[at]!.newText === undefined) changes[at] = fsWriteChange(write);
  }
  return { ...item, changes };
}

const changeKey = (path: string, newText: string | undefined): string => `${path}\u0000${newText ?? ""}`;

/**
 * The command output and exit code a closing call reports (spec 30 §1.1: only a failed call
 * without a code gets 1). A denied command never ran: it printed nothing and has no exit code (the
 * agent's refusal text is not its output); a denied call of another type keeps its result text.
 */
function closingOutput(
  dialect: AcpDialect,
  event: AcpToolCallEvent,
  item: ClassifiedToolCall["item"],
  status: ItemStatus,
  denied: boolean,
  fsReads: readonly string[],
): { output?: string; exitCode?: number; resultText?: string } {
  if (denied && item.type === "command") return {};
  let output: string | undefined;
  let exitCode: number | undefined;
  let resultText: string | undefined;
  if (item.type === "command") {
    const filled = withToolIdentity(dialect, event);
    const normalized = dialect.normalizeCommandEvent?.(filled) ?? filled;
    const result = dialect.commandResult?.(normalized) ?? readCommandResult(normalized);
    // A dialect's reader keeps the agent's text; its "(no output)" placeholder is still no output (omp writes one).
    output = result.output !== undefined && isNoOutputPlaceholder(result.output) ? undefined : result.output;
    exitCode = result.exitCode;
    resultText = result.resultText;
  } else {
    // A read's output is the file's exact bytes where the agent-side traffic carries them, else the text the agent displayed (read-bytes.ts).
    output = item.type === "fileRead" ? (exactReadBytes(event, item.path, fsReads) ?? readOutputText(event)) : toolOutputText(event);
    exitCode = readCommandResult(event).exitCode;
  }
  // Spec 30 §1.1: the bridge no longer invents 0; only a failed call without a code gets 1 (never a denied one).
  if (exitCode === undefined && status === "failed" && !denied) exitCode = 1;
  return { ...(output !== undefined ? { output } : {}), ...(exitCode !== undefined ? { exitCode } : {}), ...(resultText !== undefined ? { resultText } : {}) };
}

/** The tool calls of one translator instance: cached by id, opened, refined and settled. */
class ToolCallCache implements ToolCallTracker {
  private readonly threadId: string;
  private readonly dialect: AcpDialect;
  private readonly bindings: InjectedToolBindings;
  private readonly cache = new Map<string, CachedToolCall>();
  // Changes settled tool calls reported in this turn: a client write of the same text that comes
  // after its call closed is the same edit, not a second one.
  private readonly settledChanges = new Set<string>();
  private readonly settledIds = new Set<string>();
  // Calls whose permission the runtime denied (by id, for the session's life: ids are unique).
  private readonly deniedIds = new Set<string>();
  // Calls whose permission the runtime allowed (same lifetime).
  private readonly approvedIds = new Set<string>();
  // Calls deny() settled before the agent reported them: what the call was, and its close as the lane shows it.
  private readonly deniedSettles = new Map<string, { event: AcpToolCallEvent; shown: string }>();

  constructor(options: { threadId: string; dialect: AcpDialect; bindings: InjectedToolBindings }) {
    this.threadId = options.threadId;
    this.dialect = options.dialect;
    this.bindings = options.bindings;
  }

  private classifyCached(event: AcpToolCallEvent, cached?: CachedToolCall): ClassifiedToolCall {
    const filled = withToolIdentity(this.dialect, event);
    const classified = classifyToolCall(this.dialect, filled, this.bindings.boundTool(event.toolCallId));
    const report = cached?.delegation;
    if (report !== undefined && classified.item.type === "delegation") {
      return {
        item: { ...classified.item, childRef: report.childRef, label: report.label },
        presentation: delegationPresentation(report.label, report.detail),
      };
    }
    return classified;
  }

  private open(entry: CachedToolCall, fallback: NoTurnFallback | undefined, classified = this.classifyCached(entry.event, entry)): ThreadDelta {
    entry.opened = classified;
    const { item, presentation } = classified;
    return {
      kind: "item.open",
      key: { providerItemId: entry.event.toolCallId },
      item,
      presentation,
      ...(fallback !== undefined ? { noTurnFallback: fallback } : {}),
    };
  }

  /** The deltas that open a call whose open waited for its fields: the stream flush a `tool_call` does, then the open. */
  private lateOpen(entry: CachedToolCall, fallback: NoTurnFallback | undefined, classified?: ClassifiedToolCall): ThreadDelta[] {
    return [closeThought(), closeAssistant(), this.open(entry, fallback, classified)];
  }

  private close(event: AcpToolCallEvent, status: ItemStatus, cached: CachedToolCall | undefined, fallback?: NoTurnFallback, before?: AcpToolCallEvent): ThreadDelta[] {
    const deltas: ThreadDelta[] = [];
    const classified = this.classifyCached(event, cached);
    let { item } = classified;
    const { presentation } = classified;
    const writes = cached?.writes ?? [];
    if (item.type === "fileChange") item = withWrites(item, writes);
    // A directory the agent named while the call ran stays when its closing update replaces the
    // content that named it (gemini's "[current working directory …]" content, then `content: []`).
    const openedItem = cached?.opened?.item;
    if (item.type === "command" && item.cwd === "" && openedItem?.type === "command" && openedItem.cwd !== "") item = { ...item, cwd: openedItem.cwd };
    // A call that was never opened (only its permission request or a late update named it: qwen,
    // codex-acp) still ran between the texts around it: they stay two messages.
    if (cached?.opened === undefined && !(cached?.announced ?? false)) deltas.push(closeThought(), closeAssistant());
    // A call announced by `tool_call` whose open waited for fields opens now, so it is started and settled as one type.
    if (cached !== undefined && cached.announced && cached.opened === undefined) {
      // The open shows the call as it ran (before the closing update's output), in the type it settles as.
      const running = before === undefined ? undefined : this.classifyCached(before, cached);
      deltas.push(...this.lateOpen(cached, fallback, running !== undefined && running.item.type === item.type ? running : { item, presentation }));
    }
    const denied = this.deniedIds.has(event.toolCallId);
    // The grammar reads approvalStatus on command and file-change items only (stack/assembler/items.ts).
    const approved = !denied && this.approvedIds.has(event.toolCallId) && (item.type === "command" || item.type === "fileChange");
    const { output, exitCode, resultText } = closingOutput(this.dialect, event, item, status, denied, cached?.reads ?? []);
    deltas.push({
      kind: "item.close",
      key: { providerItemId: event.toolCallId },
      status,
      ...(output !== undefined ? { resultText: output, aggregatedOutput: output } : {}),
      ...(resultText !== undefined ? { resultText } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(denied ? { approvalStatus: "denied" as const } : approved ? { approvalStatus: "approved" as const } : {}),
      item,
      presentation,
      ...(fallback !== undefined ? { noTurnFallback: fallback } : {}),
    });
    if (item.type === "fileChange") {
      for (const change of item.changes) this.settledChanges.add(changeKey(change.path, change.newText));
    } else {
      // The call did not settle as a file change: its writes are still reported, each as its own item.
      for (const write of writes) deltas.push(fsWriteDelta(this.threadId, write));
    }
    this.bindings.release(event.toolCallId);
    this.settledIds.add(event.toolCallId);
    return deltas;
  }

  private announce(event: AcpToolCallEvent): void {
    const filled = withToolIdentity(this.dialect, event);
    if (isInjectedToolCandidate(filled)) this.bindings.announce(event.toolCallId, event.title);
  }

  /** The cached entry after merging `fields`; a new entry when the id is unknown. */
  private merged(fields: AcpToolCallEvent, announced: boolean): { entry: CachedToolCall; previous: CachedToolCall | undefined } {
    const previous = this.cache.get(fields.toolCallId);
    const event = previous ? mergeToolCall(previous.event, fields) : fields;
    if (previous === undefined) this.announce(event);
    const entry: CachedToolCall = previous ? { ...previous, event, announced: previous.announced || announced, permissionOnly: false } : { event, announced, writes: [] };
    return { entry, previous };
  }

  toolCall(update: Parameters<ToolCallTracker["toolCall"]>[0], fields: AcpToolCallEvent): ThreadDelta[] {
    const deltas: ThreadDelta[] = [closeThought(), closeAssistant()];
    const { entry, previous } = this.merged(fields, true);
    const fallback = updateFallback(this.threadId, update);
    if (isTerminalToolStatus(entry.event.status)) {
      this.cache.delete(entry.event.toolCallId);
      const closing = this.close(entry.event, entry.event.status, previous ? entry : undefined, fallback, previous?.event);
      // close() flushes the streams itself for a call it never saw (no cached entry): flush once.
      return previous === undefined ? closing : [...deltas, ...closing];
    }
    this.cache.set(entry.event.toolCallId, entry);
    // A re-sent tool_call refines the cached call; only a call not opened yet may open here.
    if (entry.opened !== undefined) return deltas;
    const classified = this.classifyCached(entry.event, entry);
    if (!defersUnfilledOpens(this.dialect) || !isUnfilled(entry.event, classified)) deltas.push(this.open(entry, fallback, classified));
    return deltas;
  }

  toolCallUpdate(update: Parameters<ToolCallTracker["toolCallUpdate"]>[0], fields: AcpToolCallEvent): ThreadDelta[] {
    const { threadId } = this;
    // An unknown id is cached as its own start, without an open (spec 20 §3.2).
    const { entry, previous } = this.merged(fields, false);
    const event = entry.event;
    if (isTerminalToolStatus(event.status)) {
      this.cache.delete(event.toolCallId);
      return this.close(event, event.status, previous ? entry : undefined, updateFallback(threadId, update), previous?.event);
    }
    this.cache.set(event.toolCallId, entry);
    const output = toolOutputText(event);
    const classified = this.classifyCached(event, entry);
    const deltas: ThreadDelta[] = [];
    let opened = false;
    if (entry.announced && entry.opened === undefined && (!isUnfilled(event, classified) || output !== undefined)) {
      deltas.push(...this.lateOpen(entry, updateFallback(threadId, update), classified));
      opened = true;
    }
    const reopen = !opened && entry.opened !== undefined && delegationChanged(entry.opened, classified);
    if (reopen) deltas.push(this.open(entry, updateFallback(threadId, update), classified));
    const { item } = classified;
    const streamed = item.type === "command" ? this.streamedOutput(event, fields) : undefined;
    if (streamed !== undefined) {
      // Output the agent streams while the command runs (opencode's in_progress content, copilot's
      // status-less update): a snapshot of what it printed so far (issue 39 "streamed output updates").
      // The raw update still follows, as it did before the output was carried: it is what a thread
      // sees of the update when no turn is open (a snapshot needs one), and it keeps the bridge's
      // notification of this update recognisable to a replay of recordings made before (same
      // delta kinds but one, harness/replay/walk/matching.ts).
      deltas.push({ kind: "command.outputSnapshot", key: { providerItemId: event.toolCallId }, text: streamed });
      if (!reopen && !opened) deltas.push(suppressedUpdate(threadId, update));
    } else if (output !== undefined && item.type !== "command" && item.type !== "fileChange") {
      deltas.push({ kind: "item.progress", key: { providerItemId: event.toolCallId }, message: output });
    } else if (!reopen && !opened) {
      deltas.push(suppressedUpdate(threadId, update));
    }
    return deltas;
  }

  /**
   * The output so far a non-terminal update of an opened command carries (its own content, not
   * content merged from earlier updates), read by the dialect's reader, else the shared one;
   * `undefined` when it carries none, before the call was opened, or when the update says `pending`.
   */
  private streamedOutput(event: AcpToolCallEvent, fields: AcpToolCallEvent): string | undefined {
    if (this.cache.get(event.toolCallId)?.opened === undefined) return undefined;
    if (fields.content === undefined || fields.content.length === 0 || fields.status === "pending") return undefined;
    const update = { ...event, content: fields.content };
    const read = this.dialect.streamedCommandOutput?.(update);
    if (read === null) return undefined;
    const text = read ?? streamedCommandOutput(update);
    return text === undefined || text.length === 0 || isNoOutputPlaceholder(text) ? undefined : text;
  }

  claimWrite(write: AcpFsWriteChange): boolean | "duplicate" {
    const claimant = this.claimantOf(write.path);
    if (claimant !== undefined) {
      claimant.writes.push(write);
      return true;
    }
    return this.settledChanges.has(changeKey(write.path, write.newText)) ? "duplicate" : false;
  }

  writeClaimant(path: string): string | undefined {
    return this.claimantOf(path)?.event.toolCallId;
  }

  readClaimant(path: string): string | undefined {
    const readers = [...this.cache.values()].filter((entry) => {
      if (entry.permissionOnly) return false;
      const { item } = this.classifyCached(entry.event, entry);
      return item.type === "fileRead" && namesSameFile(item.path, path);
    });
    return readers.length === 1 ? readers[0]!.event.toolCallId : undefined;
  }

  noteRead(toolCallId: string, content: string): void {
    const cached = this.cache.get(toolCallId);
    if (cached === undefined) return;
    cached.reads = [...(cached.reads ?? []), content];
  }

  /** The cached edit call a write of `path` belongs to: located at the path, else the one pathless edit in flight. */
  private claimantOf(path: string): CachedToolCall | undefined {
    let claimant: CachedToolCall | undefined;
    const pathless: CachedToolCall[] = [];
    for (const entry of this.cache.values()) {
      const classified = this.classifyCached(entry.event, entry);
      if (entry.event.kind !== "edit" && classified.item.type !== "fileChange") continue;
      const paths = classified.item.type === "fileChange" ? classified.item.changes.map((change) => change.path) : [];
      const located = [...paths, ...(entry.event.locations ?? []).map((location) => location.path)];
      if (located.includes(path)) {
        claimant = entry;
        break;
      }
      // A call known only from its permission request (gemini asks before it reports the call)
      // claims a write by its path alone, never as the one pathless edit in flight.
      if (located.length === 0 && !entry.permissionOnly) pathless.push(entry);
    }
    if (claimant === undefined && pathless.length === 1) claimant = pathless[0];
    return claimant;
  }

  drain(status: Parameters<ToolCallTracker["drain"]>[0]): ThreadDelta[] {
    const deltas: ThreadDelta[] = [];
    for (const cached of this.cache.values()) {
      if (!cached.permissionOnly) deltas.push(...this.close(cached.event, status, cached));
      // A call the agent never reported itself still made its writes: each stays an item.
      else for (const write of cached.writes) deltas.push(fsWriteDelta(this.threadId, write));
    }
    this.cache.clear();
    return deltas;
  }

  clear(): AcpFsWriteChange[] {
    const writes = [...this.cache.values()].flatMap((entry) => entry.writes);
    this.cache.clear();
    this.bindings.clearCalls();
    return writes;
  }

  newTurn(): void {
    this.settledChanges.clear();
  }

  delegationReport(report: Parameters<ToolCallTracker["delegationReport"]>[0]): ThreadDelta[] {
    const cached = this.cache.get(report.toolCallId);
    if (cached === undefined) return [];
    if (this.classifyCached(cached.event, cached).item.type !== "delegation") return [];
    cached.delegation = { childRef: report.childRef, label: report.label };
    if (report.detail !== undefined) cached.delegation.detail = report.detail;
    const classified = this.classifyCached(cached.event, cached);
    cached.opened = classified;
    const { item, presentation } = classified;
    return [{ kind: "item.open", key: { providerItemId: report.toolCallId }, item, presentation }];
  }

  inFlight(toolCallId: string): AcpToolCallEvent | undefined {
    const cached = this.cache.get(toolCallId);
    return cached ? withToolIdentity(this.dialect, cached.event) : undefined;
  }

  classify(event: AcpToolCallEvent): ClassifiedToolCall {
    return this.classifyCached(event, this.cache.get(event.toolCallId));
  }

  openCount(): number {
    return [...this.cache.values()].filter((entry) => !entry.permissionOnly).length;
  }

  notePermissionToolCall(fields: AcpToolCallEvent): void {
    if (this.cache.has(fields.toolCallId) || this.settledIds.has(fields.toolCallId)) return;
    this.cache.set(fields.toolCallId, { event: fields, announced: false, writes: [], permissionOnly: true });
  }

  isSettled(toolCallId: string): boolean {
    return this.settledIds.has(toolCallId) && !this.cache.has(toolCallId);
  }

  progressNote(toolCallId: string, message: string): ThreadDelta[] {
    const cached = this.cache.get(toolCallId);
    if (cached?.opened === undefined) return [];
    return [{ kind: "item.progress", key: { providerItemId: toolCallId }, message }];
  }

  deny(toolCallId: string): ThreadDelta[] {
    if (this.settledIds.has(toolCallId)) return [];
    this.deniedIds.add(toolCallId);
    const cached = this.cache.get(toolCallId);
    if (cached === undefined || !cached.permissionOnly) return [];
    // The agent asked before it reported the call: the denial is the call's whole life. The
    // item opens from the request's toolCall before it settles, as it opens from the agent's
    // `tool_call` when that comes first (recordings/acp-omp/approval-deny): the lane is the same
    // whichever of the two pipes' lines reached the bridge first.
    this.cache.delete(toolCallId);
    const open = this.open(cached, undefined);
    const closing = this.close(cached.event, "failed", cached);
    this.deniedSettles.set(toolCallId, { event: cached.event, shown: this.shownClose(cached.event) });
    return [closeThought(), closeAssistant(), open, ...closing];
  }

  /** What a denied call's close shows in the lane (item, presentation, output): compared, never sent. */
  private shownClose(event: AcpToolCallEvent): string {
    const { item, presentation } = this.classifyCached(event);
    return JSON.stringify({ item, presentation, ...closingOutput(this.dialect, event, item, "failed", true, []) });
  }

  repeatsSettledDenial(fields: AcpToolCallEvent): boolean {
    const settled = this.deniedSettles.get(fields.toolCallId);
    if (settled === undefined) return false;
    const event = mergeToolCall(settled.event, fields);
    settled.event = event;
    return this.shownClose(event) === settled.shown;
  }

  approve(toolCallId: string): void {
    if (!this.settledIds.has(toolCallId)) this.approvedIds.add(toolCallId);
  }

  isSettledDenial(toolCallId: string): boolean {
    return this.deniedIds.has(toolCallId) && this.isSettled(toolCallId);
  }
}

/** Creates the tool-call tracker of one translator instance. */
export function createToolCallTracker(options: { threadId: string; dialect: AcpDialect; bindings: InjectedToolBindings }): ToolCallTracker {
  return new ToolCallCache(options);
}

/** Key channel of client file writes (spec 20 §3.1 `acp/fs/write`). */
export const FS_WRITE_CHANNEL = "fs-write";

/** A client write reported as its own completed `fileChange` on channel `fs-write` (spec 20 §3.1). */
export function fsWriteDelta(threadId: string, write: AcpFsWriteChange): ThreadDelta {
  const item = { type: "fileChange" as const, changes: [fsWriteChange(write)] };
  return {
    kind: "item.close",
    key: { channel: FS_WRITE_CHANNEL },
    status: "completed",
    item,
    presentation: shapePresentation(item, undefined),
    noTurnFallback: { raw: internalEnvelope("acp/fs/write", { threadId, ...write }), rawType: "acp/fs/write" },
  };
}
