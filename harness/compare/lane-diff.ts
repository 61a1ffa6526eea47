/**
 * Lane diff (allowlists/README.md, "How lanes are compared"): the two lanes are aligned on event
 * skeletons — each event with its ids abstracted and its keys sorted (skeleton.ts) — with the
 * LCS of spec 10 §6.3; then the ids of aligned events must correspond one to one
 * (id-correspondence.ts). A consistent renumbering (one event added near the start shifts every
 * later `#n`) is no difference, and neither is key order; a broken correspondence is one
 * difference naming both ids. Removed and added events inside one hunk are paired when they are
 * the same kind of event (type, scope kind, item type), and a paired event reports its changed
 * fields (fast-json-patch `compare`) instead of a whole removal and addition. Every difference
 * carries a stable address (address.ts) and the selector an allowlist entry can use.
 */
import jsonpatch from "fast-json-patch";
import { formatAddress, laneAddresses, stableSelector, type EventAddress } from "./address.js";
import { IdCorrespondence, inOldNumbering } from "./id-correspondence.js";
import { diffSequences, type SequenceOp } from "./lcs.js";
import { formatPointer, isIndexSegment, parsePointer } from "./pointer.js";
import { abstractIds, eventKind, skeletonKey } from "./skeleton.js";

/**
 * One line of the diff script: an event present on one or both sides, with its JSON text — the
 * old side's for `equal` and `removed`, the new event in the old side's id numbering for
 * `added` (`#4'` for an id only the new side has).
 */
export type LaneDiffLine =
  { kind: "equal"; oldIndex: number; newIndex: number; text: string } | { kind: "removed"; oldIndex: number; text: string } | { kind: "added"; newIndex: number; text: string };

/**
 * One reported difference. `path` is a JSON pointer into the lane:
 * - `op: "add"` — a whole event only in new, `path` = `/<newIndex>`;
 * - `op: "remove"` — a whole event only in old, `path` = `/<oldIndex>` (old side's position);
 * - `op: "add" | "remove" | "replace"` with a field path `/<newIndex>/…` — a field of a paired
 *   event changed; the path always ends with a field name (trailing array positions are cut,
 *   and the op becomes `replace`), so it is a valid allowlist path;
 * - `op: "replace"` with `ids` — an id whose correspondence broke: `path` is the id field of the
 *   new event, `old`/`new` the two ids, and `ids` says what each was paired with before.
 * `old`/`new` hold the values at the path on each side when present. `address` is the stable
 * address for people (`turn 2 / commandExecution 1 / item/completed: item.exitCode`, of the new
 * side, or of the old side for a removal or a broken id) and `selector` the same place as an allowlist path
 * (`/*[turn=2][item=commandExecution:1][type=item/completed]/item/exitCode`), when one can be written.
 */
export interface LaneDifference {
  op: "add" | "remove" | "replace";
  path: string;
  oldIndex?: number;
  newIndex?: number;
  old?: unknown;
  new?: unknown;
  address?: string;
  selector?: string;
  ids?: { old: string; new: string; oldPairedWith?: string; newPairedWith?: string };
}

/**
 * Result of {@link diffLanes}. `differences` is empty exactly when the lanes are equal.
 * `ops` is the alignment script; `newToOldIds` maps each new-side id to the old-side id it
 * corresponds to (for showing both sides in one numbering).
 */
export interface LaneDiff {
  lines: LaneDiffLine[];
  differences: LaneDifference[];
  ops: SequenceOp[];
  newToOldIds: ReadonlyMap<string, string>;
}

/**
 * Options of {@link diffLanes}: precomputed stable addresses of either lane (`laneAddresses`);
 * `lines: false` leaves `lines` empty (a caller that renders from `ops` saves one JSON text
 * per event, which counts for lanes of tens of thousands of events); `lines: "if-different"`
 * writes them only when there is a difference to show (the parity gate: an equal lane's
 * script would be one JSON text per event, held for nothing).
 */
export interface DiffLanesOptions {
  oldAddresses?: readonly EventAddress[];
  newAddresses?: readonly EventAddress[];
  lines?: boolean | "if-different";
}

/** Pairs removed with added events in order, only when their pairing keys match. */
function pairHunk(removed: number[], added: number[], oldLane: readonly unknown[], newLane: readonly unknown[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const addedKeys = added.map((newIndex) => eventKind(newLane[newIndex]));
  let from = 0;
  for (const oldIndex of removed) {
    const key = eventKind(oldLane[oldIndex]);
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

/**
 * Field-level differences of two paired events, as lane paths under `/<newIndex>`. Ids are
 * compared by correspondence, not here, so both events are compared with their ids abstracted.
 */
function fieldDifferences(oldEvent: unknown, newEvent: unknown, oldIndex: number, newIndex: number): LaneDifference[] {
  const operations = jsonpatch.compare(abstractIds(oldEvent) as object, abstractIds(newEvent) as object);
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
 * Diffs two normalized (and masked) lanes: the LCS script over event skeletons, the id
 * correspondence of aligned events, then per hunk the paired field paths and the unpaired
 * whole-event additions and removals, in script order. Linear space for large lanes (lcs.ts).
 */
export function diffLanes(oldLane: readonly unknown[], newLane: readonly unknown[], options: DiffLanesOptions = {}): LaneDiff {
  // Each distinct skeleton becomes a small number: equal numbers ⇔ equal skeletons, and only the
  // distinct skeleton texts are held while aligning (a long lane repeats most of them).
  const numbers = new Map<string, number>();
  const numberOf = (event: unknown): number => {
    const key = skeletonKey(event);
    let n = numbers.get(key);
    if (n === undefined) numbers.set(key, (n = numbers.size));
    return n;
  };
  const oldKeys = oldLane.map(numberOf);
  const newKeys = newLane.map(numberOf);
  numbers.clear();
  const { ops } = diffSequences(oldKeys, newKeys);
  let oldAddresses = options.oldAddresses;
  let newAddresses = options.newAddresses;
  const locate = (side: "old" | "new", index: number, field: readonly string[]) => {
    const lane = side === "old" ? oldLane : newLane;
    const addresses = side === "old" ? (oldAddresses ??= laneAddresses(oldLane)) : (newAddresses ??= laneAddresses(newLane));
    const address = addresses[index];
    const selector = stableSelector(lane, addresses, index, field);
    return { ...(address !== undefined ? { address: formatAddress(address, field) } : {}), ...(selector !== undefined ? { selector } : {}) };
  };

  const ids = new IdCorrespondence();
  const differences: LaneDifference[] = [];
  const checkIds = (oldIndex: number, newIndex: number) => {
    for (const broken of ids.pair(oldLane[oldIndex], newLane[newIndex])) {
      differences.push({
        op: "replace",
        path: formatPointer([newIndex, ...broken.segments]),
        oldIndex,
        newIndex,
        old: broken.old,
        new: broken.new,
        // The item as it was: on the new side a changed id makes it look like another item.
        ...locate("old", oldIndex, broken.segments),
        ids: {
          old: broken.old,
          new: broken.new,
          ...(broken.oldPairedWith !== undefined ? { oldPairedWith: broken.oldPairedWith } : {}),
          ...(broken.newPairedWith !== undefined ? { newPairedWith: broken.newPairedWith } : {}),
        },
      });
    }
  };
  let at = 0;
  while (at < ops.length) {
    const first = ops[at]!;
    if (first.kind === "equal") {
      checkIds(first.oldIndex, first.newIndex);
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
          differences.push({ op: "remove", path: formatPointer([oldIndex]), oldIndex, old: oldLane[oldIndex], ...locate("old", oldIndex, []) });
          continue;
        }
        const fields = fieldDifferences(oldLane[oldIndex], newLane[newIndex], oldIndex, newIndex);
        for (const field of fields) {
          const segments = parsePointer(field.path).slice(1);
          const there = locate("new", newIndex, segments);
          // A selector masks both sides: offer it only when it names the paired event on each.
          if (there.selector !== undefined && locate("old", oldIndex, segments).selector !== there.selector) delete there.selector;
          Object.assign(field, there);
        }
        differences.push(...fields);
        checkIds(oldIndex, newIndex);
      } else if (op.kind === "added" && !pairedNew.has(op.newIndex)) {
        differences.push({ op: "add", path: formatPointer([op.newIndex]), newIndex: op.newIndex, new: newLane[op.newIndex], ...locate("new", op.newIndex, []) });
      }
    }
  }
  // Unchanged events read as the old side's; added ones in the old side's id numbering, so a
  // consistent renumbering does not show in the script.
  const newToOldIds = ids.newToOldIds();
  const text = (event: unknown) => JSON.stringify(event) ?? "null";
  const lines: LaneDiffLine[] =
    options.lines === false || (options.lines === "if-different" && differences.length === 0)
      ? []
      : ops.map((op: SequenceOp): LaneDiffLine => {
          if (op.kind === "added") return { ...op, text: text(inOldNumbering(newLane[op.newIndex], newToOldIds)) };
          return { ...op, text: text(oldLane[op.oldIndex]) };
        });
  return { lines, differences, ops, newToOldIds };
}
