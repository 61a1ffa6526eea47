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
  /** True when colour may be used: stdout is a TTY and `NO_COLOR` is unset. */
  color: boolean;
  /** `--verbose`: print stack traces and child stderr. */
  verbose: boolean;
  /** `CI=true`: nothing may write oracles or recordings. */
  ci: boolean;
  /** Working directory that relative paths resolve against. */
  cwd: string;
  /** Width of the terminal in characters when stdout is one; absent otherwise (renderers pick a default). */
  columns?: number;
  /** Where long commands show progress (standard error); absent: no progress. */
  progress?: ProgressStream;
}

/** Builds the context of a real process run from its environment. */
export function processContext(verbose: boolean): CliContext {
  const env = process.env;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    color: Boolean(process.stdout.isTTY) && !noColor && env.TERM !== "dumb",
    verbose,
    ci: env.CI === "true" || env.CI === "1",
    cwd: env.INIT_CWD ?? process.cwd(),
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
