/**
 * The tool-call part of the translator: the per-session cache of open tool calls and the
 * deltas of `tool_call`, `tool_call_update`, drains and delegation reports (spec 20 §3.2–3.4,
 * spec 30 §1.1 exit-code rule, §1.3 report handling).
 */
import type { ItemStatus, NoTurnFallback, ThreadDelta, ThreadDeltaOf } from "../../protocol/thread-delta.js";
import type { AcpDelegationReport, AcpDialect, AcpToolCallEvent } from "../dialects/types.js";
import { isTerminalToolStatus, mergeToolCall } from "./acp-update-schemas.js";
import { closeAssistant, closeThought, suppressedUpdate, updateFallback } from "./envelopes.js";
import type { InjectedToolBindings } from "./injected-tools.js";
import { readCommandResult, toolOutputText } from "./output.js";
import { delegationPresentation } from "./presentation.js";
import type { ClassifiedToolCall } from "./tool-classification.js";
import { classifyToolCall, isInjectedToolCandidate, withToolIdentity } from "./tool-classification.js";

interface CachedToolCall {
  /** The merged event as the agent sent it (identity is filled at each classification). */
  event: AcpToolCallEvent;
  /** Set by a delegation report while the call is open (spec 30 §1.3). */
  delegation?: { childRef: string; label: string; detail?: string };
  /** The classification of the last `item.open` sent for the call; absent before its first open. */
  opened?: ClassifiedToolCall;
}

/**
 * True when an update turned a call into a delegation, or changed an open delegation's childRef,
 * label or detail: the runtime is told by a fresh `item.open` (spec 30 §1.6 — opencode's Task
 * reveals `subagent_type` and its description only after the first `tool_call`).
 */
function delegationChanged(before: ClassifiedToolCall, after: ClassifiedToolCall): boolean {
  if (after.item.type !== "delegation") return false;
  if (before.item.type !== "delegation") return true;
  return (
    before.item.childRef !== after.item.childRef ||
    before.item.label !== after.item.label ||
    before.presentation.detail !== after.presentation.detail
  );
}

/** The tool-call state of one session translator. */
export interface ToolCallTracker {
  /** Deltas of a `tool_call` (`fields` parsed from `update`). */
  toolCall(update: Record<string, unknown>, fields: AcpToolCallEvent): ThreadDelta[];
  /**
   * Deltas of a `tool_call_update`. Never flushes text streams. A non-terminal update that makes
   * an opened call a delegation, or changes an open delegation, re-opens it (`item.open`, same key).
   */
  toolCallUpdate(update: Record<string, unknown>, fields: AcpToolCallEvent): ThreadDelta[];
  /** Closes every cached call in insertion order with `status` and empties the cache. */
  drain(status: ItemStatus): ThreadDelta[];
  /** Forgets every cached call without closing it. */
  clear(): void;
  /** Re-opens an open delegation with the report's childRef/label/detail; else nothing. */
  delegationReport(report: AcpDelegationReport): ThreadDelta[];
  /** The merged in-flight call with this id (identity filled), if cached. */
  inFlight(toolCallId: string): AcpToolCallEvent | undefined;
  /** Classifies a call the way the timeline does (identity, binding, dialect, shared). */
  classify(event: AcpToolCallEvent): ClassifiedToolCall;
  /** Number of cached (unsettled) calls. */
  openCount(): number;
}

/** Creates the tool-call tracker of one translator instance. */
export function createToolCallTracker(options: {
  threadId: string;
  dialect: AcpDialect;
  bindings: InjectedToolBindings;
}): ToolCallTracker {
  const { threadId, dialect, bindings } = options;
  const cache = new Map<string, CachedToolCall>();

  function classify(event: AcpToolCallEvent, cached?: CachedToolCall): ClassifiedToolCall {
    const filled = withToolIdentity(dialect, event);
    const classified = classifyToolCall(dialect, filled, bindings.boundTool(event.toolCallId));
    const report = cached?.delegation;
    if (report !== undefined && classified.item.type === "delegation") {
      return {
        item: { ...classified.item, childRef: report.childRef, label: report.label },
        presentation: delegationPresentation(report.label, report.detail),
      };
    }
    return classified;
  }

  function open(entry: CachedToolCall, fallback: NoTurnFallback, classified = classify(entry.event, entry)): ThreadDelta {
    entry.opened = classified;
    const { item, presentation } = classified;
    return { kind: "item.open", key: { providerItemId: entry.event.toolCallId }, item, presentation, noTurnFallback: fallback };
  }

  function close(event: AcpToolCallEvent, status: ItemStatus, cached: CachedToolCall | undefined, fallback?: NoTurnFallback): ThreadDelta {
    const { item, presentation } = classify(event, cached);
    let output: string | undefined;
    let exitCode: number | undefined;
    if (item.type === "command") {
      const filled = withToolIdentity(dialect, event);
      const normalized = dialect.normalizeCommandEvent?.(filled) ?? filled;
      const result = dialect.commandResult?.(normalized) ?? readCommandResult(normalized);
      output = result.output;
      exitCode = result.exitCode;
    } else {
      output = toolOutputText(event);
      exitCode = readCommandResult(event).exitCode;
    }
    // Spec 30 §1.1: the bridge no longer invents 0; only a failed call without a code gets 1.
    if (exitCode === undefined && status === "failed") exitCode = 1;
    const delta: ThreadDeltaOf<"item.close"> = {
      kind: "item.close",
      key: { providerItemId: event.toolCallId },
      status,
      ...(output !== undefined ? { resultText: output, aggregatedOutput: output } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      item,
      presentation,
      ...(fallback !== undefined ? { noTurnFallback: fallback } : {}),
    };
    bindings.release(event.toolCallId);
    return delta;
  }

  function announce(event: AcpToolCallEvent): void {
    const filled = withToolIdentity(dialect, event);
    if (isInjectedToolCandidate(filled)) bindings.announce(event.toolCallId, event.title);
  }

  return {
    toolCall(update, fields) {
      const deltas: ThreadDelta[] = [closeThought(), closeAssistant()];
      const previous = cache.get(fields.toolCallId);
      const event = previous ? mergeToolCall(previous.event, fields) : fields;
      const fallback = updateFallback(threadId, update);
      if (previous === undefined) announce(event);
      if (isTerminalToolStatus(event.status)) {
        cache.delete(event.toolCallId);
        deltas.push(close(event, event.status, previous, fallback));
        return deltas;
      }
      const entry: CachedToolCall = previous ? { ...previous, event } : { event };
      cache.set(event.toolCallId, entry);
      deltas.push(open(entry, fallback));
      return deltas;
    },

    toolCallUpdate(update, fields) {
      const previous = cache.get(fields.toolCallId);
      // An unknown id is cached as its own start, without an open (spec 20 §3.2).
      const event = previous ? mergeToolCall(previous.event, fields) : fields;
      if (previous === undefined) announce(event);
      if (isTerminalToolStatus(event.status)) {
        cache.delete(event.toolCallId);
        return [close(event, event.status, previous, updateFallback(threadId, update))];
      }
      const entry: CachedToolCall = previous ? { ...previous, event } : { event };
      cache.set(event.toolCallId, entry);
      const output = toolOutputText(event);
      const classified = classify(event, entry);
      const deltas: ThreadDelta[] = [];
      const reopen = entry.opened !== undefined && delegationChanged(entry.opened, classified);
      if (reopen) deltas.push(open(entry, updateFallback(threadId, update), classified));
      const { item } = classified;
      if (output !== undefined && item.type !== "command" && item.type !== "fileChange") {
        deltas.push({ kind: "item.progress", key: { providerItemId: event.toolCallId }, message: output });
      } else if (!reopen) {
        deltas.push(suppressedUpdate(threadId, update));
      }
      return deltas;
    },

    drain(status) {
      const deltas: ThreadDelta[] = [];
      for (const cached of cache.values()) deltas.push(close(cached.event, status, cached));
      cache.clear();
      return deltas;
    },

    clear() {
      cache.clear();
      bindings.clearCalls();
    },

    delegationReport(report) {
      const cached = cache.get(report.toolCallId);
      if (cached === undefined) return [];
      if (classify(cached.event, cached).item.type !== "delegation") return [];
      cached.delegation = { childRef: report.childRef, label: report.label };
      if (report.detail !== undefined) cached.delegation.detail = report.detail;
      const classified = classify(cached.event, cached);
      cached.opened = classified;
      const { item, presentation } = classified;
      return [{ kind: "item.open", key: { providerItemId: report.toolCallId }, item, presentation }];
    },

    inFlight(toolCallId) {
      const cached = cache.get(toolCallId);
      return cached ? withToolIdentity(dialect, cached.event) : undefined;
    },

    classify: (event) => classify(event, cache.get(event.toolCallId)),

    openCount: () => cache.size,
  };
}
