/**
 * Classification of a merged tool call with the session's dialect and injected tools
 * (spec 30 §1.1 hook order; spec 20 §3.3 (a)): identity fill, injected binding, dialect
 * override, then the shared classifier.
 */
import type { ItemShape, Presentation } from "../../protocol/thread-delta.js";
import type { AcpDialect, AcpToolCallEvent } from "../dialects/types.js";
import { isAcpToolKind } from "../dialects/types.js";
import { classifyOperation, classifySharedToolCall } from "./classify.js";
import type { InjectedToolDefinition } from "./injected-tools.js";
import { injectedToolPresentation } from "../dialects/presentation.js";

/** A classified tool call: its item shape and presentation. */
export interface ClassifiedToolCall {
  item: ItemShape;
  presentation: Presentation;
}

/**
 * Fills an unset `kind`/`name` from the dialect's `toolIdentity` (protocol values win; a kind
 * that is not a valid ACP kind is ignored). Returns a new event; the input is not changed.
 */
export function withToolIdentity(dialect: AcpDialect, event: AcpToolCallEvent): AcpToolCallEvent {
  const identity = dialect.toolIdentity?.(event);
  if (identity === undefined) return event;
  const filled = { ...event };
  if (filled.name === undefined && typeof identity.name === "string" && identity.name.length > 0) filled.name = identity.name;
  if (filled.kind === undefined && isAcpToolKind(identity.kind)) filled.kind = identity.kind;
  return filled;
}

/** True when a call may be a bb-injected tool: kind other/absent and a generic operation. */
export function isInjectedToolCandidate(event: AcpToolCallEvent): boolean {
  return (event.kind === undefined || event.kind === "other") && classifyOperation(event).type === "generic";
}

/**
 * Classifies a merged call: (a) bound injected tool → `{type:"tool", tool, server:"bb"}`;
 * else the dialect's `classifyToolCall`; else the shared classifier. `event` must already carry
 * the identity fill ({@link withToolIdentity}).
 */
export function classifyToolCall(dialect: AcpDialect, event: AcpToolCallEvent, boundTool: InjectedToolDefinition | undefined): ClassifiedToolCall {
  if (boundTool !== undefined && isInjectedToolCandidate(event)) {
    return {
      item: { type: "tool", tool: boundTool.name, server: "bb" },
      presentation: boundTool.presentation ?? injectedToolPresentation(boundTool.name),
    };
  }
  return dialect.classifyToolCall?.(event) ?? classifySharedToolCall(event);
}
