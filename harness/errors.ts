/**
 * Typed errors and exit codes of the `parity` CLI (00-product.md, CLI).
 *
 * Every error a user can cause is a {@link ParityError} with a numeric exit code and one
 * sentence naming the file, line, flag or field to change. {@link toParityError} is the one
 * place that turns an unknown thrown value into such an error.
 */

/** Exit codes of every `parity` command. */
export const EXIT_CODES = {
  /** Everything passed. */
  ok: 0,
  /** Parity failure: a lane diff, a stale allowlist entry, a divergence or stall. */
  parityFailure: 1,
  /** Usage or input error: bad flag, bad recording, unknown provider or cell. */
  inputError: 2,
  /** `record`: a secret survived redaction; nothing was written. */
  secretSurvived: 3,
  /** `check`, `replay`, `rerecord`: a cell hit the wall-clock ceiling; no verdict (an infrastructure timeout, never a parity failure). */
  infrastructureTimeout: 4,
  /** Interrupted by SIGINT (Ctrl-C): 128 + 2, as shells report it. Temp files were removed. */
  interrupted: 130,
  /** Terminated by SIGTERM: 128 + 15, as shells report it. Temp files were removed. */
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Base class of every error the CLI reports as one line. */
export class ParityError extends Error {
  /** Stable machine-readable code, e.g. `E_RECORDING`, `E_USAGE`. */
  readonly code: string;
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

/**
 * Bad input in a file: `<file>:<line>: <problem>` (line omitted when it does not apply).
 * Exit code 2. `line` is 1-based.
 */
export class InputError extends ParityError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly problem: string;

  constructor(problem: string, where: { file?: string; line?: number; code?: string } = {}) {
    const prefix = where.file ? `${where.file}${where.line !== undefined ? `:${where.line}` : ""}: ` : "";
    super(where.code ?? "E_INPUT", `${prefix}${problem}`, EXIT_CODES.inputError);
    this.file = where.file;
    this.line = where.line;
    this.problem = problem;
  }
}

/** A command-line usage error (unknown flag value, unknown provider or cell). Exit code 2. */
export class UsageError extends ParityError {
  constructor(message: string) {
    super("E_USAGE", message, EXIT_CODES.inputError);
  }
}

/**
 * Turns any thrown value into a {@link ParityError}. Errors that are already typed pass
 * through; anything else becomes an internal error (exit 1) keeping the original as `cause`.
 */
export function toParityError(value: unknown): ParityError {
  if (value instanceof ParityError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new ParityError("E_INTERNAL", `internal error: ${message}`, EXIT_CODES.parityFailure, { cause: value });
}
