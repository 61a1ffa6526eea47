/**
 * How the bridge writes a file for an agent's `fs/write_text_file` (spec 20 §2.5): in place — the
 * new bytes over the old from offset 0, then the file cut to their length — never truncated first.
 *
 * Why: an agent may go on before the bridge's answer comes and use the file meanwhile. opencode
 * 1.18.33 sends `fs/write_text_file` without waiting for its answer and writes the file itself
 * (harness/record/README.md, "acp-opencode turn-tools"), so its next tool can run while the
 * bridge's write is under way. `writeFile` opens with `O_TRUNC` and writes afterwards: between
 * the two the file is empty, and when that gap fell after opencode's own write and before its
 * `wc -l notes.txt`, the command printed `0 notes.txt` — an empty file no one asked for, reported
 * truthfully. Written in place, a reader sees the old bytes, the new ones or (lengths differ) the
 * new head over the old tail, never an empty file; when the file already holds the text (the
 * agent wrote it first), nothing a reader can see changes. The file keeps its inode, mode, links
 * and a symlink at the path is followed, as with `writeFile`.
 */
import { constants } from "node:fs";
import { open as openFile } from "node:fs/promises";
import type { OpenFileForWrite } from "../state/runtime.js";

export type { OpenFileForWrite };

/** The flags of the write: create when missing, never truncate on open (see the module doc). */
export const IN_PLACE_WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT;

/** Mode of a file the write creates, before the umask (what `writeFile` uses). */
const NEW_FILE_MODE = 0o666;

/**
 * Writes `text` (UTF-8) to `path` in place: opened with {@link IN_PLACE_WRITE_FLAGS}, every byte
 * written from offset 0, then (a regular file) truncated to the text's byte length, then closed.
 * The parent directory must exist.
 * @throws the file system's error (ENOENT, EACCES, EISDIR, ENOSPC…), after closing what was opened.
 */
export async function writeTextInPlace(path: string, text: string, open: OpenFileForWrite = openFile): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  const handle = await open(path, IN_PLACE_WRITE_FLAGS, NEW_FILE_MODE);
  try {
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, done);
      if (bytesWritten <= 0) throw new Error(`write to ${path} made no progress at byte ${done} of ${bytes.length}`);
      done += bytesWritten;
    }
    // Only a regular file has a length to cut (ftruncate of a device such as /dev/null is EINVAL;
    // writeFile's O_TRUNC open ignored it there too).
    if ((await handle.stat()).isFile()) await handle.truncate(bytes.length);
  } finally {
    await handle.close();
  }
}
