/**
 * The writing half of `parity record` of one cell (see record-cell.ts): the thread's lanes read
 * from the bridge's record dir, normalized and redacted, the manifest, everything staged in the
 * run's root and swept for surviving secrets, and the thread lane built from the staged copy.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { launchEnvOf } from "../families/index.js";
import { machinePathDetectors, recordPathRewrites, type PreparedProvider } from "../families/record-provider.js";
import { PROCESS_SCOPE, scopeForThreadId } from "../../stack/bridge-kit/record-scope.js";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { LANE_DIRECTIONS, laneFileName, type Direction } from "../recording/lane-entry.js";
import { MANIFEST_FILE, ManifestSchema } from "../recording/manifest.js";
import { readRecording, type Recording } from "../recording/reader.js";
import { SECRET_KEY_PATTERN, createRedactor, type Redactor } from "../recording/redact.js";
import { RedactionSurvivorError, sweepDirectory } from "../recording/redact-verify.js";
import type { CellRun } from "../runtime/cell-driver.js";
import { CELL_WORKSPACE_DIR } from "../runtime/cells.js";
import { fixtureHash } from "./fixture-hash.js";
import { NETWORK_NETNS, NETWORK_WATCHED } from "./network.js";
import type { LiveRecordContext } from "./record-run.js";
import { CellDivergedError } from "./record-request.js";

/** Values of secret-named variables of `env` (8+ characters): the redactor hides them wherever they appear. */
export function secretValuesOf(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([key, value]) => SECRET_KEY_PATTERN.test(key) && typeof value === "string" && value.length >= 8)
    .map(([, value]) => value as string);
}

async function readLaneLines(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
}

/** The recorded thread's four lanes, normalized by the provider and redacted; and the redactor that did it. */
async function redactedLanes(
  ctx: LiveRecordContext,
  prepared: PreparedProvider,
  scopeDir: string,
  modelOrigin: string | undefined,
): Promise<{ lanes: Record<Direction, string[]>; redactor: Redactor }> {
  const { req, provider, dirs, root } = ctx;
  const raw = {} as Record<Direction, string[]>;
  for (const direction of LANE_DIRECTIONS) raw[direction] = await readLaneLines(path.join(scopeDir, laneFileName(direction)));
  const inheritedPath = process.env.PATH ?? "";
  const pathRedaction = { home: req.home ?? os.homedir(), paths: recordPathRewrites(dirs, inheritedPath, modelOrigin) };
  const redactor = createRedactor({
    ...pathRedaction,
    secrets: [...secretValuesOf(process.env), ...secretValuesOf(prepared.env), ...secretValuesOf(launchEnvOf(prepared.options, req.families))],
    // Secret values of the env maps in the lanes (agent launch spec env, cell envVars) are redacted everywhere.
    learnFrom: LANE_DIRECTIONS.flatMap((d) => raw[d]),
    patterns: [...req.redact, ...(provider.redactPatterns ?? [])],
    // The temp root's random name must never reach a recording, in any spelling.
    // Nor any of the recording machine's own PATH entries (a launch spec's PATH the rewrite missed).
    forbidden: [new RegExp(path.basename(root).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), ...machinePathDetectors(inheritedPath, createRedactor(pathRedaction).redactText)],
  });
  const lanes = {} as Record<Direction, string[]>;
  for (const direction of LANE_DIRECTIONS) {
    lanes[direction] = raw[direction].map((l) => redactor.redactLaneEntry((provider.normalize ?? []).reduce((text, n) => text.replace(n.pattern, n.replace), l)));
  }
  return { lanes, redactor };
}

/** What a staged recording holds: its folder, the recording read back, its thread lane and the oracle text. */
export interface StagedRecording {
  stage: string;
  recording: Recording;
  built: ReturnType<typeof buildThreadLane>;
  laneText: string;
}

/**
 * Stages the recording of `run` in `<root>/stage` and reads it back.
 *
 * @throws CellDivergedError when the bridge recorded nothing in the thread's scope;
 *   RedactionSurvivorError when a secret survived redaction.
 */
export async function stageRecording(ctx: LiveRecordContext, prepared: PreparedProvider, run: CellRun, modelOrigin?: string): Promise<StagedRecording> {
  const { req, provider, cell, root, isolation } = ctx;
  const def = cell.definition;
  const threadId = def.recordThread ?? run.lastThreadId;
  const scope = def.scope === "process" ? PROCESS_SCOPE : scopeForThreadId(threadId);
  const { lanes, redactor } = await redactedLanes(ctx, prepared, path.join(ctx.recordDir, provider.id, scope), modelOrigin);
  const entries = LANE_DIRECTIONS.flatMap((d) => lanes[d].map((l) => JSON.parse(l) as { ts: number; run: number }));
  if (entries.length === 0) throw new CellDivergedError(req.cell, [`the bridge recorded no line in scope ${scope}`]);
  const manifest = ManifestSchema.parse({
    provider: provider.id,
    cell: req.cell,
    threadId: def.scope === "process" ? null : threadId,
    scope: def.scope,
    cliVersion: prepared.cliVersion,
    ...(prepared.modelApi ? { modelApi: prepared.modelApi } : {}),
    ...(cell.workspace ? { workspace: await fixtureHash(cell.workspace) } : {}),
    ...(isolation ? { network: isolation.kind === "netns" ? NETWORK_NETNS : NETWORK_WATCHED } : {}),
    recordedAt: new Date(Math.min(...entries.map((e) => e.ts))).toISOString().slice(0, 10),
    description: def.description,
    note: [prepared.note, def.note].filter((n) => n !== "").join(" "),
    bridgeRuns: new Set(entries.map((e) => e.run)).size,
    lines: Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lanes[d].length])),
  });

  const stage = path.join(root, "stage");
  await mkdir(stage);
  for (const direction of LANE_DIRECTIONS) {
    if (lanes[direction].length > 0) await writeFile(path.join(stage, laneFileName(direction)), `${lanes[direction].join("\n")}\n`);
  }
  await writeFile(path.join(stage, MANIFEST_FILE), redactor.redactText(`${JSON.stringify(manifest, null, 2)}\n`));
  // The recording carries the fixture it was recorded in, so it replays in the same workspace
  // wherever its cell lives (harness/replay/sandbox.ts); the manifest names it by hash.
  if (cell.workspace) await cp(cell.workspace, path.join(stage, CELL_WORKSPACE_DIR), { recursive: true });
  const survivors = await sweepDirectory(stage, redactor);
  if (survivors.length > 0) {
    throw new RedactionSurvivorError(survivors, (file) => path.join(req.providerId, req.cell, path.relative(stage, file)));
  }
  const recording = await readRecording(stage);
  const built = buildThreadLane(recording);
  const laneText = serializeThreadLane(built.scope === "process" ? [] : normalizeThreadLane(built.events));
  return { stage, recording, built, laneText };
}
