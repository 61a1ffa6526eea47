/**
 * The changes of a lane set, grouped for the reviewer's page (`parity diff --html`): the same
 * change in several lanes (same op, event type, item type, field and values — ids abstracted)
 * is one group listing its lanes, with the `parity allow` line of each lane.
 */
import type { LaneDifference } from "../compare/lane-diff.js";
import type { LaneSetDiff } from "../compare/lane-set-diff.js";
import { parsePointer } from "../compare/pointer.js";
import { abstractIds, skeletonKey } from "../compare/skeleton.js";
import { allowCommand, suggestedAllowPath } from "./suggest.js";

/** One lane's occurrence of a grouped change. */
export interface ChangeOccurrence {
  key: string;
  difference: LaneDifference;
  /** The `parity allow` command accepting it in this lane, when one can. */
  allow?: string;
}

/** A change as the page shows it once, with every lane it occurs in. */
export interface ChangeGroup {
  id: string;
  op: LaneDifference["op"] | "id";
  /** `item/completed (commandExecution) · item/exitCode`, or the event type of a whole event. */
  title: string;
  /** The values shown for the group (those of its first occurrence). */
  old?: unknown;
  new?: unknown;
  occurrences: ChangeOccurrence[];
  /** Distinct lane keys, in order. */
  lanes: string[];
}

type Fields = Record<string, unknown>;

function eventOf(lane: readonly unknown[], index: number | undefined): Fields | undefined {
  const event = index === undefined ? undefined : lane[index];
  return typeof event === "object" && event !== null && !Array.isArray(event) ? (event as Fields) : undefined;
}

function kindText(event: Fields | undefined): string {
  if (event === undefined) return "?";
  const item = event.item as Fields | undefined;
  const itemType = typeof item === "object" && item !== null ? item.type : undefined;
  return typeof itemType === "string" ? `${String(event.type)} (${itemType})` : String(event.type ?? "?");
}

/** The grouping signature and title of one difference of a lane (a: old side, b: new side). */
function signature(d: LaneDifference, a: readonly unknown[], b: readonly unknown[]): { sig: string; title: string; op: ChangeGroup["op"] } {
  const segments = parsePointer(d.path);
  const field = segments.slice(1).join("/");
  if (segments.length === 1) {
    const event = d.op === "add" ? d.new : d.old;
    return { sig: JSON.stringify([d.op, skeletonKey(event)]), title: kindText(eventOf([event], 0)), op: d.op };
  }
  const event = eventOf(b, d.newIndex) ?? eventOf(a, d.oldIndex);
  if (d.ids !== undefined) return { sig: JSON.stringify(["id", kindText(event), field]), title: `${kindText(event)} · ${field}`, op: "id" };
  return {
    sig: JSON.stringify([d.op, kindText(event), field, abstractIds(d.old) ?? null, abstractIds(d.new) ?? null]),
    title: `${kindText(event)} · ${field}`,
    op: d.op,
  };
}

/** Groups every difference of the changed lanes of `diff`, in order of first appearance. */
export function groupChanges(diff: LaneSetDiff): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const entry of diff.entries) {
    if (entry.status !== "changed" || entry.detail === undefined) continue;
    const { a, b } = entry.detail;
    const slash = entry.key.indexOf("/");
    const [provider, cell] = slash === -1 ? ["<provider>", entry.key] : [entry.key.slice(0, slash), entry.key.slice(slash + 1)];
    for (const d of entry.detail.diff.differences) {
      const { sig, title, op } = signature(d, a, b);
      let group = groups.get(sig);
      if (group === undefined) {
        group = { id: `change-${groups.size + 1}`, op, title, old: d.old, new: d.new, occurrences: [], lanes: [] };
        groups.set(sig, group);
      }
      const path = suggestedAllowPath(d);
      group.occurrences.push({ key: entry.key, difference: d, ...(path !== undefined ? { allow: allowCommand(provider, cell, path) } : {}) });
      if (!group.lanes.includes(entry.key)) group.lanes.push(entry.key);
    }
  }
  // Changes touching more lanes first: they are what a reviewer reads first.
  return [...groups.values()].sort((x, y) => y.lanes.length - x.lanes.length);
}
