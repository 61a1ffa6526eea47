import { EXIT_CODES, IoError } from "../errors.js";
import { colorEnabled } from "./color.js";
import { projectDir } from "./project-dir.js";
import { terminalSafe } from "../report/visible.js";
import { processInterruptHost, type InterruptHost } from "./interrupt.js";
import type { ProgressStream } from "../progress/check-progress.js";

/**
 * What every command receives besides its parsed flags: where to write, whether colour
 * is allowed, and whether the user asked for stack traces. Commands never touch
 * `process.stdout` directly, so tests run them in-process.
 */
export interface CliContext {
  /** Writes to standard output (already newline-terminated text). */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** True when colour may be used (see {@link colorEnabled}: `FORCE_COLOR`, `NO_COLOR`, TTY). */
  color: boolean;
  /** `--verbose`: print stack traces and child stderr. */
  verbose: boolean;
  /** `CI=true`: nothing may write oracles or recordings. */
  ci: boolean;
  /** Working directory that relative paths resolve against. */
  cwd: string;
  /**
   * A real process run's signals, environment and exit (see harness/cli/interrupt.ts): with it
   * a run gets a session temp dir and exits 130/143 on SIGINT/SIGTERM. In-process runs (tests)
   * leave it out unless they test interrupts.
   */
  interrupts?: InterruptHost;
  /** Aborted on the first SIGINT/SIGTERM of the run (commands marked `graceful` stop on it). */
  signal?: AbortSignal;
  /**
   * Notes a file the command wrote (complete, by temp file + rename), so that a run stopped by a
   * signal still lists what it wrote (harness/cli/interrupt.ts). Absent in runs without a host.
   */
  wrote?: (file: string) => void;
  /** Width of the terminal in characters when stdout is one; absent otherwise (renderers pick a default). */
  columns?: number;
  /** Where long commands show progress (standard error); absent: no progress. */
  progress?: ProgressStream;
  /**
   * The environment variables commands read beyond colour and CI (`GITHUB_WORKSPACE`,
   * `GITHUB_STEP_SUMMARY` for `--reporter github`); absent: none (in-process tests set what they need).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

// The progress writers (harness/progress) start a live line with this: carriage return, erase line.
const CLEAR_LINE = "\r\x1b[2K";

/** A progress line through the terminal guard, keeping the progress writers' own line erase. */
function progressSafe(text: string): string {
  return text.startsWith(CLEAR_LINE) ? CLEAR_LINE + terminalSafe(text.slice(CLEAR_LINE.length), false) : terminalSafe(text, false);
}

/**
 * Builds the context of a real process run from its environment. `ownsProcess`: this process
 * is the `parity` executable (see `processInterruptHost`); then a failing standard output (a
 * full device, a closed pipe) ends the run with one line and exit 5 instead of an unhandled
 * stream error.
 */
export function processContext(verbose: boolean, ownsProcess = false): CliContext {
  const env = process.env;
  if (ownsProcess) {
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      process.stderr.write(`parity: ${new IoError("standard output", error.code ?? "EIO").message}\n`);
      // The run's exit handler (harness/cli/interrupt.ts) ends its processes and removes its temp dir.
      process.exit(EXIT_CODES.internalError);
    });
  }
  const color = colorEnabled(env, Boolean(process.stdout.isTTY));
  // Every byte a command writes passes the terminal guard (harness/report/visible.ts): text from
  // a pull request's files cannot steer the reader's terminal even where no renderer escaped it.
  return {
    out: (text) => void process.stdout.write(terminalSafe(text, color)),
    err: (text) => void process.stderr.write(terminalSafe(text, color)),
    color,
    verbose,
    ci: env.CI === "true" || env.CI === "1",
    // npm and npx set INIT_CWD to where the user typed the command; from a subdirectory the run
    // works from the project's root (project-dir.ts).
    cwd: projectDir(env.INIT_CWD ?? process.cwd()),
    interrupts: processInterruptHost({ ownsProcess }),
    env,
    ...(process.stdout.isTTY && process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
    // A dumb terminal cannot erase a line: it gets the line-per-cell form, as a pipe does.
    progress: {
      isTTY: Boolean(process.stderr.isTTY) && env.TERM !== "dumb",
      get columns() {
        return process.stderr.columns;
      },
      write: (text) => process.stderr.write(progressSafe(text)),
    },
  };
}
