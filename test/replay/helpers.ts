import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Direction, LaneEntry } from "../../harness/recording/lane-entry.js";

/** The repository root, for resolving `../shared/...` by path (never copied into the repo). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The real acp-cursor recordings. */
export const cursorRecordings = path.resolve(repoRoot, "../shared/recordings/acp-cursor");
/** The seven thread-scoped acp-cursor cells (model-list is process-scoped). */
export const CURSOR_THREAD_CELLS = ["approval-allow", "approval-deny", "fork", "resume", "stop-interrupt", "subagent", "turn-tools"] as const;

/** True while `pid` is a live process (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync("/proc/self/stat")) {
    if (!existsSync(stat)) return false;
    try {
      const text = readFileSync(stat, "utf8");
      return text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Copies a recording directory into a fresh temporary directory (tests doctor the copy, never the original). */
export async function copyRecording(src: string): Promise<string> {
  const base = await mkdtemp(path.join(tmpdir(), "parity-replay-test-"));
  const dest = path.join(base, path.basename(path.dirname(src)), path.basename(src));
  await cp(src, dest, { recursive: true });
  return dest;
}

/** Reads one lane file of a recording directory (`[]` when absent). */
export async function readLane(dir: string, direction: Direction | "bridge→runtime.current"): Promise<LaneEntry[]> {
  const file = path.join(dir, `${direction}.ndjson`);
  if (!existsSync(file)) return [];
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as LaneEntry);
}

/**
 * Rewrites one lane of a (copied) recording with `edit` and fixes the manifest's line count
 * for recorded lanes, so the doctored copy still reads as a valid recording.
 */
export async function editLane(dir: string, direction: Direction | "bridge→runtime.current", edit: (entries: LaneEntry[]) => LaneEntry[]): Promise<void> {
  const entries = edit(await readLane(dir, direction));
  await writeFile(path.join(dir, `${direction}.ndjson`), entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  if (direction === "bridge→runtime.current") return;
  const manifestFile = path.join(dir, "manifest.json");
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { lines: Record<string, number> };
  manifest.lines[direction] = entries.length;
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The JSON-RPC message of a lane entry. */
export function messageOf(entry: LaneEntry): { id?: unknown; method?: string; result?: unknown; params?: unknown } {
  return JSON.parse(entry.line) as { id?: unknown; method?: string; result?: unknown; params?: unknown };
}
