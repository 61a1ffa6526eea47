/**
 * The parity verdict of one cell (docs/design/00-product.md, flow 3; spec 10 §6.3–6.4): the live thread lane
 * against (a) the oracle and (b) the recording's own bridge lane assembled today, after masking
 * both sides with the allowlist entries that apply to the cell. Grammar drops (`rule:eventType`
 * strings, diffed as a sequence) and `provider/unhandled` counts are compared too. An applying
 * entry that masks no difference (on every side it removes exactly what it removes from the live
 * lane, e.g. nothing) is stale and fails the cell.
 */
import { appliesTo, grammarDropOf, type AllowlistEntry } from "./allowlist.js";
import { diffSequences } from "./lcs.js";
import { diffLanes, type LaneDiffLine, type LaneDifference } from "./lane-diff.js";
import { maskLane } from "./mask.js";
import { foldRunToRun, type PrintedOutputs } from "./run-to-run.js";

/** What a compared lane is held against: the committed oracle or the recording's own lane. */
export type ParityAgainst = "oracle" | "recording";

/**
 * One side of a comparison. `events` are NORMALIZED (spec 10 §6.3 steps 1–5, `normalizeThreadLane`)
 * but not masked. `unhandled` is the `provider/unhandled` count and `grammarDrops` the host-grammar
 * drops as `rule:eventType` strings in drop order; either may be absent (e.g. an oracle that
 * stores only events), and then that comparison is skipped for this side.
 */
export interface ParityLeg {
  events: readonly unknown[];
  unhandled?: number;
  grammarDrops?: readonly string[];
}

/** A host-grammar drop as `buildThreadLane` reports it. */
export interface GrammarDropLike {
  rule: string;
  eventType: string;
}

/** Turns grammar drops into the `rule:eventType` strings the parity diff compares (spec 10 §6.3). */
export function grammarDropKeys(drops: readonly GrammarDropLike[]): string[] {
  return drops.map((drop) => `${drop.rule}:${drop.eventType}`);
}

/**
 * One difference of a verdict. `layer` says what differs:
 * - `events`: a lane difference (see `LaneDifference`; `path` points into the lane, old = expected side);
 * - `grammar`: a grammar drop only on one side, `path` = `/grammarDrops/<index on that side>`;
 * - `unhandled`: the `provider/unhandled` counts differ, `path` = `/unhandled`.
 */
export interface ParityDifference extends LaneDifference {
  against: ParityAgainst;
  layer: "events" | "grammar" | "unhandled";
}

/** What was compared against one expected side, for summaries and rendering. */
export interface ParityComparison {
  against: ParityAgainst;
  expectedEvents: number;
  liveEvents: number;
  /**
   * The masked LCS script (one line per event), for a diff with context; empty when the events
   * have no difference (there is nothing to show, and a long equal lane would hold a JSON text
   * per event).
   */
  lines: LaneDiffLine[];
  unhandled: { expected?: number; live?: number };
  grammarDrops: { expected?: readonly string[]; live?: readonly string[] };
}

/** How many values one applying entry masked on each side, and in total. */
export interface MaskedCount<E extends AllowlistEntry> {
  entry: E;
  count: number;
  sides: { live: number; oracle?: number; recording?: number };
  /**
   * True when, against some side, the entry removed different values (or the same values at other
   * places) from the live lane than from that side: it masks a difference. False: stale.
   */
  masksDifference: boolean;
}

/** The verdict of {@link compareParity}. `passed` ⇔ no difference and no stale entry. */
export interface ParityVerdict<E extends AllowlistEntry = AllowlistEntry> {
  provider: string;
  cell: string;
  passed: boolean;
  diffs: ParityDifference[];
  stale: E[];
  masked: MaskedCount<E>[];
  comparisons: ParityComparison[];
}

/** Input of {@link compareParity}. A missing or `null` oracle/recorded side is not compared. */
export interface CompareParityInput<E extends AllowlistEntry> {
  provider: string;
  cell: string;
  live: ParityLeg;
  oracle?: ParityLeg | null;
  recorded?: ParityLeg | null;
  /** Every loaded entry; those that do not apply to (provider, cell) are ignored. */
  allowlist: readonly E[];
  /** The cell's recording directory (absolute), for entries scoped to a recordings root. */
  recordingDir?: string;
  /**
   * Entries whose staleness this cell does not decide: a class-wide entry (`isClassWide`) is stale
   * only when it masks no difference in any cell of the run, which the gate judges once all cells
   * are compared (harness/check/class-wide-stale.ts). Default: every entry is judged here.
   */
  judgedElsewhere?: (entry: E) => boolean;
  /**
   * The oracle was made from another live run of the cell than the recording replayed (a fresh
   * re-record checked against the committed oracles): the live lane and the oracle are compared
   * with the run-to-run rules of `run-to-run.ts` applied to both. The recording's own lane is
   * always compared as it is. Default false.
   */
  oracleFromAnotherRun?: boolean;
  /**
   * What the cell's facts say each command printed (run-to-run.ts `PrintedOutputs`): the reference
   * of the run-to-run rule that recognises a terminal's window of a long output (rule 5). Only
   * read with `oracleFromAnotherRun`. Default: none, and that rule recognises nothing.
   */
  printed?: PrintedOutputs;
}

/**
 * True for an entry that covers a class of cells (`provider` or `cell` is `"*"`): a budget of
 * known differences across cells, judged stale over the whole selection, not per cell (issue 39).
 */
export function isClassWide(entry: AllowlistEntry): boolean {
  return entry.provider === "*" || entry.cell === "*";
}

function compareLegs(
  against: ParityAgainst,
  live: ParityLeg,
  liveMasked: readonly unknown[],
  expected: ParityLeg,
  expectedMasked: readonly unknown[],
): { comparison: ParityComparison; diffs: ParityDifference[] } {
  const laneDiff = diffLanes(expectedMasked, liveMasked, { lines: "if-different" });
  const diffs: ParityDifference[] = laneDiff.differences.map((d) => ({ ...d, against, layer: "events" }));
  diffs.push(...countDifferences(against, live, expected));
  return { comparison: comparisonOf(against, live, expected, live.events.length, expected.events.length, laneDiff.lines), diffs };
}

/** The counts of a leg without its events (a streamed leg's are known once its events are read). */
export type ParityCounts = Omit<ParityLeg, "events">;

/**
 * The differences of the grammar and unhandled layers between an expected and a live leg
 * (see {@link ParityDifference}); either layer is skipped when a side lacks it.
 */
export function countDifferences(against: ParityAgainst, live: ParityCounts, expected: ParityCounts): ParityDifference[] {
  const diffs: ParityDifference[] = [];
  if (expected.grammarDrops && live.grammarDrops) {
    const drops = diffSequences(expected.grammarDrops, live.grammarDrops);
    for (const index of drops.onlyInOld) {
      diffs.push({ against, layer: "grammar", op: "remove", path: `/grammarDrops/${index}`, old: expected.grammarDrops[index] });
    }
    for (const index of drops.onlyInNew) {
      diffs.push({ against, layer: "grammar", op: "add", path: `/grammarDrops/${index}`, new: live.grammarDrops[index] });
    }
  }
  if (expected.unhandled !== undefined && live.unhandled !== undefined && expected.unhandled !== live.unhandled) {
    diffs.push({ against, layer: "unhandled", op: "replace", path: "/unhandled", old: expected.unhandled, new: live.unhandled });
  }
  return diffs;
}

/** The {@link ParityComparison} of one side, given the event counts and the diff script. */
export function comparisonOf(against: ParityAgainst, live: ParityCounts, expected: ParityCounts, liveEvents: number, expectedEvents: number, lines: LaneDiffLine[]): ParityComparison {
  return {
    against,
    expectedEvents,
    liveEvents,
    lines,
    unhandled: { expected: expected.unhandled, live: live.unhandled },
    grammarDrops: { expected: expected.grammarDrops, live: live.grammarDrops },
  };
}

/**
 * Removes the grammar-layer differences the grammar entries name (a drop `rule:eventType` on
 * either side, `grammarDropOf`), and counts per entry what it masked: an entry that masked no
 * drop is stale. Differences of other layers pass through.
 */
export function maskGrammarDrops<E extends AllowlistEntry>(diffs: readonly ParityDifference[], grammarEntries: readonly E[]): { diffs: ParityDifference[]; masked: MaskedCount<E>[] } {
  const masked: MaskedCount<E>[] = grammarEntries.map((entry) => ({ entry, count: 0, sides: { live: 0 }, masksDifference: false }));
  const kept = diffs.filter((diff) => {
    if (diff.layer !== "grammar") return true;
    const drop = String(diff.old ?? diff.new);
    const at = grammarEntries.findIndex((entry) => grammarDropOf(entry.path) === drop);
    if (at < 0) return true;
    const m = masked[at]!;
    m.count += 1;
    m.masksDifference = true;
    if (diff.op === "add") m.sides.live += 1;
    else m.sides[diff.against] = (m.sides[diff.against] ?? 0) + 1;
    return false;
  });
  return { diffs: kept, masked };
}

/** True when two sorted lists of removed values are the same. */
function sameRemoved(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/**
 * Compares one cell (spec 10 §6.3–6.4, docs/design/00-product.md flow 3). Inputs are not modified.
 * Entries apply when provider and cell match (or are `*`); they mask every side in order; the
 * diff runs on the masked lanes. Returns the verdict with every difference, the stale entries,
 * and how much each applying entry masked per side.
 * @throws RangeError only for lanes too large to diff (see `MAX_LCS_CELLS`).
 */
export function compareParity<E extends AllowlistEntry>(input: CompareParityInput<E>): ParityVerdict<E> {
  const applying = input.allowlist.filter(appliesTo(input.provider, input.cell, input.recordingDir));
  // Grammar entries mask drops, not lane values: they never reach maskLane.
  const entries = applying.filter((entry) => entry.layer !== "grammar");
  const grammarEntries = applying.filter((entry) => entry.layer === "grammar");
  const live = maskLane(input.live.events, entries);
  const sides: Array<{ against: ParityAgainst; leg: ParityLeg }> = [];
  if (input.oracle) sides.push({ against: "oracle", leg: input.oracle });
  if (input.recorded) sides.push({ against: "recording", leg: input.recorded });

  const masked: MaskedCount<E>[] = entries.map((entry, index) => ({
    entry,
    count: live.counts[index]!,
    sides: { live: live.counts[index]! },
    masksDifference: false,
  }));
  const diffs: ParityDifference[] = [];
  const comparisons: ParityComparison[] = [];
  // The run-to-run rules (run-to-run.ts) apply to the oracle side of a cross-run check only.
  const acrossRuns = (against: ParityAgainst) => input.oracleFromAnotherRun === true && against === "oracle";
  for (const side of sides) {
    const expected = maskLane(acrossRuns(side.against) ? foldRunToRun(side.leg.events, input.printed) : side.leg.events, entries);
    expected.counts.forEach((count, index) => {
      masked[index]!.sides[side.against] = count;
      masked[index]!.count += count;
      if (!sameRemoved(live.removed[index]!, expected.removed[index]!)) masked[index]!.masksDifference = true;
    });
    const liveLane = acrossRuns(side.against) ? maskLane(foldRunToRun(input.live.events, input.printed), entries).lane : live.lane;
    const result = compareLegs(side.against, input.live, liveLane, side.leg, expected.lane);
    diffs.push(...result.diffs);
    comparisons.push(result.comparison);
  }
  // Stale: the entry masks no difference — every value it selects is equal between the live lane
  // and each side (nothing selected anywhere is the plain case). It would hide a later regression.
  // With no side to compare, an entry that masked something on the live lane is kept.
  if (sides.length === 0) for (const m of masked) m.masksDifference = m.count > 0;
  const grammar = maskGrammarDrops(diffs, grammarEntries);
  masked.push(...grammar.masked);
  const stale = masked.filter((m) => !m.masksDifference && input.judgedElsewhere?.(m.entry) !== true).map((m) => m.entry);
  return {
    provider: input.provider,
    cell: input.cell,
    passed: grammar.diffs.length === 0 && stale.length === 0,
    diffs: grammar.diffs,
    stale,
    masked,
    comparisons,
  };
}
