/**
 * Progress of a `parity check` run, written to standard error while cells replay (the report
 * itself comes at the end, on stdout, from the chosen reporter). On a terminal: one live line,
 * rewritten in place (`12/30 cells · acp-opencode/steer`) and erased at the end. Elsewhere (CI
 * logs, pipes): one line per cell as it finishes, so a long run is never silent.
 */

/** Where progress goes: a stream that may be a terminal (`process.stderr` fits). */
export interface ProgressStream {
  /** True when the stream is a terminal (live line); false or absent: a line per cell. */
  isTTY?: boolean;
  /** Terminal width in characters, when known; the live line is cut to it. */
  columns?: number;
  write(text: string): unknown;
}

/** A cell's verdict as progress reports it. */
export type ProgressStatus = "pass" | "fail" | "untrue" | "skip" | "timeout" | "error";

/** Receives the run's events; every method is cheap and never throws. */
export interface CheckProgress {
  /** A cell began replaying (`provider/cell`). */
  started(name: string): void;
  /** A cell finished with `status` after `ms` of its batch's wall time. */
  finished(name: string, status: ProgressStatus, ms: number): void;
  /** The run ended: the live line is erased (a terminal), nothing more is written. */
  end(): void;
}

/** ANSI: carriage return, then erase the whole line. */
const CLEAR_LINE = "\r\x1b[2K";

const STATUS_WORD: Record<ProgressStatus, string> = { pass: "passed", fail: "FAILED", untrue: "UNTRUE", skip: "skipped", timeout: "TIMED OUT (infrastructure)", error: "UNREADABLE" };

/**
 * Progress over `total` cells on `stream` (see the module comment). The live line names the
 * earliest started cell still running, else the last finished one.
 */
export function createCheckProgress(stream: ProgressStream, total: number): CheckProgress {
  let done = 0;
  const running: string[] = [];
  let last = "";
  let ended = false;
  const width = String(total).length;
  const counter = (): string => `${String(done).padStart(width)}/${total} cells`;
  const drawLive = (): void => {
    const current = running[0] ?? last;
    const text = current === "" ? counter() : `${counter()} · ${current}`;
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
    stream.write(`${CLEAR_LINE}${text.length >= columns ? text.slice(0, Math.max(0, columns - 1)) : text}`);
  };
  return {
    started(name) {
      if (ended) return;
      running.push(name);
      if (stream.isTTY) drawLive();
    },
    finished(name, status, ms) {
      if (ended) return;
      done += 1;
      const at = running.indexOf(name);
      if (at !== -1) running.splice(at, 1);
      last = name;
      if (stream.isTTY) drawLive();
      else stream.write(`${counter()} · ${name} ${STATUS_WORD[status]}${status === "skip" ? "" : ` (${(ms / 1000).toFixed(1)} s)`}\n`);
    },
    end() {
      if (ended) return;
      ended = true;
      if (stream.isTTY) stream.write(CLEAR_LINE);
    },
  };
}
