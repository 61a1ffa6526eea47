/**
 * The CLI version an oracle was accepted from (issue 41 build point 4): a sidecar beside each
 * oracle, `<lanes>/<provider>/<cell>.version`, one line `{"cliVersion":"codex 0.171.0"}`, the
 * `cliVersion` of the recording's `manifest.json` at the moment the oracle was written or
 * accepted. The oracle itself (a plain JSON array of thread events) is not changed.
 *
 * Why one sidecar per oracle rather than one file per provider: every writer of an oracle already
 * writes it whole through a temp file and a rename, sometimes several cells at once (the gate), and
 * as `<oracle>.pending` to be accepted by renaming (`review`, `check -u`); a sidecar of its own is
 * written, made pending, accepted and rejected the same way as the oracle it stands beside, with no
 * read-modify-write of a shared file, and two branches that change different cells never touch the
 * same file. The name does not end in `.json`, so nothing that lists oracles (`*.json`) sees it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import { writeFileAtomic } from "./atomic-write.js";
import { MANIFEST_FILE } from "./manifest.js";

/** The sidecar's suffix in place of the oracle's `.json`. */
export const ORACLE_VERSION_SUFFIX = ".version";

/** The sidecar of `oracleFile` (`<lanes>/<provider>/<cell>.json` → `<lanes>/<provider>/<cell>.version`); absolute in, absolute out. */
export function oracleVersionFile(oracleFile: string): string {
  return path.join(path.dirname(oracleFile), `${path.basename(oracleFile, ".json")}${ORACLE_VERSION_SUFFIX}`);
}

/** The sidecar's whole text for `cliVersion` (one JSON line, newline-terminated). */
export function oracleVersionText(cliVersion: string): string {
  return `${JSON.stringify({ cliVersion })}\n`;
}

/**
 * The CLI version `oracleFile` was accepted from, or null when it has no sidecar (an oracle
 * accepted before sidecars existed, or outside the project).
 * @throws InputError naming the sidecar when it is there but is not `{"cliVersion": "<text>"}`
 */
export async function readOracleVersion(oracleFile: string): Promise<string | null> {
  const file = oracleVersionFile(oracleFile);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError('not one JSON line {"cliVersion": "…"} (the CLI version its oracle was accepted from)', { file, line: 1 });
  }
  const cliVersion = (value as { cliVersion?: unknown } | null)?.cliVersion;
  if (typeof cliVersion !== "string") throw new InputError('expected {"cliVersion": "<the CLI version its oracle was accepted from>"}', { file, line: 1 });
  return cliVersion;
}

/**
 * The `cliVersion` of the recording in `recordingDir` (its manifest read as text, no schema: the
 * reader has validated it wherever it matters), or undefined when it cannot be read.
 */
export async function recordingCliVersion(recordingDir: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(recordingDir, MANIFEST_FILE), "utf8")) as { cliVersion?: unknown };
    return typeof manifest.cliVersion === "string" ? manifest.cliVersion : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the sidecar of `oracleFile` for `cliVersion`, to `writeTo(sidecar)` (default the sidecar
 * itself; the gate's pending policy passes `pendingFile`). Returns how it compares with the
 * sidecar that is there: a sidecar already naming `cliVersion` is left as it is.
 * @throws what `writeFileAtomic` throws
 */
export async function writeOracleVersion(oracleFile: string, cliVersion: string, writeTo: (file: string) => string = (file) => file): Promise<"new" | "updated" | "unchanged"> {
  const file = oracleVersionFile(oracleFile);
  const text = oracleVersionText(cliVersion);
  const old = await readFile(file, "utf8").catch(() => undefined);
  if (old === text) return "unchanged";
  await writeFileAtomic(writeTo(file), text);
  return old === undefined ? "new" : "updated";
}
