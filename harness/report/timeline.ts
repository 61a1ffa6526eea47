/**
 * A readable timeline of a thread lane, one line per event (for `parity replay --timeline`):
 * position, event type, turn, then the few fields that say what happened — item type, id and
 * status, a text preview for deltas. Works on raw or normalized events; unknown shapes fall back
 * to compact JSON of their remaining fields.
 */
import { Chalk } from "chalk";
import { truncate } from "./text.js";
import { isRecord } from "../../stack/protocol/json-value.js";

/** Options of {@link renderTimeline}. `width` caps each text preview, in characters (default 60). */
export interface TimelineOptions {
  color: boolean;
  width?: number;
}

type Fields = Record<string, unknown>;

/** Keys shown elsewhere on the line (or always blank after normalization). */
const FRAME_KEYS = new Set(["type", "threadId", "providerThreadId", "scope"]);

function quoted(value: unknown, width: number): string {
  return truncate(JSON.stringify(value) ?? "", width);
}

function itemSummary(item: Fields, width: number): string {
  const parts = [String(item.type ?? "?")];
  if (item.id !== undefined) parts.push(String(item.id));
  if (item.status !== undefined) parts.push(`[${String(item.status)}]`);
  const label = item.tool ?? item.command ?? item.title ?? item.query;
  if (label !== undefined) parts.push(quoted(label, width));
  const text = item.text ?? item.aggregatedOutput;
  if (typeof text === "string" && text !== "") parts.push(quoted(text, width));
  if (item.exitCode !== undefined) parts.push(`exit ${String(item.exitCode)}`);
  if (item.parentToolCallId !== undefined) parts.push(`parent ${String(item.parentToolCallId)}`);
  return parts.join(" ");
}

function eventSummary(event: Fields, width: number): string {
  if (isRecord(event.item)) return itemSummary(event.item, width);
  const parts: string[] = [];
  if (event.itemId !== undefined) parts.push(String(event.itemId));
  if (typeof event.delta === "string") parts.push(quoted(event.delta, width));
  if (parts.length > 0) return parts.join(" ");
  const rest: Fields = {};
  for (const [key, value] of Object.entries(event)) if (!FRAME_KEYS.has(key)) rest[key] = value;
  return Object.keys(rest).length === 0 ? "" : quoted(rest, width);
}

/**
 * Renders `events` as newline-terminated lines: `<position>  <type>  <turn>  <summary>`.
 * The turn column is the event's `scope.turnId`, or `thread` for thread-scoped events.
 */
export function renderTimeline(events: readonly unknown[], options: TimelineOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const width = options.width ?? 60;
  const pad = String(Math.max(0, events.length - 1)).length;
  const typeWidth = Math.min(
    32,
    events.reduce<number>((max, event) => Math.max(max, isRecord(event) ? String(event.type ?? "").length : 0), 0),
  );
  const lines = events.map((event, index) => {
    const position = c.dim(String(index).padStart(pad));
    if (!isRecord(event)) return `${position}  ${c.red(quoted(event, width))}`;
    const type = String(event.type ?? "?");
    const scope = isRecord(event.scope) ? event.scope : undefined;
    const turn = scope?.kind === "turn" ? String(scope.turnId ?? "?") : scope?.kind === "thread" ? "thread" : "-";
    const colour = type.startsWith("turn/") ? c.magenta : type.endsWith("/started") ? c.cyan : type.endsWith("/completed") ? c.green : c.reset;
    return `${position}  ${colour(type.padEnd(typeWidth))}  ${c.dim(turn.padEnd(6))}  ${eventSummary(event, width)}`.trimEnd();
  });
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
