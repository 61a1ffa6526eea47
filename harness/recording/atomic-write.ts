import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Writes `text` to `file` so a reader sees either the old content or the new, never a part
 * (BRIEF: no partial writes): the text goes to a temp file in the same directory, which is
 * then renamed over `file`. Parent directories are created. On failure the temp file is
 * removed and the error rethrown. `tag` keeps concurrent writers' temp names apart
 * (defaults to the process id).
 */
export async function writeFileAtomic(file: string, text: string, tag: string = String(process.pid)): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${tag}.tmp`);
  try {
    await writeFile(temp, text, { flag: "w" });
    await rename(temp, file);
  } catch (thrown) {
    await rm(temp, { force: true });
    throw thrown;
  }
}
