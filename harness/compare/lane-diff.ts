/**
 * Lane diff: the LCS over `JSON.stringify` of each normalized event (spec 10 §6.3) plus the
 * JSON-pointer paths that changed, so a reviewer can paste one into an allowlist entry
 * (00-product.md, flow 5). Removed and added events inside one hunk are paired when they are the
 * same kind of event, and a paired event reports its changed fields (fast-json-patch `compare`)
 * instead of a whole removal and addition.
 */
import jsonpatch from "fast-json-patch";
import { diffSequences, type SequenceOp } from "./lcs.js";
import { formatPointer, isIndexSegment, parsePointer } from "./pointer.js";

/** One line of the diff script: an event present on one or both sides, with its JSON text. */
export type LaneDiffLine =
  | { kind: "equal"; oldIndex: number; newIndex: number; text: string }
  | { kind: "removed"; oldIndex: number; text: string }
  | { kind: "added"; newIndex: number; text: string };

/**
 * One reported difference. `path` is a JSON pointer into the lane:
 * - `op: "add"` — a whole event only in new, `path` = `/<newIndex>`;
 * - `op: "remove"` — a whole event only in old, `path` = `/<oldIndex>` (old side's position);
 * - `op: "add" | "remove" | "replace"` with a field path `/<newIndex>/…` — a field of a paired
 *   event changed; the path always ends with a field name (trailing array positions are cut,
 *   and the op becomes `replace`), so it is a valid allowlist path;
 * - `op: "replace"` with `path` = `/<newIndex>` — paired events equal but for key order (the
 *   diff is key-order sensitive); no allowlist entry can mask that.
 * `old`/`new` hold the values at the path on each side when present.
 */
export interface LaneDifference {
  op: "add" | "remove" | "replace";
  path: string;
  oldIndex?: number;
  newIndex?: number;
  old?: unknown;
  new?: unknown;
}

/** Result of {@link diffLanes}. `differences` is empty exactly when the lanes are equal. */
export interface LaneDiff {
  lines: LaneDiffLine[];
  differences: LaneDifference[];
}

/** A key that says whether two events are "the same kind" and may be paired. */
function pairingKey(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const item = record.item;
  const itemType =
    typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>).type : undefined;
  return JSON.stringify([record.type ?? null, itemType ?? null]);
}

/** Pairs removed with added events in order, only when their pairing keys match. */
function pairHunk(
  removed: number[],
  added: number[],
  oldLane: readonly unknown[],
  newLane: readonly unknown[],
): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const addedKeys = added.map((newIndex) => pairingKey(newLane[newIndex]));
  let from = 0;
  for (const oldIndex of removed) {
    const key = pairingKey(oldLane[oldIndex]);
    if (key === undefined) continue;
    const k = addedKeys.indexOf(key, from);
    if (k !== -1) {
      pairs.push([oldIndex, added[k]!]);
      from = k + 1;
    }
  }
  return pairs;
}

function valueAt(document: unknown, segments: readonly string[]): { found: boolean; value?: unknown } {
  let node: unknown = document;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null) return { found: false };
    if (Array.isArray(node)) {
      if (!isIndexSegment(segment) || Number(segment) >= node.length) return { found: false };
      node = node[Number(segment)];
    } else {
      if (!Object.hasOwn(node, segment)) return { found: false };
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return { found: true, value: node };
}

/** Field-level differences of two paired events, as lane paths under `/<newIndex>`. */
function fieldDifferences(oldEvent: unknown, newEvent: unknown, oldIndex: number, newIndex: number): LaneDifference[] {
  const operations = jsonpatch.compare(oldEvent as object, newEvent as object);
  const seen = new Map<string, LaneDifference>();
  for (const operation of operations) {
    let segments = parsePointer(operation.path);
    let op = operation.op as LaneDifference["op"];
    // A path must end with a field name; an array position is reported as its containing field.
    while (segments.length > 1 && isIndexSegment(segments[segments.length - 1]!)) {
      segments = segments.slice(0, -1);
      op = "replace";
    }
    if (segments.length === 0) continue;
    const path = formatPointer([newIndex, ...segments]);
    const previous = seen.get(path);
    if (previous) {
      previous.op = "replace";
      continue;
    }
    const difference: LaneDifference = { op, path, oldIndex, newIndex };
    const before = valueAt(oldEvent, segments);
    const after = valueAt(newEvent, segments);
    if (before.found) difference.old = before.value;
    if (after.found) difference.new = after.value;
    seen.set(path, difference);
  }
  return [...seen.values()].sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true }));
}

/**
 * Diffs two normalized (and masked) lanes (spec 10 §6.3): the LCS script over
 * `JSON.stringify` of each event, then per hunk the paired field paths and the unpaired
 * whole-event additions and removals, in script order.
 * @throws RangeError from {@link diffSequences} for absurdly large lanes.
 */
export function diffLanes(oldLane: readonly unknown[], newLane: readonly unknown[]): LaneDiff {
  const oldTexts = oldLane.map((event) => JSON.stringify(event) ?? "null");
  const newTexts = newLane.map((event) => JSON.stringify(event) ?? "null");
  const { ops } = diffSequences(oldTexts, newTexts);
  const lines: LaneDiffLine[] = ops.map((op: SequenceOp): LaneDiffLine => {
    if (op.kind === "equal") return { ...op, text: newTexts[op.newIndex]! };
    if (op.kind === "removed") return { ...op, text: oldTexts[op.oldIndex]! };
    return { ...op, text: newTexts[op.newIndex]! };
  });

  const differences: LaneDifference[] = [];
  let at = 0;
  while (at < ops.length) {
    if (ops[at]!.kind === "equal") {
      at++;
      continue;
    }
    const hunkStart = at;
    const removed: number[] = [];
    const added: number[] = [];
    for (; at < ops.length && ops[at]!.kind !== "equal"; at++) {
      const op = ops[at]!;
      if (op.kind === "removed") removed.push(op.oldIndex);
      else if (op.kind === "added") added.push(op.newIndex);
    }
    const pairs = pairHunk(removed, added, oldLane, newLane);
    const pairedOld = new Map(pairs);
    const pairedNew = new Set(pairs.map(([, newIndex]) => newIndex));
    // Report in script order: a paired event where its old side appears, the rest where they are.
    for (let k = hunkStart; k < at; k++) {
      const op = ops[k]!;
      if (op.kind === "removed") {
        const { oldIndex } = op;
        const newIndex = pairedOld.get(oldIndex);
        if (newIndex === undefined) {
          differences.push({ op: "remove", path: formatPointer([oldIndex]), oldIndex, old: oldLane[oldIndex] });
          continue;
        }
        const fields = fieldDifferences(oldLane[oldIndex], newLane[newIndex], oldIndex, newIndex);
        // Equal values with a different key order: only the whole event can name that change.
        if (fields.length === 0) {
          fields.push({ op: "replace", path: formatPointer([newIndex]), oldIndex, newIndex, old: oldLane[oldIndex], new: newLane[newIndex] });
        }
        differences.push(...fields);
      } else if (op.kind === "added" && !pairedNew.has(op.newIndex)) {
        differences.push({ op: "add", path: formatPointer([op.newIndex]), newIndex: op.newIndex, new: newLane[op.newIndex] });
      }
    }
  }
  return { lines, differences };
}
