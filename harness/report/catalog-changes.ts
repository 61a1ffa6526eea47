/**
 * Catalog changes of a run, each once per provider (issue 41 build point 5). An agent's catalogs —
 * the slash commands it offers (`bb/provider-commands`), its modes, models and config options
 * (`bb/session-options`) — change with its releases and are sent at the start of every session,
 * so they sit in every thread lane of the provider: an upgrade that adds one command changes every
 * cell's lane the same way. Each cell still fails (its oracle no longer says what the agent said:
 * a bridge never drops a catalog, and the gate never masks one), but the reports name such a
 * change once, with the cells it appears in, as `parity drift` names a change, and a cell's own
 * block points at it instead of repeating it.
 *
 * Pure, over the cells' report differences (`CellReport.diffs`, check-report.ts), so a merged report of shards
 * (harness/report/blob.ts) finds the same changes as one run.
 */
import { keyedListChange } from "../compare/lane-drift.js";

/** What this module reads of a report difference (check-report.ts `ReportDiff`; declared here, as check-report.ts imports this module). */
export interface CatalogDiff {
  against: string;
  op: string;
  path: string;
  layer?: string;
  address?: string;
  selector?: string;
  old?: unknown;
  new?: unknown;
}

/** What this module reads of a cell's report (check-report.ts `CellReport`). */
export interface CatalogCell {
  provider: string;
  cell: string;
  status: string;
  diffs: readonly CatalogDiff[];
}

/** The thread-lane extension kinds that carry an agent's catalogs (the ACP bridges; the native bridges pass none to the thread). */
export const CATALOG_KINDS: readonly string[] = ["bb/provider-commands", "bb/session-options"];

/** One catalog change found the same in several cells of one provider. */
export interface CatalogChange {
  provider: string;
  /** The expected side the cells' live lanes were compared against (`oracle`, `recording`). */
  against: string;
  op: string;
  /** Where, as the cells' differences name it, without the turn and occurrence numbers: `thread / thread/extensionState/updated [bb/provider-commands]: payload.commands`. */
  where: string;
  /** When the values are lists of named things: their entries added, changed and removed (`+ name=ultrareview`); else absent and `old`/`new` say it. */
  entries?: string[];
  old?: unknown;
  new?: unknown;
  /** The cells it appears in, in run order (at least two). */
  cells: string[];
}

const CATALOG_AT = new RegExp(`\\[(?:kind=)?(${CATALOG_KINDS.map((k) => k.replace(/[/-]/g, "\\$&")).join("|")})\\]`);

/** Whether a difference is in a catalog event (by its stable address or selector). */
export function isCatalogDifference(d: Pick<CatalogDiff, "address" | "selector">): boolean {
  return CATALOG_AT.test(d.address ?? "") || CATALOG_AT.test(d.selector ?? "");
}

/** The place of a difference without its turn and occurrence numbers. */
function placeOf(d: CatalogDiff): string {
  return (d.address ?? d.path).replace(/^turn \d+ \/ /, "").replace(/ #\d+/g, "");
}

/** The grouping key of a catalog difference within its provider: side, op, place and the change (its keyed entries, else its values). */
export function catalogKey(d: CatalogDiff): string {
  const entries = keyedListChange(d.old, d.new);
  return JSON.stringify([d.against, d.op, placeOf(d), entries ?? [d.old ?? null, d.new ?? null]]);
}

/**
 * The catalog changes of `cells` that appear in at least two cells of the same provider (failing
 * or untrue cells; an event layer difference), once each, by provider in run order then by how
 * many cells show them.
 */
export function catalogChanges(cells: readonly CatalogCell[]): CatalogChange[] {
  const groups = new Map<string, CatalogChange>();
  for (const cell of cells) {
    if (cell.status !== "fail" && cell.status !== "untrue") continue;
    for (const d of cell.diffs) {
      if ((d.layer ?? "events") !== "events" || !isCatalogDifference(d)) continue;
      const key = `${cell.provider}\u0000${catalogKey(d)}`;
      let group = groups.get(key);
      if (group === undefined) {
        const entries = keyedListChange(d.old, d.new);
        group = {
          provider: cell.provider,
          against: d.against,
          op: d.op,
          where: placeOf(d),
          ...(entries !== undefined ? { entries } : { ...("old" in d ? { old: d.old } : {}), ...("new" in d ? { new: d.new } : {}) }),
          cells: [],
        };
        groups.set(key, group);
      }
      if (!group.cells.includes(cell.cell)) group.cells.push(cell.cell);
    }
  }
  const providers = [...new Set(cells.map((c) => c.provider))];
  return [...groups.values()].filter((g) => g.cells.length > 1).sort((a, b) => providers.indexOf(a.provider) - providers.indexOf(b.provider) || b.cells.length - a.cells.length);
}

/** The catalog change of `changes` a cell's difference belongs to, or undefined. */
export function catalogChangeOf(changes: readonly CatalogChange[], provider: string, cell: string, d: CatalogDiff): CatalogChange | undefined {
  if (!isCatalogDifference(d)) return undefined;
  const key = catalogKey(d);
  return changes.find((c) => c.provider === provider && c.cells.includes(cell) && JSON.stringify([c.against, c.op, c.where, c.entries ?? [c.old ?? null, c.new ?? null]]) === key);
}
