/**
 * What a rerecord takes from one replay of a cell (spec 10 §6.6): how the replay ended, the live
 * bridge output as a positioned `bridge→runtime` lane, and the live thread lane as an oracle holds
 * it. `rerecordCell` gets it from its own replay; the gate (harness/check) keeps it from the
 * replay it already ran for a changed cell, so its pending results need no replay of the cell.
 */
import { grammarDropKeys } from "../compare/parity.js";
import { normalizeThreadLane, serializeThreadLane, type GrammarDrop } from "../lanes/index.js";
import type { ReplayResult } from "../replay/replay-recording.js";

/**
 * The live thread lane of a replay, as the oracle and the gate see it: `text` is the oracle's
 * content (`serializeThreadLane` of the normalized events), `counts` its parity counts in one
 * comparable line, `events` how many events it holds.
 */
export interface LiveThreadLane {
  text: string;
  counts: string;
  events: number;
}

/** One replay of a cell as a rerecord needs it (see the module comment). */
export type ReplayedCell = Pick<ReplayResult, "ok" | "infrastructureTimeout" | "divergences" | "divergenceCount" | "notes" | "bridgeLane"> & {
  live: LiveThreadLane;
};

/** The counts line of {@link LiveThreadLane}: unhandled, then the grammar drops as `rule:eventType` keys. */
function countsLine(unhandled: number, grammarDrops: readonly string[]): string {
  return `${unhandled} unhandled, grammar drops ${grammarDrops.join(",") || "none"}`;
}

/** A thread lane as built (events not normalized yet) in the form of {@link LiveThreadLane}. */
export function liveThreadLaneOf(lane: { events: readonly unknown[]; unhandled: number; grammarDrops: readonly GrammarDrop[] }): LiveThreadLane {
  return { text: serializeThreadLane(normalizeThreadLane(lane.events)), counts: countsLine(lane.unhandled, grammarDropKeys(lane.grammarDrops)), events: lane.events.length };
}

/**
 * A comparison leg (events already normalized, grammar drops as keys: harness/compare
 * `ParityLeg`) in the form of {@link LiveThreadLane}: the same text and counts
 * {@link liveThreadLaneOf} gives for the lane the leg was made from.
 */
export function liveThreadLaneOfLeg(leg: { events: readonly unknown[]; unhandled?: number; grammarDrops?: readonly string[] }): LiveThreadLane {
  return { text: serializeThreadLane(leg.events), counts: countsLine(leg.unhandled ?? 0, leg.grammarDrops ?? []), events: leg.events.length };
}

/** A replay's result as a {@link ReplayedCell} (its thread lane fingerprinted, the rest as it is). */
export function replayedCellOf(result: Pick<ReplayResult, "ok" | "infrastructureTimeout" | "divergences" | "divergenceCount" | "notes" | "bridgeLane" | "lane">): ReplayedCell {
  const { lane, ...rest } = result;
  return {
    ok: rest.ok,
    infrastructureTimeout: rest.infrastructureTimeout,
    divergences: rest.divergences,
    divergenceCount: rest.divergenceCount,
    notes: rest.notes,
    bridgeLane: rest.bridgeLane,
    live: liveThreadLaneOf(lane),
  };
}
