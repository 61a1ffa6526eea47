/**
 * Diff of two lane sets (00-product.md, flow 5): lanes pair up by `<provider>/<cell>` key; each
 * pair gets a unified text diff of the serialized lanes (the `diff` package) and the changed
 * JSON-pointer paths (`diffLanes`), ready to paste into an allowlist entry.
 */
import { createTwoFilesPatch } from "diff";
import { serializeThreadLane } from "../lanes/normalize.js";
import { diffLanes, type LaneDifference } from "./lane-diff.js";
import { parseLaneText, type LaneSource, type LaneText } from "./lane-sources.js";

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
  /** Unified diff of the serialized lanes; "" when the lanes are the same. */
  patch: string;
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

/**
 * The serialized form a lane diff is shown in: `serializeThreadLane` (the oracle's own form:
 * two-space JSON, key order kept, final newline), so a changed field is one changed line.
 */
export function serializeForDiff(events: readonly unknown[]): string {
  return serializeThreadLane(events);
}

/**
 * Pairs lanes of two sources by key. A single file on both sides is one pair whatever the names.
 * `context` is the unified-diff context in lines (default 3).
 * @throws InputError for a lane file that does not parse.
 */
export function diffLaneSets(a: LaneSource, b: LaneSource, options: { context?: number } = {}): LaneSetDiff {
  const pairOfFiles = a.kind === "file" && b.kind === "file";
  // Two single files pair up whatever their names, under the first file's key.
  const keyOf = (lane: LaneText) => (pairOfFiles ? a.lanes[0]!.key : lane.key);
  const aByKey = new Map<string, LaneText>(a.lanes.map((lane) => [keyOf(lane), lane]));
  const bByKey = new Map<string, LaneText>(b.lanes.map((lane) => [keyOf(lane), lane]));
  const keys = [...new Set([...aByKey.keys(), ...bByKey.keys()])].sort();
  const entries = keys.map((key): LaneSetEntry => {
    const left = aByKey.get(key);
    const right = bByKey.get(key);
    const leftEvents = left ? parseLaneText(left.text, left.label).events : [];
    const rightEvents = right ? parseLaneText(right.text, right.label).events : [];
    const status: LaneChange = !left ? "added" : !right ? "removed" : "same";
    const differences = left && right ? diffLanes(leftEvents, rightEvents).differences : [];
    const leftText = left ? serializeForDiff(leftEvents) : "";
    const rightText = right ? serializeForDiff(rightEvents) : "";
    const changed = status !== "same" || differences.length > 0;
    return {
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
        ? createTwoFilesPatch(left ? `a/${key}.json` : "/dev/null", right ? `b/${key}.json` : "/dev/null", leftText, rightText, undefined, undefined, {
            context: options.context ?? 3,
          })
        : "",
    };
  });
  const counts: Record<LaneChange, number> = { same: 0, changed: 0, added: 0, removed: 0 };
  for (const entry of entries) counts[entry.status]++;
  return { entries, counts };
}
