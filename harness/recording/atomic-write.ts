import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { InputError, IoError } from "../errors.js";

/**
 * Errno codes that mean "this place cannot be written" (a read-only or full disk, missing
 * permission, a path through a file): the user's to fix, so they are reported as input errors.
 */
const UNWRITABLE_CODES = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "EISDIR", "EEXIST", "ENAMETOOLONG"]);

/** Errno codes of a machine that cannot take the write (a full disk or quota): internal errors, exit 5. */
const MACHINE_CODES = new Set(["ENOSPC", "EDQUOT", "EIO"]);

/**
 * Writes `text` to `file` so a reader sees either the old content or the new, never a part
 * (no partial writes: bad input loses nothing): the text goes to a temp file in the same directory, which is
 * then renamed over `file`. Parent directories are created. On failure the temp file is
 * removed. `tag` keeps concurrent writers' temp names apart (defaults to the process id).
 *
 * @throws IoError naming `file` (exit 5, one line) when the machine cannot take the write (disk
 *   full, quota, I/O error); FileWriteError (an InputError) naming `file` (exit 2, one line) when the place cannot be written
 *   (read-only, no permission, a parent that is a file, a target that is a
 *   directory, a parent directory the file system refuses, as under `/proc`); any other
 *   error is rethrown as is.
 */
export async function writeFileAtomic(file: string, text: string, tag: string = String(process.pid)): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${tag}.tmp`);
  try {
    await ensureDir(path.dirname(file));
    await writeFile(temp, text, { flag: "w" });
    await rename(temp, file);
  } catch (thrown) {
    await rm(temp, { force: true }).catch(() => undefined);
    if (thrown instanceof DirectoryCreateError) throw new FileWriteError(file, thrown.errno, thrown.why, thrown.dir);
    const code = (thrown as NodeJS.ErrnoException).code;
    if (code !== undefined && MACHINE_CODES.has(code)) throw new IoError(file, code, { cause: thrown, hint: "nothing was written there" });
    if (code !== undefined && UNWRITABLE_CODES.has(code)) throw new FileWriteError(file, code, describeUnwritable(code));
    throw thrown;
  }
}

/**
 * A file {@link writeFileAtomic} could not write (exit 2): `<file>: cannot write (<errno>): <why>`,
 * code `E_WRITE`. `dir` is set when the failure was creating that parent directory.
 */
export class FileWriteError extends InputError {
  readonly target: string;
  readonly errno: string;
  /** The reason in words, e.g. "permission denied". */
  readonly why: string;
  /** The parent directory that could not be created, when that was the failure. */
  readonly dir: string | undefined;

  constructor(file: string, errno: string, why: string, dir?: string) {
    super(`cannot write (${errno}): ${why}`, { file, code: "E_WRITE" });
    this.target = file;
    this.errno = errno;
    this.why = why;
    this.dir = dir;
  }
}

/**
 * A directory that could not be created (exit 2): `dir` is the one that failed, `errno` the
 * file system's answer (`ENOENT`, `EACCES`, `ENOTDIR` for a path part that is a file, …).
 * Message: `<dir>: cannot create directory: <errno> (<why>)`.
 */
export class DirectoryCreateError extends InputError {
  readonly dir: string;
  readonly errno: string;
  /** The reason in words, e.g. "permission denied". */
  readonly why: string;

  constructor(dir: string, errno: string) {
    const why = errno === "ENOENT" ? "the file system does not allow a directory here" : describeUnwritable(errno);
    super(`cannot create directory: ${errno} (${why})`, { file: dir, code: "E_MKDIR" });
    this.dir = dir;
    this.errno = errno;
    this.why = why;
  }
}

/**
 * Creates `dir` and its missing parents, like `mkdir -p`, trying each directory at most twice.
 * Node's own `mkdir(…, { recursive: true })` (Node 20) never returns when the file system
 * answers ENOENT for a directory whose parent exists (anything under `/proc`): it re-creates
 * the parent and retries forever. Here a second ENOENT, once the parent is known to exist,
 * is final.
 *
 * @throws DirectoryCreateError for any failure, including a path part that is not a directory.
 */
export async function ensureDir(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const first = await tryMkdir(target);
  if (first === undefined) return;
  const parent = path.dirname(target);
  if (first !== "ENOENT" || parent === target) throw new DirectoryCreateError(target, first);
  await ensureDir(parent);
  const second = await tryMkdir(target);
  if (second !== undefined) throw new DirectoryCreateError(target, second);
}

/** One non-recursive mkdir: undefined when `dir` now is a directory, else the errno code. */
async function tryMkdir(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir);
    return undefined;
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code ?? "EIO";
    if (code !== "EEXIST") return code;
    const isDir = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    return isDir ? undefined : "ENOTDIR";
  }
}

function describeUnwritable(code: string): string {
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
    case "EDQUOT":
      return "no space left";
    case "ENOTDIR":
    case "EEXIST":
      return "a parent of this path is not a directory";
    case "EISDIR":
      return "this path is a directory";
    case "ENAMETOOLONG":
      return "name too long";
    default:
      return "cannot be written";
  }
}
