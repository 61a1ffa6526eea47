/**
 * The truth check of one replayed cell (issue 37, build point 2): its live thread lane judged
 * against its cell's facts (`judgeTruth`), the untruths masked by the truth allowlist entries that
 * apply, and the cell's truth report. No process and no replay: the facts were read once per file
 * before the run (cell-facts.ts) and the agent-side lines come from the recording the replay
 * already read (a streamed one's two agent-side files are read here, only when it has facts).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { AgentSideLine } from "../compare/truth/evidence.js";
import { judgeTruth } from "../compare/truth/judge.js";
import { maskTruth, type LoadedTruthEntry, type MaskedTruth } from "../compare/truth/truth-allowlist.js";
import { laneFileName, type Direction } from "../recording/lane-names.js";
import { compareLaneEntries, type LaneEntry } from "../recording/lane-entry.js";
import { readLaneEntries, type Recording } from "../recording/reader.js";
import type { CellTruthReport } from "../report/check-report.js";
import type { CellFactsState } from "./cell-facts.js";
import type { TruthOutcome } from "./cell-status.js";

const AGENT_SIDE: readonly Direction[] = ["provider→bridge", "bridge→provider"];

/**
 * The agent-side lines of a recording in `(run, seq)` order: from a held recording's lanes, or
 * (`recording` undefined: a streamed one) read from its directory when asked.
 */
export function agentSideOf(recording: Pick<Recording, "lanes"> | undefined, dir: string): () => Promise<AgentSideLine[]> {
  const held = recording === undefined ? undefined : AGENT_SIDE.flatMap((d) => recording.lanes[d]);
  return async () => {
    let entries: LaneEntry[];
    if (held !== undefined) entries = held;
    else {
      entries = [];
      for (const d of AGENT_SIDE) {
        const file = path.join(dir, laneFileName(d));
        if (!existsSync(file)) continue;
        for await (const { entry } of readLaneEntries(file, d)) entries.push(entry);
      }
    }
    return [...entries].sort(compareLaneEntries).map((e) => ({ dir: e.dir as AgentSideLine["dir"], seq: e.seq, line: e.line }));
  };
}

/** The truth of one cell: its report, its outcome for the status table, and the entries that applied (for stale entries over the run). */
export interface CellTruth {
  report: CellTruthReport;
  outcome: TruthOutcome;
  entries: MaskedTruth["entries"];
}

/**
 * Judges one cell's live lane (`events`, normalized) against `facts`.
 * @param at the cell, and its recording directory (entries scoped to a recordings root apply by it)
 */
export async function cellTruth(
  facts: CellFactsState,
  events: () => Promise<readonly unknown[]>,
  agentSide: () => Promise<AgentSideLine[]>,
  entries: readonly LoadedTruthEntry[],
  at: { provider: string; cell: string; recordingDir: string; cwd: string; bridgeUntruths?: "fail" | "warn" },
): Promise<CellTruth> {
  if (facts.state === "none") return { report: { facts: "none", note: facts.why, findings: [], masked: 0, table: [] }, outcome: "unjudged", entries: [] };
  const file = path.relative(at.cwd, facts.file) || facts.file;
  if (facts.state === "missing") {
    return {
      report: { facts: "missing", file, note: `missing facts ${file}: the cell has facts, this provider's are expected (parity facts --cell ${at.cell})`, findings: [], masked: 0, table: [] },
      outcome: "untrue",
      entries: [],
    };
  }
  const verdict = judgeTruth({ lane: await events(), facts: facts.facts, agentSide: await agentSide() });
  const masked = maskTruth(verdict.findings, verdict.judged, entries, at);
  const allowed = new Set(masked.masked.map((f) => f.fact));
  // Under `warn`, an untruth of our bridge is listed and counted but fails nothing (defaults.ts BRIDGE_UNTRUTHS).
  const warned = at.bridgeUntruths === "warn" ? masked.findings.filter((f) => f.cause === "bridge").length : 0;
  return {
    report: {
      facts: "judged",
      file,
      findings: masked.findings,
      masked: masked.masked.length,
      ...(warned > 0 ? { warned } : {}),
      table: verdict.judged.map((j) => (allowed.has(j.fact) ? { ...j, allowed: true as const } : j)),
    },
    outcome: masked.findings.length > warned ? "untrue" : "true",
    entries: masked.entries,
  };
}
