/**
 * Item construction (spec 10 §2.3), terminal items of `item.close` (spec 10 §2.7 step 4) and
 * close-echo of an opened item (spec 10 §2.7 step 3, §2.12). Pure functions: the caller picks
 * ids, parents and presentations.
 */
import type { ItemShape, ItemStatus, Presentation, TextChannel, ThreadDeltaOf } from "../protocol/thread-delta.js";
import type { ThreadItem } from "../protocol/thread-events.js";
import { isRecord } from "../protocol/json-value.js";
import { definedFields } from "./events.js";
import { fileChangeDiff } from "./file-diff.js";

/** The `type` of the item a shape produces: command → commandExecution, tool → toolCall, compaction → contextCompaction. */
export function itemTypeOfShape(shape: ItemShape): ThreadItem["type"] {
  switch (shape.type) {
    case "command":
      return "commandExecution";
    case "tool":
      return "toolCall";
    case "compaction":
      return "contextCompaction";
    default:
      return shape.type;
  }
}

/** Whether an opened item and a terminal shape are the same kind of item (two extensions need the same `kind`). */
export function itemMatchesShape(item: ThreadItem, shape: ItemShape): boolean {
  if (item.type !== itemTypeOfShape(shape)) return false;
  if (item.type === "extension" && shape.type === "extension") return item.kind === shape.kind;
  return true;
}

/** backgroundTask, or delegation with `background:true`: items that live outside turns (spec 10 §2.6). */
export function isThreadAttachedShape(shape: ItemShape): boolean {
  return shape.type === "backgroundTask" || (shape.type === "delegation" && shape.background);
}

/** Whether a held item is one the text streams settle (agentMessage, plan, reasoning). */
export function isTextItem(item: ThreadItem): boolean {
  return item.type === "agentMessage" || item.type === "plan" || item.type === "reasoning";
}

/** Values of `item.close` that override or complete the shape (spec 10 §2.7 step 4). */
export interface CloseFields {
  status: ItemStatus;
  resultText?: string | undefined;
  exitCode?: number | undefined;
  aggregatedOutput?: string | undefined;
  approvalStatus?: "denied" | "approved" | undefined;
  /** The opened item, for `delegation`'s summary fallback. */
  openItem?: ThreadItem | undefined;
}

/** Where an item hangs and how it is labelled; appended after the item's own fields. */
export interface ItemTail {
  parentToolCallId?: string | undefined;
  presentation?: Presentation | undefined;
}

function withTail(fields: Record<string, unknown>, tail: ItemTail): ThreadItem {
  return definedFields({ ...fields, parentToolCallId: tail.parentToolCallId, presentation: tail.presentation }) as ThreadItem;
}

/**
 * Builds the item for `shape` (spec 10 §2.3). Without `close` it is the `item.open` item (status
 * `pending`); with `close` it is the terminal item of `item.close` (spec 10 §2.7 step 4).
 */
export function buildItem(shape: ItemShape, id: string, tail: ItemTail, close?: CloseFields): ThreadItem {
  const status: ItemStatus = close?.status ?? "pending";
  switch (shape.type) {
    case "command":
      return withTail(
        {
          type: "commandExecution",
          id,
          command: shape.command,
          cwd: shape.cwd,
          aggregatedOutput: close?.aggregatedOutput ?? shape.aggregatedOutput,
          exitCode: close?.exitCode ?? shape.exitCode,
          durationMs: shape.durationMs,
          status,
          approvalStatus: close?.approvalStatus ?? null,
        },
        tail,
      );
    case "fileChange":
      return withTail(
        {
          type: "fileChange",
          id,
          changes: shape.changes.map((change) => definedFields({ path: change.path, kind: change.kind, movePath: change.movePath, diff: fileChangeDiff(change) })),
          status,
          approvalStatus: close?.approvalStatus ?? null,
        },
        tail,
      );
    case "tool":
      return withTail(
        {
          type: "toolCall",
          id,
          server: shape.server,
          tool: shape.tool,
          arguments: isRecord(shape.args) ? shape.args : undefined,
          status,
          // The shape's result beats the close's resultText (spec 10 §2.7, §8 rule 5).
          result: shape.result ?? close?.resultText,
          error: shape.error,
          durationMs: shape.durationMs,
        },
        tail,
      );
    case "compaction":
      return withTail({ type: "contextCompaction", id }, tail);
    case "agentMessage":
    case "plan":
      return withTail({ type: shape.type, id, text: shape.text }, tail);
    case "reasoning":
      return withTail({ type: "reasoning", id, summary: shape.summary, content: shape.content }, tail);
    case "webSearch":
      return withTail({ type: "webSearch", id, queries: shape.queries, resultText: close?.resultText ?? null }, tail);
    case "webFetch":
      return withTail(
        {
          type: "webFetch",
          id,
          url: shape.url,
          prompt: shape.prompt ?? null,
          pattern: shape.pattern,
          resultText: close?.resultText ?? null,
        },
        tail,
      );
    case "imageView":
      return withTail({ type: "imageView", id, path: shape.path }, tail);
    case "backgroundTask": {
      // A copy of the snapshot: its own status is kept, whatever the close says.
      const { type: _type, ...rest } = shape;
      return withTail({ type: "backgroundTask", id, ...rest }, tail);
    }
    case "fileRead":
      // The bytes the read returned, as the close carried them (absent when the bridge sent none).
      return withTail({ type: "fileRead", id, path: shape.path, cmd: shape.cmd, status, resultText: close?.resultText }, tail);
    case "search":
      return withTail({ type: "search", id, mode: shape.mode, query: shape.query, path: shape.path, cmd: shape.cmd, status }, tail);
    case "planSteps":
      return withTail({ type: "planSteps", id, steps: shape.steps, explanation: shape.explanation, status }, tail);
    case "delegation": {
      const openSummary = close?.openItem?.type === "delegation" ? close.openItem.summary : undefined;
      return withTail(
        {
          type: "delegation",
          id,
          childRef: shape.childRef,
          label: shape.label,
          status,
          background: shape.background,
          summary: shape.summary ?? openSummary,
        },
        tail,
      );
    }
    case "extension":
      return withTail({ type: "extension", id, kind: shape.kind, payload: shape.payload, status }, tail);
  }
}

/** The close fields of an `item.close` delta. */
export function closeFieldsOf(delta: ThreadDeltaOf<"item.close">, openItem: ThreadItem | undefined): CloseFields {
  return {
    status: delta.status,
    resultText: delta.resultText,
    exitCode: delta.exitCode,
    aggregatedOutput: delta.aggregatedOutput,
    approvalStatus: delta.approvalStatus,
    openItem,
  };
}

/** What a close contributes to a close-echo: its status and, when present, result, output and exit code. */
export interface EchoFields {
  status: ItemStatus;
  resultText?: string | undefined;
  exitCode?: number | undefined;
  aggregatedOutput?: string | undefined;
}

/**
 * Settles an opened item from its own fields (spec 10 §2.7 step 3, §2.12). The rebuilt types
 * (commandExecution, fileChange, toolCall, fileRead, search, planSteps, delegation,
 * contextCompaction) lose their presentation and toolCall also loses `server`, `error` and
 * `durationMs`; extension keeps its presentation; every other type is returned unchanged.
 * The parent is kept.
 */
export function closeEcho(item: ThreadItem, echo: EchoFields): ThreadItem {
  const tail: ItemTail = { parentToolCallId: item.parentToolCallId };
  switch (item.type) {
    case "commandExecution":
      return withTail(
        {
          type: "commandExecution",
          id: item.id,
          command: item.command,
          cwd: item.cwd,
          aggregatedOutput: echo.aggregatedOutput,
          exitCode: echo.exitCode,
          status: echo.status,
          approvalStatus: item.approvalStatus,
        },
        tail,
      );
    case "toolCall":
      return withTail(
        {
          type: "toolCall",
          id: item.id,
          tool: item.tool,
          arguments: item.arguments,
          status: echo.status,
          result: echo.resultText,
        },
        tail,
      );
    case "fileChange":
      return withTail({ type: "fileChange", id: item.id, changes: item.changes, status: echo.status, approvalStatus: item.approvalStatus }, tail);
    case "fileRead":
      return withTail({ type: "fileRead", id: item.id, path: item.path, cmd: item.cmd, status: echo.status, resultText: echo.resultText }, tail);
    case "search":
      return withTail({ type: "search", id: item.id, mode: item.mode, query: item.query, path: item.path, cmd: item.cmd, status: echo.status }, tail);
    case "planSteps":
      return withTail({ type: "planSteps", id: item.id, steps: item.steps, explanation: item.explanation, status: echo.status }, tail);
    case "delegation":
      return withTail(
        {
          type: "delegation",
          id: item.id,
          childRef: item.childRef,
          label: item.label,
          status: echo.status,
          background: item.background,
          summary: item.summary,
        },
        tail,
      );
    case "contextCompaction":
      return withTail({ type: "contextCompaction", id: item.id }, tail);
    case "extension":
      return withTail({ type: "extension", id: item.id, kind: item.kind, payload: item.payload, status: echo.status }, { ...tail, presentation: item.presentation });
    default:
      return item;
  }
}

/** Replaces (or adds, last) the presentation of an item. */
export function withPresentation(item: ThreadItem, presentation: Presentation | undefined): ThreadItem {
  const { presentation: _old, ...rest } = item as ThreadItem & { presentation?: Presentation };
  return definedFields({ ...rest, presentation }) as ThreadItem;
}

/** The item a text stream synthesizes on its first delta: no presentation (spec 10 §2.8 step 2). */
export function synthesizedTextItem(channel: TextChannel, id: string, parentToolCallId: string | undefined): ThreadItem {
  switch (channel) {
    case "agentMessage":
    case "plan":
      return withTail({ type: channel, id, text: "" }, { parentToolCallId });
    case "reasoningText":
    case "reasoningSummary":
      return withTail({ type: "reasoning", id, summary: [], content: [] }, { parentToolCallId });
  }
}

function asList(text: string): string[] {
  return text === "" ? [] : [text];
}

/**
 * Settles an open text item with `final` text on `channel` (spec 10 §2.8 step 6): agentMessage
 * and plan take `text = final`; reasoning puts `final` in `summary` (reasoningSummary channel) or
 * `content` (any other channel) and fills the other list from the accumulated text. Empty
 * strings become `[]`. Parent and presentation come from the open item.
 */
export function settleTextItem(item: ThreadItem, channel: TextChannel, final: string, accumulated: { text: string; summaryText: string }): ThreadItem {
  const tail = { parentToolCallId: item.parentToolCallId, presentation: item.presentation };
  if (item.type === "reasoning") {
    return channel === "reasoningSummary"
      ? withTail({ type: "reasoning", id: item.id, summary: asList(final), content: asList(accumulated.text) }, tail)
      : withTail({ type: "reasoning", id: item.id, summary: asList(accumulated.summaryText), content: asList(final) }, tail);
  }
  return withTail({ type: item.type, id: item.id, text: final }, tail);
}

/** A fresh item for a text close with no open text item (spec 10 §2.8 step 7). */
export function freshTextItem(channel: TextChannel, id: string, text: string, parentToolCallId: string | undefined): ThreadItem {
  switch (channel) {
    case "agentMessage":
    case "plan":
      return withTail({ type: channel, id, text }, { parentToolCallId });
    case "reasoningText":
      return withTail({ type: "reasoning", id, summary: [], content: [text] }, { parentToolCallId });
    case "reasoningSummary":
      return withTail({ type: "reasoning", id, summary: [text], content: [] }, { parentToolCallId });
  }
}

/**
 * Settles an open text item with what it has streamed so far, as `session.ended` does
 * (spec 10 §2.12 step 2): agentMessage and plan take the accumulated text; reasoning takes the
 * accumulated summary and content. Parent and presentation come from the open item.
 */
export function settleAccumulated(item: ThreadItem, accumulated: { text: string; summaryText: string }): ThreadItem {
  const tail = { parentToolCallId: item.parentToolCallId, presentation: item.presentation };
  if (item.type === "reasoning") {
    return withTail({ type: "reasoning", id: item.id, summary: asList(accumulated.summaryText), content: asList(accumulated.text) }, tail);
  }
  return withTail({ type: item.type, id: item.id, text: accumulated.text }, tail);
}
