/**
 * One changed lane as a thread for the reviewer's page (`parity diff --html`): its turns, and in
 * each turn its items in order as a runtime shows them (type, label, status), built from the
 * thread diff's script. Changed items are open and list their changed fields with word-level
 * highlighting; unchanged items are one collapsed line, and runs of them one collapsed group.
 */
import { diffWordsWithSpace } from "diff";
import { laneAddresses, type EventAddress } from "../compare/address.js";
import type { LaneDifference, LaneDiff } from "../compare/lane-diff.js";
import { parsePointer } from "../compare/pointer.js";
import { isRecord } from "../../stack/protocol/json-value.js";
import { visible } from "./visible.js";

/**
 * Escapes text for HTML element content and double-quoted attributes; a direction override or
 * other invisible steering character from a file is shown as `\uXXXX` (harness/report/visible.ts),
 * so it cannot reorder what the reviewer reads.
 */
export function escapeHtml(text: string): string {
  return visible(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

type Fields = Record<string, unknown>;

const MAX_VALUE_CHARS = 4000;

function valueText(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = typeof value === "string" ? value : (JSON.stringify(value, null, 1)?.replace(/\n\s*/g, " ") ?? "null");
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/**
 * Two rows, old and new, with the words that differ marked (`<del>` in the old row, `<ins>` in
 * the new one); one row when the value exists on one side only.
 */
export function wordDiffHtml(oldValue: unknown, newValue: unknown): string {
  if (oldValue === undefined) return `<div class="val new">+ <ins>${escapeHtml(valueText(newValue))}</ins></div>`;
  if (newValue === undefined) return `<div class="val old">− <del>${escapeHtml(valueText(oldValue))}</del></div>`;
  const parts = diffWordsWithSpace(valueText(oldValue), valueText(newValue));
  const side = (keep: "removed" | "added", tag: "del" | "ins") =>
    parts
      .filter((p) => !(keep === "removed" ? p.added : p.removed))
      .map((p) => ((keep === "removed" ? p.removed : p.added) ? `<${tag}>${escapeHtml(p.value)}</${tag}>` : escapeHtml(p.value)))
      .join("");
  return `<div class="val old">− ${side("removed", "del")}</div><div class="val new">+ ${side("added", "ins")}</div>`;
}

/** One event as the thread view holds it. */
interface Row {
  event: Fields;
  status: "same" | "changed" | "added" | "removed";
  /** Field and id differences of a changed (paired) event. */
  changes: LaneDifference[];
  /** Whole-event difference of an added or removed event. */
  whole?: LaneDifference;
  address: EventAddress | undefined;
}

interface ItemBlock {
  key: string;
  rows: Row[];
}

interface TurnBlock {
  key: string;
  items: Map<string, ItemBlock>;
}

/** The script's events in order, each with its status and differences. */
function rows(a: readonly unknown[], b: readonly unknown[], diff: LaneDiff): Row[] {
  const aAddr = laneAddresses(a);
  const bAddr = laneAddresses(b);
  const fieldsByNew = new Map<number, LaneDifference[]>();
  const pairedOld = new Set<number>();
  const wholeAdded = new Map<number, LaneDifference>();
  const wholeRemoved = new Map<number, LaneDifference>();
  for (const d of diff.differences) {
    const whole = parsePointer(d.path).length === 1 && d.ids === undefined;
    if (whole && d.op === "add" && d.newIndex !== undefined) wholeAdded.set(d.newIndex, d);
    else if (whole && d.op === "remove" && d.oldIndex !== undefined) wholeRemoved.set(d.oldIndex, d);
    else if (d.newIndex !== undefined) {
      fieldsByNew.set(d.newIndex, [...(fieldsByNew.get(d.newIndex) ?? []), d]);
      if (d.oldIndex !== undefined) pairedOld.add(d.oldIndex);
    }
  }
  const out: Row[] = [];
  for (const op of diff.ops) {
    if (op.kind === "removed") {
      if (pairedOld.has(op.oldIndex)) continue;
      const event = a[op.oldIndex];
      if (isRecord(event)) out.push({ event, status: "removed", changes: [], whole: wholeRemoved.get(op.oldIndex), address: aAddr[op.oldIndex] });
      continue;
    }
    const event = b[op.newIndex];
    if (!isRecord(event)) continue;
    const changes = fieldsByNew.get(op.newIndex) ?? [];
    const whole = wholeAdded.get(op.newIndex);
    const status = whole !== undefined ? "added" : changes.length > 0 ? "changed" : "same";
    out.push({ event, status, changes, whole, address: bAddr[op.newIndex] });
  }
  return out;
}

function turnKey(address: EventAddress | undefined): string {
  if (address?.turn === undefined) return "-";
  return address.turn === "thread" ? "thread" : `turn ${address.turn}`;
}

/** The item an event belongs to (`agentMessage 2`), or for an event outside items its type, kind and number. */
function itemKey(row: Row): string {
  const item = row.address?.item;
  if (item !== undefined) return `${item.type} ${item.ordinal}`;
  const kind = row.address?.kind !== undefined ? ` [${row.address.kind}]` : "";
  return `${String(row.event.type)}${kind}${row.address && row.address.of > 1 ? ` #${row.address.n}` : ""}`;
}

/** Groups rows into turns (consecutive rows of one turn) and items (by first appearance in the turn). */
function blocks(list: readonly Row[]): TurnBlock[] {
  const turns: TurnBlock[] = [];
  for (const row of list) {
    const key = turnKey(row.address);
    let turn = turns[turns.length - 1];
    if (turn === undefined || turn.key !== key) turns.push((turn = { key, items: new Map() }));
    const k = itemKey(row);
    const item = turn.items.get(k) ?? { key: k, rows: [] };
    item.rows.push(row);
    turn.items.set(k, item);
  }
  return turns;
}

function preview(value: unknown, chars = 90): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/** What a runtime would show for an item: its type, a label (tool, command, text) and its status. */
function itemSummary(item: ItemBlock): string {
  const last = [...item.rows].reverse().find((r) => isRecord(r.event.item))?.event.item as Fields | undefined;
  const deltas = item.rows.map((r) => (typeof r.event.delta === "string" ? r.event.delta : "")).join("");
  if (last === undefined) {
    const type = item.key;
    const status = item.rows.map((r) => r.event.status).find((s) => typeof s === "string");
    return `<span class="kind">${escapeHtml(type)}</span>${status !== undefined ? ` <span class="status">${escapeHtml(String(status))}</span>` : ""}${deltas !== "" ? ` <span class="label">${escapeHtml(preview(deltas))}</span>` : ""}`;
  }
  const label = last.tool ?? last.command ?? last.title ?? last.label ?? last.query ?? (typeof last.text === "string" && last.text !== "" ? last.text : deltas || undefined);
  const status = typeof last.status === "string" ? ` <span class="status">${escapeHtml(last.status)}</span>` : "";
  const exit = last.exitCode !== undefined && last.exitCode !== null ? ` <span class="status">exit ${escapeHtml(String(last.exitCode))}</span>` : "";
  return `<span class="kind">${escapeHtml(String(last.type ?? "item"))}</span>${label !== undefined ? ` <span class="label">${escapeHtml(preview(label))}</span>` : ""}${status}${exit}`;
}

function fieldName(d: LaneDifference): string {
  return parsePointer(d.path).slice(1).join(".");
}

function rowHtml(row: Row, anchors: ReadonlyMap<LaneDifference, string>): string {
  const type = escapeHtml(String(row.event.type ?? "?"));
  if (row.status === "added" || row.status === "removed") {
    const id = row.whole !== undefined ? anchors.get(row.whole) : undefined;
    const sign = row.status === "added" ? "+" : "−";
    const where = row.whole !== undefined ? ` <span class="ptr">${escapeHtml(`${row.whole.address !== undefined ? `${row.whole.address} · ` : ""}${row.whole.path}`)}</span>` : "";
    return `<li class="ev ${row.status}"${id !== undefined ? ` id="${id}"` : ""}><span class="op">${sign} ${row.status} event</span> <code>${type}</code>${where}<pre>${escapeHtml(JSON.stringify(row.event, null, 2))}</pre></li>`;
  }
  if (row.status === "changed") {
    const changes = row.changes
      .map((d) => {
        const id = anchors.get(d);
        const name = d.ids !== undefined ? `${fieldName(d)} (id correspondence)` : fieldName(d);
        const values =
          d.ids !== undefined
            ? `<div class="val">id ${escapeHtml(d.ids.old)} became ${escapeHtml(d.ids.new)}${d.ids.oldPairedWith !== undefined ? `; elsewhere ${escapeHtml(d.ids.old)} is ${escapeHtml(d.ids.oldPairedWith)}` : ""}</div>`
            : wordDiffHtml(d.old, d.new);
        const where = `${d.address !== undefined ? `${d.address} · ` : ""}${d.path}`;
        return `<div class="change"${id !== undefined ? ` id="${id}"` : ""}><span class="op">${escapeHtml(d.op)}</span> <code>${escapeHtml(name)}</code> <span class="ptr">${escapeHtml(where)}</span>${values}</div>`;
      })
      .join("");
    return `<li class="ev changed"><code>${type}</code>${changes}</li>`;
  }
  return `<li class="ev same"><code>${type}</code></li>`;
}

function itemHtml(item: ItemBlock, anchors: ReadonlyMap<LaneDifference, string>): string {
  const changed = item.rows.some((r) => r.status !== "same");
  const cls = changed ? (item.rows.every((r) => r.status === "added") ? "added" : item.rows.every((r) => r.status === "removed") ? "removed" : "changed") : "same";
  const events = `<ul class="events">${item.rows.map((r) => rowHtml(r, anchors)).join("")}</ul>`;
  const isItem = item.rows[0]?.address?.item !== undefined;
  const ord = isItem ? `<span class="ord">${escapeHtml(item.key.replace(/^\S+ /, "#"))}</span> ` : "";
  return `<details class="item ${cls}"${changed ? " open" : ""}><summary>${ord}${itemSummary(item)} <span class="count">${item.rows.length} event${item.rows.length === 1 ? "" : "s"}</span></summary>${events}</details>`;
}

/**
 * The thread view of one changed lane: per turn a heading and its items, runs of more than two
 * unchanged items collapsed into one line. `anchors` gives the element id of each difference
 * (for links from the grouped changes).
 */
export function threadHtml(a: readonly unknown[], b: readonly unknown[], diff: LaneDiff, anchors: ReadonlyMap<LaneDifference, string>): string {
  const out: string[] = [];
  for (const turn of blocks(rows(a, b, diff))) {
    out.push(`<div class="turn"><h4>${escapeHtml(turn.key === "-" ? "outside any turn" : turn.key)}</h4>`);
    let unchanged: ItemBlock[] = [];
    const flush = () => {
      if (unchanged.length > 2) {
        out.push(`<details class="run"><summary>${unchanged.length} unchanged items</summary>${unchanged.map((i) => itemHtml(i, anchors)).join("")}</details>`);
      } else out.push(...unchanged.map((i) => itemHtml(i, anchors)));
      unchanged = [];
    };
    for (const item of turn.items.values()) {
      if (item.rows.every((r) => r.status === "same")) unchanged.push(item);
      else {
        flush();
        out.push(itemHtml(item, anchors));
      }
    }
    flush();
    out.push("</div>");
  }
  return out.join("\n");
}
