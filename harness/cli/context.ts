import { colorEnabled } from "./color.js";
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

/** Builds the context of a real process run from its environment. */
export function processContext(verbose: boolean): CliContext {
  const env = process.env;
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    color: colorEnabled(env, Boolean(process.stdout.isTTY)),
    verbose,
    ci: env.CI === "true" || env.CI === "1",
    cwd: env.INIT_CWD ?? process.cwd(),
    interrupts: processInterruptHost(),
    env,
    ...(process.stdout.isTTY && process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
    // A dumb terminal cannot erase a line: it gets the line-per-cell form, as a pipe does.
    progress: {
      isTTY: Boolean(process.stderr.isTTY) && env.TERM !== "dumb",
      get columns() {
        return process.stderr.columns;
      },
      write: (text) => process.stderr.write(text),
    },
  };
}
