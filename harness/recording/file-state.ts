/**
 * Whether a file the run reads and may write (an oracle) is there, absent, or unusable — told
 * apart before anything is read or written. Only a path with nothing at it is absent: a symbolic
 * link loop, a dangling link or a directory in the file's place is an error naming the path,
 * never "missing" (a missing oracle is written, which would replace what was there).
 */
import { constants } from "node:fs";
import { access, lstat, stat } from "node:fs/promises";
import { IoError } from "../errors.js";

/** `"missing"` (nothing at the path) or `"file"` (a regular file, or a link to one). */
export type FileState = "missing" | "file";

/**
 * The state of `file`.
 * @throws IoError (exit 5) `<file>: a symbolic link loop (ELOOP)`, `…: is a directory, not a file
 *   (EISDIR)`, `…: not found (ENOENT); a symbolic link to nothing`, or the errno of a path that cannot be looked at.
 */
export async function fileState(file: string): Promise<FileState> {
  try {
    await lstat(file);
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code ?? "EIO";
    if (code === "ENOENT") return "missing";
    throw new IoError(file, code, { cause: thrown });
  }
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code ?? "EIO";
    throw new IoError(file, code, { cause: thrown, ...(code === "ENOENT" ? { hint: "a symbolic link to nothing" } : {}) });
  }
  if (!isFile) throw new IoError(file, "EISDIR");
  return "file";
}

/**
 * True when `dir` must be treated as read-only: the process may not write it, or no write
 * permission bit is set at all (a directory made read-only on purpose, e.g. shared
 * recordings, even when the superuser could still write it).
 */
export async function isReadOnlyDir(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK);
  } catch {
    return true;
  }
  const mode = (await stat(dir)).mode;
  return (mode & 0o222) === 0;
}
