import type { Direction } from "../../recording/lane-entry.js";

/**
 * Kinds of replay divergence (docs/design/00-product.md, Determinism; spec 10 §5):
 * - `unexpected-line`: a live line that matches no expectation of the current step;
 * - `missing-expectation`: a recorded output the bridge never produced before it went idle;
 * - `bridge-exited`: the bridge exited before the recording was played out;
 * - `no-handshake`: the bridge did not answer (or refused) the harness's `initialize`;
 * - `no-exit`: the bridge did not exit after its stdin closed and was killed;
 * - `child-protocol`: a replay child broke the private channel's frame protocol;
 * - `line-too-long`: the bridge wrote a line over the harness's bound (64 MiB by default,
 *   harness/runtime/bridge-process.ts), on its stdout or to an agent stand-in
 *   (stand-ins/socket-lines.ts); the line is not kept and the bridge or the stand-in is stopped;
 * - `answer-differs`: the bridge answered an agent's request (`fs/read_text_file`,
 *   `session/request_permission`, …) with a different result than recorded.
 */
export type ReplayDivergenceKind = "unexpected-line" | "missing-expectation" | "bridge-exited" | "no-handshake" | "no-exit" | "child-protocol" | "answer-differs" | "line-too-long";

/**
 * One divergence between a recording and the live bridge. `seq`/`run`/`dir` name the
 * recorded entry involved (the expectation, or the last entry walked before an unexpected
 * line); `expected` and `got` are short labels (`request session/new (id 2)`).
 */
export interface ReplayDivergence {
  kind: ReplayDivergenceKind;
  seq: number | null;
  run: number | null;
  dir: Direction | null;
  expected: string | null;
  got: string | null;
  /** One sentence for a human. */
  message: string;
}

/**
 * Something a replay did that is not a divergence (spec 10 §5.1 Live bridge output), e.g. a
 * live request nothing recorded can answer, answered generically at once.
 */
export interface ReplayNote {
  /** The recorded entry walked last when it happened (null before the first). */
  seq: number | null;
  message: string;
}

/** Most divergences kept in a result; the total is still counted. */
export const MAX_KEPT_DIVERGENCES = 50;

/**
/** Most stderr lines shown when a bridge exited early. */
export const STDERR_TAIL_LINES = 20;

/** The last `lines` non-empty lines of a bridge's stderr (each prefixed for display), or "" when empty. */
export function stderrTail(stderr: string, lines = STDERR_TAIL_LINES): string {
  const kept = stderr
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-lines);
  return kept.length === 0 ? "" : `${kept.map((l) => `  | ${l}`).join("\n")}\n`;
}

/**
 * What people are told about a replay beyond its first divergence: for a bridge that exited
 * early, its stderr tail; for an infrastructure timeout, that sentence. "" when neither.
 */
export function replayTrouble(result: { divergences: readonly ReplayDivergence[]; stderr: string; infrastructureTimeout: { ceilingMs: number; seq: number | null } | null }): string {
  let out = "";
  const t = result.infrastructureTimeout;
  if (t) {
    out += `infrastructure timeout: the replay was still running after ${t.ceilingMs} ms of wall clock${t.seq === null ? "" : ` (last recorded entry walked: seq ${t.seq})`}; no parity verdict — rerun on a less loaded machine or raise --timeout\n`;
  }
  const exited = result.divergences.find((d) => d.kind === "bridge-exited");
  if (exited) {
    const tail = stderrTail(result.stderr);
    out += `${exited.message}\n${tail === "" ? "  (the bridge wrote nothing to stderr)\n" : `  last ${STDERR_TAIL_LINES} lines of its stderr:\n${tail}`}`;
  }
  return out;
}

/**
 * Formats the first divergence of a cell and the count of the rest as one line:
 * `acp-cursor/resume: seq 3004 (bridge→provider): expected request session/load, got
 * request session/new (id 2) (+2 more)`.
 */
export function formatDivergenceSummary(cell: string, divergences: readonly ReplayDivergence[], total: number): string {
  const first = divergences[0];
  if (!first) return `${cell}: no divergence`;
  const where = first.seq === null ? "" : ` seq ${first.seq}${first.dir ? ` (${first.dir})` : ""}:`;
  const rest = total > 1 ? ` (+${total - 1} more)` : "";
  return `${cell}:${where} ${first.message}${rest}`;
}
