/**
 * Lane drift (issue 41): how a provider's thread lanes changed between two sets of recordings,
 * each change once, with the cells it appears in. Lists of named things (a model catalog, a
 * command list) are compared by their key (`id`, `value` or `name`), so an inserted entry is one
 * insertion rather than a run of position-by-position replaces.
 */
import { diffLanes } from "./lane-diff.js";
import { foldRunToRun, RUN_TO_RUN_RULES, type PrintedOutputs } from "./run-to-run.js";

const LIST_KEYS = ["id", "value", "name"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `value` with every array of objects that share a unique string key (`id`, else `value`, else
 * `name`: a select option's value is its identity, its name a label) turned into an object keyed `<key>=<value>`, recursively; anything else unchanged. Pure.
 */
export function keyedLists(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(keyedLists);
    if (items.length > 1 && items.every(isRecord)) {
      for (const key of LIST_KEYS) {
        const names = items.map((item) => (item as Record<string, unknown>)[key]);
        if (names.every((n) => typeof n === "string") && new Set(names).size === names.length) {
          return Object.fromEntries(items.map((item, i) => [`${key}=${names[i] as string}`, item]));
        }
      }
    }
    return items;
  }
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keyedLists(v)]));
}

/** One change of the lanes, found in `cells`. */
export interface LaneChange {
  op: "add" | "remove" | "replace";
  /** Where, as the thread diff names it (its stable address without the turn number, else the path). */
  where: string;
  old?: unknown;
  new?: unknown;
  cells: string[];
}

/**
 * The changes from each cell's `from` lane to its `to` lane (normalized thread lanes), grouped:
 * the same change (op, place, values) in several cells is one entry naming them all. Sorted by
 * how many cells show it, then by place.
 */
export function laneDrift(pairs: ReadonlyArray<{ cell: string; from: readonly unknown[]; to: readonly unknown[] }>): LaneChange[] {
  const groups = new Map<string, LaneChange>();
  for (const { cell, from, to } of pairs) {
    const diff = diffLanes(from.map(keyedLists), to.map(keyedLists));
    for (const d of diff.differences) {
      const where = (d.address ?? d.path).replace(/^turn \d+ \/ /, "");
      const key = JSON.stringify([d.op, where, d.old ?? null, d.new ?? null]);
      const group = groups.get(key) ?? { op: d.op, where, ...("old" in d ? { old: d.old } : {}), ...("new" in d ? { new: d.new } : {}), cells: [] };
      if (!group.cells.includes(cell)) group.cells.push(cell);
      groups.set(key, group);
    }
  }
  return [...groups.values()].sort((a, b) => b.cells.length - a.cells.length || a.where.localeCompare(b.where));
}

/**
 * Two values of one place as a change of a keyed list ({@link keyedLists}): the entries added
 * (`+ name=ultrareview`), removed (`- …`) and changed (`~ …`), in the new list's order then the
 * removed ones, e.g. `+ name=ultrareview`; undefined when either value is not a list keyed the
 * same way, or nothing differs by key. Pure; for reports, so an inserted entry reads as one.
 */
export function keyedListChange(oldValue: unknown, newValue: unknown): string[] | undefined {
  if (!Array.isArray(oldValue) || !Array.isArray(newValue)) return undefined;
  const a = keyedLists(oldValue);
  const b = keyedLists(newValue);
  if (!isRecord(a) || !isRecord(b)) return undefined;
  const keyOf = (k: string) => k.slice(0, k.indexOf("="));
  const keys = [...Object.keys(a), ...Object.keys(b)];
  if (new Set(keys.map(keyOf)).size !== 1) return undefined;
  const out: string[] = [];
  for (const k of Object.keys(b)) {
    if (!Object.hasOwn(a, k)) out.push(`+ ${k}`);
    else if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(`~ ${k}`);
  }
  for (const k of Object.keys(a)) if (!Object.hasOwn(b, k)) out.push(`- ${k}`);
  return out.length > 0 ? out : undefined;
}

/** A run-to-run rule that held differences between two runs, once, with the cells it held them in. */
export interface HeldByRule {
  /** The rule's number in harness/compare/run-to-run.ts (1–6). */
  rule: number;
  /** The rule as the check report names it (`RUN_TO_RUN_RULES`). */
  name: string;
  cells: string[];
}

/** One cell's two lanes of two live runs, and rule 5's reference (its facts' printed outputs; cross-run.ts builds it). */
export interface CrossRunPair {
  cell: string;
  from: readonly unknown[];
  to: readonly unknown[];
  printed?: PrintedOutputs;
}

/**
 * Lane drift between two live runs (`record --repeat`, `drift`): each side folded with the
 * run-to-run rules (run-to-run.ts) before {@link laneDrift}, so what a run's scheduling decides
 * is no change; and which rules held a difference, each once with its cells, so a report can say
 * what varied by a known rule (a qwen-code long-output window) apart from what varied otherwise.
 * A rule held a difference in a cell when the two lanes folded without it differ in more places
 * than folded with every rule.
 */
export function laneDriftAcrossRuns(pairs: readonly CrossRunPair[]): { changes: LaneChange[]; held: HeldByRule[] } {
  const differences = (from: readonly unknown[], to: readonly unknown[]) => diffLanes(from.map(keyedLists), to.map(keyedLists)).differences.length;
  const held = new Map<number, string[]>();
  const folded = pairs.map(({ cell, from, to, printed }) => {
    const lanes = { cell, from: foldRunToRun(from, printed), to: foldRunToRun(to, printed) };
    if (JSON.stringify(from) !== JSON.stringify(to)) {
      const left = differences(lanes.from, lanes.to);
      RUN_TO_RUN_RULES.forEach((_, i) => {
        if (differences(foldRunToRun(from, printed, i + 1), foldRunToRun(to, printed, i + 1)) > left) held.set(i + 1, [...(held.get(i + 1) ?? []), cell]);
      });
    }
    return lanes;
  });
  return {
    changes: laneDrift(folded),
    held: [...held.entries()].sort(([a], [b]) => a - b).map(([rule, cells]) => ({ rule, name: RUN_TO_RUN_RULES[rule - 1]!, cells: [...new Set(cells)].sort() })),
  };
}
