import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";

/**
 * Errno codes that mean "this place cannot be written" (a read-only or full disk, missing
 * permission, a path through a file): the user's to fix, so they are reported as input errors.
 */
const UNWRITABLE_CODES = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EISDIR", "EEXIST", "ENAMETOOLONG"]);

/**
 * Writes `text` to `file` so a reader sees either the old content or the new, never a part
 * (BRIEF: no partial writes): the text goes to a temp file in the same directory, which is
 * then renamed over `file`. Parent directories are created. On failure the temp file is
 * removed. `tag` keeps concurrent writers' temp names apart (defaults to the process id).
 *
 * @throws InputError naming `file` (exit 2, one line) when the place cannot be written
 *   (read-only, no permission, disk full, a parent that is a file, a target that is a
 *   directory); any other error is rethrown as is.
 */
export async function writeFileAtomic(file: string, text: string, tag: string = String(process.pid)): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${tag}.tmp`);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(temp, text, { flag: "w" });
    await rename(temp, file);
  } catch (thrown) {
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (thrown as NodeJS.ErrnoException).code;
    if (code !== undefined && UNWRITABLE_CODES.has(code)) {
      throw new InputError(`cannot write (${code}): ${describeUnwritable(code)}`, { file, code: "E_WRITE" });
    }
    throw thrown;
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
    default:
      return "name too long";
  }
}
