/**
 * `parity compare <providerA> <providerB>` without its CLI (issue 39): the cells both providers
 * recorded (or the chosen ones), each side's committed oracle folded (`fold.ts`), diffed
 * (`pair-diff.ts`) with causes from the recordings' agent-side lanes (`evidence.ts`), and pair
 * entries applied: an entry masks the differences of its pair, class (and kind, field) in the
 * cells it names, caused by an adapter; it is stale when it masks nothing in any selected cell.
 * With `factsOf`, each side's lane is judged against its cell's facts first (`../truth/judge.ts`),
 * so a difference on a datum a bridge is untrue on is that bridge's (never allowed).
 * Reads `lanes/<p>/<cell>.json` and `recordings/<p>/<cell>/`; writes nothing.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { InputError, UsageError } from "../../errors.js";
import { parseJsonFile } from "../json-file.js";
import type { PairEntry } from "./pair-allowlist.js";
import { judgeTruth } from "../truth/judge.js";
import type { TruthFacts } from "../truth/facts-shape.js";
import { indexAgentSide, readAgentSideLines } from "./evidence.js";
import { foldLane } from "./fold.js";
import { diffPair, type PairDifference, type PairSide } from "./pair-diff.js";

/** Where the two sides live. */
export interface PairCompareInput {
  /** Provider A (the reference side, normally the native bridge) and B. */
  a: string;
  b: string;
  /** `<a>/<b>` as pair entries name it. */
  pair: string;
  /** The oracles directory (`lanes/`) and the recordings root (`recordings/`), absolute. */
  lanesDir: string;
  recordingsDir: string;
  /** Chosen cells (`--cell`); default every cell both have. */
  cells?: readonly string[];
  /** Pair entries to apply (those of other pairs are ignored). */
  entries: readonly PairEntry[];
  /**
   * The facts that judge `provider`'s lane of `cell` (undefined: the cell has none). Each side's
   * lane is then judged (`judgeTruth`), and a difference on a datum the judge finds its bridge
   * untrue on is caused by that bridge, whatever the agent-side search says.
   */
  factsOf?: (provider: string, cell: string) => Promise<TruthFacts | undefined>;
  /** Why a cell one side recorded has no recording on the other (the pair's data, `harness/families/pairs.ts`). */
  unpairedReasons?: Readonly<Record<string, string>>;
}

/** A cell only one side recorded, and why the other has none (when the pair's data says). */
export interface UnpairedCell {
  cell: string;
  /** The side that recorded it. */
  recordedBy: string;
  reason?: string;
}

/** A difference with the entry that allows it, if any. */
export interface JudgedDifference extends PairDifference {
  allowedBy?: { pr: string; reason: string; file: string; index: number };
}

/** The comparison of a pair over its cells. */
export interface PairComparison {
  a: string;
  b: string;
  pair: string;
  cells: string[];
  differences: JudgedDifference[];
  /** Entries of this pair that masked nothing in any selected cell. */
  stale: PairEntry[];
  /** Without `cells`: the cells only one side recorded, sorted (never compared). */
  unpaired: UnpairedCell[];
}

async function cellsOf(lanesDir: string, provider: string): Promise<string[]> {
  try {
    const names = await readdir(path.join(lanesDir, provider));
    return names.filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -".json".length));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

async function readLane(file: string): Promise<unknown[]> {
  const value = parseJsonFile(await readFile(file, "utf8"), file);
  if (!Array.isArray(value)) throw new InputError("a lane file must be a JSON array of events", { file });
  return value;
}

/** True when `entry` covers `difference` (its pair is checked by the caller). */
export function pairEntryMasks(entry: PairEntry, difference: PairDifference): boolean {
  return (
    difference.cause.kind === "adapter" &&
    entry.class === difference.class &&
    (entry.cell === "*" || entry.cell === difference.cell) &&
    (entry.kind === undefined || entry.kind === difference.kind) &&
    (entry.field === undefined || entry.field === difference.field)
  );
}

/**
 * The cells both providers recorded, sorted; with `cells`, those (each must be recorded by both).
 * @throws InputError naming a chosen cell one side lacks.
 */
export async function commonCells(lanesDir: string, a: string, b: string, cells?: readonly string[]): Promise<string[]> {
  const [ca, cb] = await Promise.all([cellsOf(lanesDir, a), cellsOf(lanesDir, b)]);
  const both = ca.filter((cell) => cb.includes(cell)).sort();
  if (cells === undefined) return both;
  for (const cell of cells) {
    if (!both.includes(cell)) {
      const lacking = [ca.includes(cell) ? undefined : a, cb.includes(cell) ? undefined : b].filter((p) => p !== undefined).join(" and ");
      throw new UsageError(`--cell ${cell}: ${lacking} recorded no such cell (cells both have: ${both.join(", ") || "none"})`);
    }
  }
  return [...new Set(cells)].sort();
}

/**
 * Compares the pair over its cells (in cell order, differences in address order).
 * @throws InputError for an unreadable or malformed lane file.
 */
export async function comparePair(input: PairCompareInput): Promise<PairComparison> {
  const cells = await commonCells(input.lanesDir, input.a, input.b, input.cells);
  const entries = input.entries.filter((entry) => entry.pair === input.pair);
  const used = new Set<PairEntry>();
  const differences: JudgedDifference[] = [];
  for (const cell of cells) {
    const side = async (provider: string): Promise<PairSide> => {
      const events = await readLane(path.join(input.lanesDir, provider, `${cell}.json`));
      const agentSide = await readAgentSideLines(path.join(input.recordingsDir, provider, cell));
      const facts = await input.factsOf?.(provider, cell);
      const untruths = facts === undefined ? [] : judgeTruth({ lane: events, facts, agentSide }).findings;
      return { provider, lane: foldLane(events), evidence: indexAgentSide(agentSide), untruths };
    };
    const [a, b] = await Promise.all([side(input.a), side(input.b)]);
    for (const difference of diffPair(cell, { a, b })) {
      const entry = entries.find((e) => pairEntryMasks(e, difference));
      if (entry !== undefined) used.add(entry);
      differences.push(entry === undefined ? difference : { ...difference, allowedBy: { pr: entry.pr, reason: entry.reason, file: entry.source.file, index: entry.source.index } });
    }
  }
  // Over the whole selection: an entry is stale when it masks nothing in any selected cell it
  // names. Without --cell every common cell is selected, so an entry naming a cell the pair does
  // not share (a typo, a cell dropped since) is stale too; with --cell, other cells are not judged.
  const judged = (entry: PairEntry) => entry.cell === "*" || cells.includes(entry.cell) || input.cells === undefined;
  const stale = entries.filter((entry) => !used.has(entry) && judged(entry));
  const unpaired: UnpairedCell[] = [];
  if (input.cells === undefined) {
    const [ca, cb] = await Promise.all([cellsOf(input.lanesDir, input.a), cellsOf(input.lanesDir, input.b)]);
    const one = (cell: string, recordedBy: string): UnpairedCell => {
      const reason = input.unpairedReasons?.[cell];
      return { cell, recordedBy, ...(reason !== undefined ? { reason } : {}) };
    };
    for (const cell of ca.filter((c) => !cb.includes(c))) unpaired.push(one(cell, input.a));
    for (const cell of cb.filter((c) => !ca.includes(c))) unpaired.push(one(cell, input.b));
    unpaired.sort((x, y) => x.cell.localeCompare(y.cell));
  }
  return { a: input.a, b: input.b, pair: input.pair, cells, differences, stale, unpaired };
}
