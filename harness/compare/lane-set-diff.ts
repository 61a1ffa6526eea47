/**
 * Diff of two lane sets (docs/design/00-product.md, flow 5): lanes pair up by `<provider>/<cell>` key; each
 * pair gets its thread diff (`diffLanes`: one entry per change, with stable address and
 * selector, ready to paste into an allowlist entry) and a patch of it (`threadPatch`).
 */
import type { LaneVersions } from "./lane-versions.js";
import { diffLanes, type LaneDiff, type LaneDifference } from "./lane-diff.js";
import { threadPatch } from "./thread-patch.js";
import { readLaneEvents, type LaneSource, type LaneText } from "./lane-sources.js";

/** How a lane differs between the two sides. */
export type LaneChange = "same" | "changed" | "added" | "removed";

/** The difference of one lane key. `a`/`b` are the labels of each side (null when absent). */
export interface LaneSetEntry {
  key: string;
  status: LaneChange;
  a: string | null;
  b: string | null;
  /** Events on each side (0 when absent). */
  events: { a: number; b: number };
  /**
   * The differences from side a to side b (`diffLanes`), one per change: `op`, `path` (JSON
   * pointer), the stable `address` and `selector`, and the `old`/`new` values when present;
   * `ids` for a broken id correspondence. Empty for same/added/removed.
   */
  paths: LaneSetPath[];
  /** The thread patch (`threadPatch`: one line per event, ids in a's numbering); "" when the lanes are the same. */
  patch: string;
  /** The CLI versions behind the lane on each side (lane-versions.ts; null: no lane there), when the caller read them. */
  versions?: { a: LaneVersions | null; b: LaneVersions | null };
  /** Both sides' events and their diff, for renderers (never printed as such). */
  detail?: { a: readonly unknown[]; b: readonly unknown[]; diff: LaneDiff };
}

/** One difference of a changed lane, as `parity diff --json` prints it. */
export interface LaneSetPath {
  op: string;
  path: string;
  address?: string;
  selector?: string;
  old?: unknown;
  new?: unknown;
  ids?: LaneDifference["ids"];
}

/** Result of {@link diffLaneSets}, with counts per status. */
export interface LaneSetDiff {
  entries: LaneSetEntry[];
  counts: Record<LaneChange, number>;
}

/** A lane's events (none for an absent side), parsed once (`readLaneEvents`). */
async function eventsOf(lane: LaneText | undefined): Promise<unknown[]> {
  return lane ? readLaneEvents(lane) : [];
}

/**
 * Pairs lanes of two sources by key. A single file on both sides is one pair whatever the names.
 * `context` is the unified-diff context in lines (default 3). Lanes are read one at a time, in
 * key order, the old side of a pair before the new (issue 25: two 200k-event lanes in ≤ 300 MiB).
 * @throws InputError for a lane file that does not parse.
 */
export async function diffLaneSets(a: LaneSource, b: LaneSource, options: { context?: number } = {}): Promise<LaneSetDiff> {
  const pairOfFiles = a.kind === "file" && b.kind === "file";
  // Two single files pair up whatever their names, under the first file's key.
  const keyOf = (lane: LaneText) => (pairOfFiles ? a.lanes[0]!.key : lane.key);
  const aByKey = new Map<string, LaneText>(a.lanes.map((lane) => [keyOf(lane), lane]));
  const bByKey = new Map<string, LaneText>(b.lanes.map((lane) => [keyOf(lane), lane]));
  const keys = [...new Set([...aByKey.keys(), ...bByKey.keys()])].sort();
  const entries: LaneSetEntry[] = [];
  for (const key of keys) {
    const left = aByKey.get(key);
    const right = bByKey.get(key);
    const leftEvents = await eventsOf(left);
    const rightEvents = await eventsOf(right);
    const status: LaneChange = !left ? "added" : !right ? "removed" : "same";
    const laneDiff = diffLanes(leftEvents, rightEvents, { lines: false });
    const differences = left && right ? laneDiff.differences : [];
    const changed = status !== "same" || differences.length > 0;
    entries.push({
      key,
      status: status === "same" && differences.length > 0 ? "changed" : status,
      a: left?.label ?? null,
      b: right?.label ?? null,
      events: { a: leftEvents.length, b: rightEvents.length },
      paths: differences.map((d) => ({
        op: d.op,
        path: d.path,
        ...(d.address !== undefined ? { address: d.address } : {}),
        ...(d.selector !== undefined ? { selector: d.selector } : {}),
        ...("old" in d ? { old: d.old } : {}),
        ...("new" in d ? { new: d.new } : {}),
        ...(d.ids !== undefined ? { ids: d.ids } : {}),
      })),
      patch: changed
        ? threadPatch(leftEvents, rightEvents, laneDiff, {
            context: options.context ?? 3,
            oldLabel: left ? `a/${key}.json` : "/dev/null",
            newLabel: right ? `b/${key}.json` : "/dev/null",
          })
        : "",
      detail: { a: leftEvents, b: rightEvents, diff: laneDiff },
    });
  }
  const counts: Record<LaneChange, number> = { same: 0, changed: 0, added: 0, removed: 0 };
  for (const entry of entries) counts[entry.status]++;
  return { entries, counts };
}
