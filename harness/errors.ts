/**
 * Typed errors and exit codes of the `parity` CLI (docs/design/00-product.md, CLI).
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
  /**
   * An internal error: a file, directory or stream could not be read or written for a reason of
   * the machine (no space left, a directory where a file should be, a symlink loop, standard
   * output closed), or a bug. One line names the path or stream and what is wrong; no verdict,
   * nothing partial written.
   */
  internalError: 5,
  /** Stopped by SIGHUP, or because the parent process is gone: 128 + 1. Temp files were removed, the run's processes ended. */
  hangup: 129,
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
 * Bad input in a file: `<file>:<line>[:<column>]: <problem>` (line and column omitted when they
 * do not apply). Exit code 2. `line` and `column` are 1-based.
 */
export class InputError extends ParityError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly problem: string;

  constructor(problem: string, where: { file?: string; line?: number; column?: number; code?: string } = {}) {
    const column = where.line !== undefined && where.column !== undefined ? `:${where.column}` : "";
    const prefix = where.file ? `${where.file}${where.line !== undefined ? `:${where.line}${column}` : ""}: ` : "";
    super(where.code ?? "E_INPUT", `${prefix}${problem}`, EXIT_CODES.inputError);
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
    this.problem = problem;
  }
}

/** A command-line usage error (unknown flag value, unknown provider or cell). Exit code 2. */
export class UsageError extends ParityError {
  constructor(message: string) {
    super("E_USAGE", message, EXIT_CODES.inputError);
  }
}

/** What an errno code means, in words, for a one-line message (the code itself is appended). */
const ERRNO_WORDS: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EISDIR: "is a directory, not a file",
  ENOTDIR: "a part of the path is not a directory",
  ELOOP: "a symbolic link loop",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOENT: "not found",
  EEXIST: "already exists",
  EMFILE: "too many open files",
  EIO: "input/output error",
  EPIPE: "closed by the reader",
  ENAMETOOLONG: "name too long",
};

/** `<words> (<CODE>)` for an errno code, e.g. `no space left on the device (ENOSPC)`. */
export function describeErrno(code: string): string {
  return `${ERRNO_WORDS[code] ?? "cannot be used"} (${code})`;
}

/**
 * Something the run waited for took longer than the bound on the impossible (a user's bridge
 * module still loading, say): no verdict, the machine's doing or the module's, never a usage
 * error. `E_TIMEOUT`, exit 4 ({@link EXIT_CODES.infrastructureTimeout}).
 */
export class InfrastructureTimeoutError extends ParityError {
  constructor(message: string) {
    super("E_TIMEOUT", message, EXIT_CODES.infrastructureTimeout);
  }
}

/**
 * A file, directory or stream the run could not read or write for a reason of the machine:
 * `<path or stream>: <what is wrong> (<ERRNO>)`. Exit code 5 ({@link EXIT_CODES.internalError}).
 */
export class IoError extends ParityError {
  /** The path or stream name (`standard output`). */
  readonly where: string;
  readonly errno: string;

  constructor(where: string, errno: string, options?: { cause?: unknown; hint?: string }) {
    super("E_IO", `${where}: ${describeErrno(errno)}${options?.hint !== undefined ? `; ${options.hint}` : ""}`, EXIT_CODES.internalError, options);
    this.where = where;
    this.errno = errno;
  }
}

/** True for a Node system error (`code` like `ENOSPC`, usually with `syscall` and maybe `path`). */
function isErrnoError(value: unknown): value is NodeJS.ErrnoException & { code: string } {
  return value instanceof Error && typeof (value as NodeJS.ErrnoException).code === "string" && /^E[A-Z0-9]+$/.test((value as NodeJS.ErrnoException).code!);
}

/**
 * Turns any thrown value into a {@link ParityError}. Errors that are already typed pass
 * through; a system error becomes an {@link IoError} naming its path (or, without one, the
 * operation); anything else an internal error. Both exit 5 ({@link EXIT_CODES.internalError},
 * never the parity-failure code), keeping the original as `cause`.
 */
export function toParityError(value: unknown): ParityError {
  if (value instanceof ParityError) return value;
  if (isErrnoError(value)) {
    const where = value.path !== undefined ? value.path : `internal error: ${value.syscall ?? "an operation"}`;
    return new IoError(where, value.code, { cause: value });
  }
  const message = value instanceof Error ? value.message : String(value);
  return new ParityError("E_INTERNAL", `internal error: ${message}`, EXIT_CODES.internalError, { cause: value });
}
