import { createHash } from "node:crypto";
import { chmod, cp, mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { repoRoot, runCli, type CliResult } from "../helpers/run-cli.js";

export { repoRoot };

/** The real acp-cursor recordings (read-only). */
export const cursorRecordings = path.resolve(repoRoot, "../shared/recordings/acp-cursor");

/** A fresh temp dir holding `<root>/recordings/<provider>/<cell>/` copies and room for `lanes/` and `out/`. */
export interface Sandbox {
  root: string;
  recordings: string;
  lanes: string;
  out: string;
}

/** Makes a sandbox under the OS temp dir (never inside the repository). */
export async function sandbox(): Promise<Sandbox> {
  const root = await mkdtemp(path.join(tmpdir(), "parity-rerecord-test-"));
  return { root, recordings: path.join(root, "recordings"), lanes: path.join(root, "lanes"), out: path.join(root, "out") };
}

/**
 * Copies one recording directory into the sandbox as `<recordings>/<provider>/<cell>`, made
 * writable (the shared recordings are read-only files). Returns the copy's directory.
 */
export async function copyCell(box: Sandbox, src: string): Promise<string> {
  const dest = path.join(box.recordings, path.basename(path.dirname(src)), path.basename(src));
  await cp(src, dest, { recursive: true });
  await chmod(dest, 0o755);
  for (const name of await readdir(dest)) await chmod(path.join(dest, name), 0o644);
  return dest;
}

/** sha256 of every file directly in `dir`, by name (what "byte-identical" is checked against). */
export async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const file = path.join(dir, name);
    if (!(await stat(file)).isFile()) continue;
    out[name] = createHash("sha256")
      .update(await readFile(file))
      .digest("hex");
  }
  return out;
}

/** Every path under `dir` (relative, sorted; empty when missing). */
export async function tree(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
  } catch {
    return [];
  }
}

/** Reads an NDJSON lane file. */
export async function readEntries(file: string): Promise<LaneEntry[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as LaneEntry);
}

/** Result of one in-process `parity` run (the shared runner's result). */
export type CliRun = CliResult;

/** Runs `parity <argv>` in-process: the shared runner (captured output, no colour, not CI unless `ctx.ci`, cwd = repo root). */
export const parity = runCli;
