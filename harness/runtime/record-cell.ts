import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { scopeForThreadId } from "../../stack/bridge-kit/record-scope.js";
import { InputError } from "../errors.js";
import { LANE_DIRECTIONS, laneFileName, type Direction } from "../recording/lane-entry.js";
import { MANIFEST_FILE, ManifestSchema, type Manifest } from "../recording/manifest.js";
import { readRecording, type Recording } from "../recording/reader.js";
import { runRuntimeScript, type RuntimeScriptInput } from "./script.js";
import { spawnBridge } from "./spawn-bridge.js";

/** Options of {@link recordScriptedCell}. */
export interface RecordCellOptions {
  /** Bridge module spawned through the bootstrap with record mode on. */
  modulePath: string;
  /** Provider id: the bootstrap's argv and the recording's `provider`. */
  providerId: string;
  /** Cell name: the recording's `cell` and directory name. */
  cell: string;
  /** The runtime script that drives the bridge (its `threadId` is the recorded thread). */
  script: RuntimeScriptInput;
  /** Recordings root; the recording goes to `<root>/<providerId>/<cell>/`. */
  recordingsRoot: string;
  /** Manifest fields (spec 10 §4). */
  cliVersion: string;
  description: string;
  note: string;
  /** Longest wait for one answer or event, in ms (default 10 000). */
  timeoutMs?: number;
  /** Clock of the script's assembler, in ms. */
  now: () => number;
}

/** Reads one recorded lane file as raw lines (none when the bridge wrote nothing there). */
function readLaneLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "");
}

/**
 * Records one thread cell live (00-product.md flow 1): spawns the bridge with
 * `BB_PROVIDER_BRIDGE_RECORD_DIR` set to a fresh temp dir and an otherwise empty
 * environment, drives it with the script, closes it, then packages the thread's scope
 * (`<tmp>/<providerId>/<thread scope>/`) as `<root>/<providerId>/<cell>/` with a
 * `manifest.json` (spec 10 §4: `recordedAt` is the UTC date of the first `ts`,
 * `bridgeRuns` the distinct `run`s, `lines` the per-lane counts). The directory is built
 * beside its destination and renamed into place, then read back with `readRecording`.
 * Lines of no thread (`initialize`) stay in `_process` and are not part of the cell.
 *
 * @throws InputError when the recording already exists (a recording is never
 *   overwritten) or the bridge recorded nothing for the thread; any error of the script run.
 */
export async function recordScriptedCell(options: RecordCellOptions): Promise<Recording> {
  const destination = path.resolve(options.recordingsRoot, options.providerId, options.cell);
  if (existsSync(destination)) {
    throw new InputError("a recording already exists here and is never overwritten; remove it deliberately to record again", {
      file: destination,
    });
  }
  const recordRoot = mkdtempSync(path.join(tmpdir(), "parity-record-"));
  try {
    const bridge = spawnBridge({
      modulePath: options.modulePath,
      providerId: options.providerId,
      env: { [RECORD_DIR_ENV_VAR]: recordRoot },
    });
    try {
      await runRuntimeScript(bridge, options.script, { timeoutMs: options.timeoutMs ?? 10_000, now: options.now });
    } finally {
      await bridge.close();
    }

    const scopeDir = path.join(recordRoot, options.providerId, scopeForThreadId(options.script.threadId));
    const lanes = Object.fromEntries(
      LANE_DIRECTIONS.map((direction) => [direction, readLaneLines(path.join(scopeDir, laneFileName(direction)))]),
    ) as Record<Direction, string[]>;
    const entries = LANE_DIRECTIONS.flatMap((direction) => lanes[direction].map((line) => JSON.parse(line) as { ts: number; run: number }));
    if (entries.length === 0) throw new InputError("the bridge recorded no line for the script's thread", { file: scopeDir });
    const firstTs = Math.min(...entries.map((entry) => entry.ts));
    const manifest: Manifest = ManifestSchema.parse({
      provider: options.providerId,
      cell: options.cell,
      threadId: options.script.threadId,
      scope: "thread",
      cliVersion: options.cliVersion,
      recordedAt: new Date(firstTs).toISOString().slice(0, 10),
      description: options.description,
      note: options.note,
      bridgeRuns: new Set(entries.map((entry) => entry.run)).size,
      lines: Object.fromEntries(LANE_DIRECTIONS.map((direction) => [direction, lanes[direction].length])),
    });

    const staging = path.join(path.dirname(destination), `.${options.cell}.staging-${process.pid}`);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    try {
      for (const direction of LANE_DIRECTIONS) {
        if (lanes[direction].length > 0) await writeFile(path.join(staging, laneFileName(direction)), `${lanes[direction].join("\n")}\n`);
      }
      await writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      await rename(staging, destination);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    return await readRecording(destination);
  } finally {
    rmSync(recordRoot, { recursive: true, force: true });
  }
}
