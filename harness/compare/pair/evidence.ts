/**
 * A recording's agent-side lanes as evidence for `parity compare` (issue 39): every leaf value
 * the agent sent (`provider→bridge`) or was answered (`bridge→provider`), with the line's `seq`
 * and the value's JSON path, so a difference can say whether the bridge had the datum and where.
 * Strings that hold JSON (an agent's tool result often does) are searched inside too.
 */
import { readFile } from "node:fs/promises";
import { isRecord } from "../../../stack/protocol/json-value.js";

/** The direction of an agent-side line. */
export type AgentSideDir = "provider→bridge" | "bridge→provider";

/** One leaf value of an agent-side line. */
export interface EvidenceLeaf {
  dir: AgentSideDir;
  seq: number;
  /** JSON path in the line, e.g. `$.params.update.rawOutput.exit_code`. */
  path: string;
  /** The last key on the path (`exit_code`); `""` for array elements and whole lines. */
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
   * The first leaf (in `seq` order) that passes `test`, or undefined. With `anchors` (an item's
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

function walk(value: unknown, path: string, key: string, depth: number, leaf: (path: string, key: string, value: string | number | boolean | null) => void): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    leaf(path, key, value);
    const first = value.trimStart()[0];
    if ((first === "{" || first === "[") && value.length < 1_000_000) {
      try {
        walk(JSON.parse(value), `${path}(json)`, key, depth + 1, leaf);
      } catch {
        // Not JSON after all: the string itself was kept.
      }
    }
  } else if (typeof value === "number" || typeof value === "boolean" || value === null) {
    leaf(path, key, value);
  } else if (Array.isArray(value)) {
    value.forEach((element, index) => walk(element, `${path}[${index}]`, "", depth + 1, leaf));
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, k, depth + 1, leaf);
  }
}

/**
 * Indexes the lines of an agent-side lane file's text (NDJSON of `{seq, dir, line}` records as
 * recordings hold them); a record or a line that is not JSON is kept as one string leaf.
 */
export function indexAgentSide(texts: readonly string[]): Evidence {
  const leaves: EvidenceLeaf[] = [];
  const turnStarts: number[] = [];
  for (const text of texts) {
    for (const row of text.split("\n")) {
      if (row.trim() === "") continue;
      let record: unknown;
      try {
        record = JSON.parse(row);
      } catch {
        continue;
      }
      if (!isRecord(record) || typeof record.line !== "string" || typeof record.seq !== "number") continue;
      const dir: AgentSideDir = record.dir === "bridge→provider" ? "bridge→provider" : "provider→bridge";
      const seq = record.seq;
      let parsed: unknown;
      try {
        parsed = JSON.parse(record.line);
      } catch {
        leaves.push({ dir, seq, path: "$", key: "", value: record.line });
        continue;
      }
      if (dir === "bridge→provider" && startsTurn(parsed)) turnStarts.push(seq);
      walk(parsed, "$", "", 0, (path, key, value) => leaves.push({ dir, seq, path, key, value }));
    }
  }
  leaves.sort((x, y) => x.seq - y.seq);
  turnStarts.sort((x, y) => x - y);
  return {
    turnStarts,
    find(outer, anchors = [], window) {
      // Inside a turn's window only, when the caller knows it: a value the agent sent in another
      // turn proves nothing about this one.
      const test: LeafTest = window === undefined ? outer : (l) => l.seq >= window.from && l.seq < window.to && outer(l);
      const wanted = anchors.filter((anchor) => anchor.length >= 3);
      let hit: EvidenceLeaf | undefined;
      if (wanted.length > 0) {
        const near = new Set(leaves.filter((l) => typeof l.value === "string" && wanted.some((anchor) => (l.value as string).includes(anchor))).map((l) => l.seq));
        hit = leaves.find((l) => near.has(l.seq) && test(l));
      }
      hit ??= leaves.find(test);
      return hit === undefined ? undefined : { dir: hit.dir, seq: hit.seq, path: hit.path };
    },
  };
}

/**
 * Reads `provider→bridge.ndjson` and `bridge→provider.ndjson` of one recording directory (a
 * missing file is an empty lane: the comparison then finds no evidence and says adapter).
 */
export async function readAgentSide(recordingDir: string): Promise<Evidence> {
  const texts = await Promise.all(
    ["provider→bridge.ndjson", "bridge→provider.ndjson"].map((name) =>
      readFile(`${recordingDir}/${name}`, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      }),
    ),
  );
  return indexAgentSide(texts);
}

/** `seq 44 (provider→bridge) $.params.update.rawOutput.cwd` */
export function formatHit(hit: EvidenceHit): string {
  return `seq ${hit.seq} (${hit.dir}) ${hit.path}`;
}
