/**
 * A recording's agent-side lanes as evidence for `parity compare` (issue 39): every leaf value
 * the agent sent (`provider→bridge`) or was answered (`bridge→provider`), with the line's `seq`
 * and the value's JSON path, so a difference can say whether the bridge had the datum and where.
 * Strings that hold JSON (an agent's tool result often does) are searched inside too.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { isRecord } from "../../../stack/protocol/json-value.js";
import { compareLaneEntries, type LaneEntry } from "../../recording/lane-entry.js";
import { laneFileName, type Direction } from "../../recording/lane-names.js";
import { readLaneEntries } from "../../recording/reader.js";
import { evidenceIndex, type AgentSideLine, type Evidence as FoundValue } from "../truth/evidence.js";

/** The direction of an agent-side line. */
export type AgentSideDir = AgentSideLine["dir"];

const AGENT_SIDE: readonly Direction[] = ["provider→bridge", "bridge→provider"];

/** One leaf value of an agent-side line, as a test sees it. */
export interface EvidenceLeaf {
  dir: AgentSideDir;
  /** JSON path in the line, e.g. `$.params.update.rawOutput.exit_code`. */
  path: string;
  /** The last key on the path (`exit_code`; an array element has its array's key); `""` for a whole line. */
  key: string;
  value: string | number | boolean | null;
}

/** Where a datum was found: `seq 44 (provider→bridge) $.params.update.rawOutput.cwd`. */
export interface EvidenceHit {
  dir: AgentSideDir;
  seq: number;
  path: string;
}

/** A predicate over one leaf. */
export type LeafTest = (leaf: EvidenceLeaf) => boolean;

/** The searchable leaves of one recording's agent side. */
export interface Evidence {
  /**
   * The first leaf (in `(run, seq)` order) that passes `test`, or undefined. With `anchors` (an item's
   * command or path), lines that mention one of them are searched first, so the seq named is the
   * item's own line where it has one; then every line.
   */
  find(test: LeafTest, anchors?: readonly string[], window?: TurnWindow): EvidenceHit | undefined;
  /** The seqs of the lines that start a turn (the bridge's prompt to the agent), ascending. */
  turnStarts: readonly number[];
}

/** A turn's stretch of the agent-side lanes: `from` ≤ seq < `to`. */
export interface TurnWindow {
  from: number;
  to: number;
}

/**
 * True for a bridge→provider line that starts a turn, in each wire this project drives: an ACP
 * `session/prompt`, Codex's `turn/start`, Claude Code's `user` line, pi's `prompt` command.
 */
function startsTurn(line: unknown): boolean {
  if (!isRecord(line)) return false;
  if (line.method === "session/prompt" || line.method === "turn/start") return true;
  return line.type === "prompt" || (line.type === "user" && isRecord(line.message));
}

/**
 * Indexes a recording's agent-side lines (`readAgentSideLines`, the truth judge's input too)
 * through the truth judge's index (`../truth/evidence.ts`: every leaf with its path, JSON inside
 * strings parsed, a line that is not JSON one string leaf), with the lines that start a turn.
 */
export function indexAgentSide(lines: readonly AgentSideLine[]): Evidence {
  const index = evidenceIndex(lines);
  const turnStarts: number[] = [];
  for (const { dir, seq, line } of lines) {
    if (dir !== "bridge→provider") continue;
    try {
      if (startsTurn(JSON.parse(line))) turnStarts.push(seq);
    } catch {
      // Not JSON: no prompt.
    }
  }
  // The lines come in (run, seq) order, so the leaves and turn starts are in it too.
  return {
    turnStarts,
    find(test, anchors = [], window) {
      // Inside a turn's window only, when the caller knows it: a value the agent sent in another
      // turn proves nothing about this one.
      const hits = index.all((value, key, path, dir) => test({ dir, path, key, value })).filter((hit) => window === undefined || (hit.seq >= window.from && hit.seq < window.to));
      const wanted = anchors.filter((anchor) => anchor.length >= 3);
      let hit: FoundValue | undefined;
      if (wanted.length > 0 && hits.length > 0) {
        const near = new Set(index.all((value) => typeof value === "string" && wanted.some((anchor) => value.includes(anchor))).map((h) => h.seq));
        hit = hits.find((h) => near.has(h.seq));
      }
      hit ??= hits[0];
      return hit === undefined ? undefined : { dir: hit.dir, seq: hit.seq, path: hit.path };
    },
  };
}

/**
 * The agent-side lines (`provider→bridge.ndjson`, `bridge→provider.ndjson`) of one recording
 * directory in `(run, seq)` order; a missing file is an empty lane (the comparison then finds no
 * evidence and says adapter).
 * @throws InputError for a lane file that is not one JSON entry per line.
 */
export async function readAgentSideLines(recordingDir: string): Promise<AgentSideLine[]> {
  const entries: LaneEntry[] = [];
  for (const dir of AGENT_SIDE) {
    const file = path.join(recordingDir, laneFileName(dir));
    if (!existsSync(file)) continue;
    for await (const { entry } of readLaneEntries(file, dir)) entries.push(entry);
  }
  return entries.sort(compareLaneEntries).map((e) => ({ dir: e.dir as AgentSideDir, seq: e.seq, line: e.line }));
}

/** `seq 44 (provider→bridge) $.params.update.rawOutput.cwd` */
export function formatHit(hit: EvidenceHit): string {
  return `seq ${hit.seq} (${hit.dir}) ${hit.path}`;
}
