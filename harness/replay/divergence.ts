import type { Direction } from "../recording/lane-entry.js";

/**
 * Kinds of replay divergence (00-product.md, Determinism; spec 10 §5):
 * - `unexpected-line`: a live line that matches no expectation of the current step;
 * - `missing-expectation`: a recorded output the bridge never produced before it went quiet;
 * - `bridge-exited`: the bridge exited before the recording was played out;
 * - `no-handshake`: the bridge did not answer (or refused) the harness's `initialize`;
 * - `no-exit`: the bridge did not exit after its stdin closed and was killed;
 * - `child-protocol`: a replay child broke the private channel's frame protocol.
 */
export type ReplayDivergenceKind =
  | "unexpected-line"
  | "missing-expectation"
  | "bridge-exited"
  | "no-handshake"
  | "no-exit"
  | "child-protocol";

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
