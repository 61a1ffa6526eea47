/**
 * `parity import`: a record-mode folder written by a running bridge
 * (`BB_PROVIDER_BRIDGE_RECORD_DIR=<dir>`: every bridge process mirrors its four lanes into
 * `<dir>/<providerId>/<threadId>/<direction>.ndjson`, `_process` for lines of no thread; see
 * `stack/bridge-kit/record-scope.ts`) turned into gated cells: one recording per thread, in
 * `<out>/<provider>/<cell>/`, redacted and swept for surviving secrets exactly as `parity record`
 * does, with a derived manifest, and its oracle written as `<lanes>/<provider>/<cell>.json.pending`
 * for review (`parity review`, or `parity check -u`). A production session becomes a regression
 * cell without a cell script: the replay needs only the recording.
 *
 * Nothing is written unless every selected thread can be: an existing recording or oracle (or
 * pending oracle) is refused before anything is staged, and a surviving secret writes nothing.
 *
 * The pending oracle is the recorded bridge lane assembled; it is what `check` will hold the
 * recording to only if today's bridge, replayed on the recorded runtime lines, writes that lane
 * again. A session whose lines raced (a runtime that wrote `thread/start` and `turn/start` in one
 * write: the bridge answered the first only after the turn, an order a replay that writes each line
 * after what the recording shows before it does not reproduce) imports but never passes. So the
 * caller's {@link ImportRequest.verify} replays each staged recording before anything is written;
 * and a request answered only after a later line of its pipe was read (raced-requests.ts: a
 * runtime request, or an agent request the bridge answers on its own; a replay may pass or not, by
 * timing) is named whatever the replay did. A thread with either is not
 * offered as a clean pending oracle: nothing is written (all threads or none), or, with
 * `keepDiverging`, its recording without an oracle.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PROCESS_SCOPE } from "../../stack/bridge-kit/record-scope.js";
import { InputError, UsageError } from "../errors.js";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { ensureDir, writeFileAtomic } from "../recording/atomic-write.js";
import { writeOracleVersion } from "../recording/oracle-version.js";
import { LANE_DIRECTIONS, laneFileName, type Direction } from "../recording/lane-entry.js";
import { MANIFEST_FILE, MANIFEST_VERSION, ManifestSchema, type Manifest } from "../recording/manifest.js";
import { readRecording } from "../recording/reader.js";
import { RECORDED_PATHS } from "../recording/recorded-paths.js";
import { CELL_WORKSPACE_DIR } from "../runtime/cells.js";
import { fixtureHash } from "./fixture-hash.js";
import { createRedactor } from "../recording/redact.js";
import { RedactionSurvivorError, sweepDirectory } from "../recording/redact-verify.js";
import { secretValuesOf } from "./record-stage.js";
import { racedAgentAnswers, racedRequests } from "./raced-requests.js";

/** How an imported recording's manifest note starts (for people; version-1 manifests said it only there). */
const IMPORTED_NOTE = "Imported by parity import from ";

/**
 * The record-mode folder an imported recording came from (`<folder>/<provider>/<thread>`), or
 * undefined for a recording `parity import` did not write. Read from the manifest's `source`
 * (version 2, recording/manifest.ts); a version-1 manifest (an import before `source`) names it
 * only in its note, which is read as it was written then.
 */
export function importedFrom(manifest: Pick<Manifest, "note" | "source">): string | undefined {
  if (manifest.source !== undefined) return manifest.source.kind === "import" ? manifest.source.folder : undefined;
  if (!manifest.note.startsWith(IMPORTED_NOTE)) return undefined;
  const rest = manifest.note.slice(IMPORTED_NOTE.length);
  const end = rest.indexOf(";");
  return end < 0 ? rest : rest.slice(0, end);
}

/** A cell name as the recordings tree accepts it: a path segment of letters, digits, `.`, `_`, `-`. */
const CELL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** What `parity import` was asked. Paths absolute. */
export interface ImportRequest {
  /** The record-mode folder (the value `BB_PROVIDER_BRIDGE_RECORD_DIR` had). */
  dir: string;
  /** Recordings root: writes `<out>/<provider>/<cell>/`. */
  out: string;
  /** Oracles root: writes `<lanes>/<provider>/<cell>.json.pending`. */
  lanesDir: string;
  /** Only this provider's folder (default: every provider folder). */
  provider?: string;
  /** Only this thread (its id as recorded, or its folder name). */
  thread?: string;
  /** The cell name; only with exactly one thread selected (default: `import-<thread folder>`). */
  cell?: string;
  /** The agent CLI's version, when the caller knows it (default: not known). */
  cliVersion?: string;
  /** Extra redaction patterns (`--redact`). */
  redact: RegExp[];
  /** The environment whose secret-named values are redacted wherever they appear (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The home directory hidden in the lanes (default: `os.homedir()`). */
  home?: string;
  /**
   * Replays a staged recording (`dir`, complete with its manifest and workspace) through today's
   * bridge and returns what keeps it from being a clean cell, one line each (a divergence: its
   * seq, what was expected and what came; a thread lane other than `laneText`, the recorded one);
   * none when the replay writes the recorded lane again. Absent: not replayed (tests of staging).
   */
  verify?: (staged: { provider: string; cell: string; dir: string; laneText: string }) => Promise<string[]>;
  /** Write a recording `verify` found problems with anyway, without a pending oracle (default: write nothing). */
  keepDiverging?: boolean;
}

/** One imported thread. */
export interface ImportedCell {
  provider: string;
  cell: string;
  threadId: string;
  /** The recording directory written. */
  dir: string;
  /** The pending oracle written (accept it with `parity review` or `parity check -u`); null when none was (`problems`). */
  pendingOracle: string | null;
  manifest: Manifest;
  events: number;
  /** What the replay through today's bridge found ({@link ImportRequest.verify}); empty: a clean cell. */
  problems: string[];
  /** False when nothing was written (a thread had problems and `keepDiverging` was not given). */
  written: boolean;
}

interface SourceThread {
  provider: string;
  scope: string;
  folder: string;
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(error.code === "ENOENT" ? "no such folder" : `cannot be read (${error.code ?? "error"})`, { file: dir });
  });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function laneLines(file: string): Promise<string[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
}

/** The thread id the runtime named: the first `params.threadId` of the thread's runtime→bridge lane, else the folder name. */
function threadIdOf(runtimeLines: readonly string[], scope: string): string {
  for (const text of runtimeLines) {
    try {
      const entry = JSON.parse(text) as { line?: unknown };
      const message = typeof entry.line === "string" ? (JSON.parse(entry.line) as { params?: { threadId?: unknown } }) : undefined;
      if (typeof message?.params?.threadId === "string" && message.params.threadId !== "") return message.params.threadId;
    } catch {
      // Not JSON: the reader names it when the staged recording is read back.
    }
  }
  return scope;
}

function messageOf(entryText: string): Record<string, unknown> | undefined {
  try {
    const entry = JSON.parse(entryText) as { line?: unknown };
    const message: unknown = typeof entry.line === "string" ? JSON.parse(entry.line) : undefined;
    return typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The first `cwd` string anywhere in `value` (depth-first), or undefined. */
function firstCwd(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key === "cwd" && typeof child === "string" && path.isAbsolute(child)) return child;
    const found = firstCwd(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The workspace the session ran in: the first absolute `cwd` the runtime gave the bridge (its
 * thread start or resume), else the first the bridge gave its agent (ACP `session/new`).
 */
function sessionCwd(raw: Readonly<Record<Direction, readonly string[]>>): string | undefined {
  for (const direction of ["runtime→bridge", "bridge→provider"] as const) {
    for (const text of raw[direction]) {
      const found = firstCwd(messageOf(text)?.params);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The files of the workspace as the session found them, from what the bridge read for its agent
 * (ACP `fs/read_text_file` answers in `bridge→provider`): each file's first whole read before the
 * agent wrote it, by its path relative to the recorded workspace. A replay serves the agent's
 * reads from this fixture, as a recorded cell's are served from the cell's own. Partial reads
 * (`line`/`limit`) and files outside the workspace are left out. Lines are already redacted.
 */
function readFixture(lanes: Readonly<Record<Direction, readonly string[]>>): Map<string, string> {
  const entries = [...lanes["provider→bridge"], ...lanes["bridge→provider"]]
    .map((text) => ({ seq: (JSON.parse(text) as { seq: number }).seq, message: messageOf(text) }))
    .sort((a, b) => a.seq - b.seq);
  const reads = new Map<string, string>();
  const written = new Set<string>();
  const files = new Map<string, string>();
  for (const { message } of entries) {
    if (message === undefined) continue;
    const params = message.params as { path?: unknown; line?: unknown; limit?: unknown } | undefined;
    const id = JSON.stringify(message.id ?? null);
    if (message.method === "fs/write_text_file" && typeof params?.path === "string") written.add(params.path);
    else if (message.method === "fs/read_text_file" && typeof params?.path === "string" && params.line == null && params.limit == null) reads.set(id, params.path);
    else if (message.method === undefined && reads.has(id)) {
      const file = reads.get(id)!;
      reads.delete(id);
      const content = (message.result as { content?: unknown } | undefined)?.content;
      const rel = path.posix.relative(RECORDED_PATHS.workspace, file);
      if (typeof content === "string" && !written.has(file) && !files.has(rel) && rel !== "" && !rel.startsWith("..") && !path.posix.isAbsolute(rel)) files.set(rel, content);
    }
  }
  return files;
}

/** The threads of `req.dir` selected by `req.provider` and `req.thread`, in provider then folder order. */
async function selectThreads(req: ImportRequest): Promise<SourceThread[]> {
  const providers = await subdirectories(req.dir);
  if (providers.length === 0) throw new InputError("holds no provider folder; expected <provider>/<thread>/<direction>.ndjson as a bridge writes in record mode", { file: req.dir });
  if (req.provider !== undefined && !providers.includes(req.provider)) {
    throw new UsageError(`--provider ${req.provider}: ${req.dir} has no such provider folder (it has: ${providers.join(", ")})`);
  }
  const threads: SourceThread[] = [];
  for (const provider of req.provider !== undefined ? [req.provider] : providers) {
    for (const scope of await subdirectories(path.join(req.dir, provider))) {
      if (scope === PROCESS_SCOPE) continue;
      const folder = path.join(req.dir, provider, scope);
      // A bridge in record mode writes only lane files; a manifest marks one of parity's own
      // recordings (`parity import recordings` was read as 189 raced threads, each "not a clean cell").
      if (existsSync(path.join(folder, MANIFEST_FILE))) {
        throw new InputError(
          `a recording (it has ${MANIFEST_FILE}), not a thread a bridge wrote in record mode; import reads the folder BB_PROVIDER_BRIDGE_RECORD_DIR named (<dir>/<provider>/<thread>/<direction>.ndjson), and a recording is gated as it is (parity check --recordings ${req.dir})`,
          { file: folder },
        );
      }
      threads.push({ provider, scope, folder });
    }
  }
  return threads;
}

/** One selected thread staged in the temp root, read back, and judged (`problems`), before anything is written. */
interface StagedThread {
  provider: string;
  cell: string;
  threadId: string;
  /** The recording directory it becomes, and its oracle (without `.pending`). */
  destination: string;
  oracle: string;
  /** The staged recording directory. */
  stage: string;
  manifest: Manifest;
  /** The recorded bridge lane assembled: the pending oracle's text. */
  laneText: string;
  events: number;
  problems: string[];
}

/** What the import says of `s`, with `pendingOracle` as written (null: none). */
function importedCell(s: StagedThread, pendingOracle: string | null): ImportedCell {
  return { provider: s.provider, cell: s.cell, threadId: s.threadId, dir: s.destination, pendingOracle, manifest: s.manifest, events: s.events, problems: s.problems, written: true };
}

/**
 * Writes one staged thread: its recording (staged beside the destination, then renamed: it
 * appears whole or not at all) and, when it has no problems, its pending oracle and version.
 */
async function writeStaged(s: StagedThread): Promise<ImportedCell> {
  await ensureDir(path.dirname(s.destination));
  const beside = path.join(path.dirname(s.destination), `.${s.cell}.importing-${process.pid}`);
  await rm(beside, { recursive: true, force: true });
  try {
    await cp(s.stage, beside, { recursive: true });
    await rename(beside, s.destination);
  } finally {
    await rm(beside, { recursive: true, force: true });
  }
  if (s.problems.length > 0) return importedCell(s, null);
  await ensureDir(path.dirname(s.oracle));
  await writeFileAtomic(`${s.oracle}.pending`, s.laneText);
  // Its version sidecar pending beside it (recording/oracle-version.ts): accepted with the oracle.
  await writeOracleVersion(s.oracle, s.manifest.cliVersion, (file) => `${file}.pending`);
  return importedCell(s, `${s.oracle}.pending`);
}

/**
 * Imports every selected thread of a record-mode folder (see the module comment).
 *
 * @returns every selected thread; each `written: false` when one of them had problems (and
 *   `keepDiverging` was not given), then nothing was written.
 * @throws UsageError (exit 2) for a bad selection (`--cell` with several threads, an unknown
 *   provider or thread, a bad cell name); InputError (exit 2) for an unreadable folder, lane or
 *   manifest, or an existing recording or oracle; RedactionSurvivorError (exit 3) when a secret
 *   survived redaction — nothing is written in any of these cases.
 */
export async function importRecordDir(req: ImportRequest): Promise<ImportedCell[]> {
  let threads = await selectThreads(req);
  if (req.thread !== undefined) {
    const wanted = req.thread;
    const matching: SourceThread[] = [];
    for (const t of threads) {
      if (t.scope === wanted || threadIdOf(await laneLines(path.join(t.folder, laneFileName("runtime→bridge"))), t.scope) === wanted) matching.push(t);
    }
    if (matching.length === 0) throw new UsageError(`--thread ${wanted}: no thread of that id or folder under ${req.dir}`);
    threads = matching;
  }
  if (threads.length === 0) throw new InputError("holds no thread folder (only lines of no thread, _process)", { file: req.dir });
  if (req.cell !== undefined && threads.length > 1) {
    throw new UsageError(`--cell ${req.cell}: ${threads.length} threads are selected; name one with --thread (or leave --cell out: each becomes import-<thread>)`);
  }

  const planned = threads.map((t) => {
    const cell = req.cell ?? `import-${t.scope}`;
    if (!CELL_NAME.test(cell)) throw new UsageError(`--cell ${cell}: a cell name is letters, digits, ".", "_" and "-", starting with a letter or digit`);
    return { ...t, cell, destination: path.join(req.out, t.provider, cell), oracle: path.join(req.lanesDir, t.provider, `${cell}.json`) };
  });
  for (const p of planned) {
    for (const file of [p.destination, p.oracle, `${p.oracle}.pending`]) {
      if (existsSync(file)) throw new InputError("already exists and is never overwritten; give another --cell or --out", { file });
    }
  }

  const root = await mkdtemp(path.join(os.tmpdir(), "parity-import-"));
  try {
    const staged: StagedThread[] = [];
    for (const p of planned) {
      const raw = {} as Record<Direction, string[]>;
      for (const direction of LANE_DIRECTIONS) raw[direction] = await laneLines(path.join(p.folder, laneFileName(direction)));
      // The session's workspace is named as every recording names it, so the replay maps it to its own.
      const cwd = sessionCwd(raw);
      const redactor = createRedactor({
        home: req.home ?? os.homedir(),
        ...(cwd !== undefined && cwd !== "/" ? { paths: [{ from: cwd, to: RECORDED_PATHS.workspace }] } : {}),
        secrets: secretValuesOf(req.env ?? process.env),
        learnFrom: LANE_DIRECTIONS.flatMap((d) => raw[d]),
        patterns: req.redact,
      });
      const lanes = {} as Record<Direction, string[]>;
      for (const direction of LANE_DIRECTIONS) lanes[direction] = raw[direction].map((line) => redactor.redactLaneEntry(line));
      const entries = LANE_DIRECTIONS.flatMap((d) => lanes[d].map((l) => JSON.parse(l) as { ts: number; run: number }));
      if (entries.length === 0) throw new InputError("holds no recorded line", { file: p.folder });
      const threadId = threadIdOf(raw["runtime→bridge"], p.scope);
      const stage = path.join(root, p.provider, p.cell);
      await mkdir(stage, { recursive: true });
      const fixture = readFixture(lanes);
      for (const [rel, content] of fixture) {
        const file = path.join(stage, CELL_WORKSPACE_DIR, ...rel.split("/"));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
      const folder = `${path.basename(req.dir)}/${p.provider}/${p.scope}`;
      const manifest = ManifestSchema.parse({
        // `source` is a version-2 field (recording/manifest.ts MANIFEST_VERSION).
        manifestVersion: MANIFEST_VERSION,
        provider: p.provider,
        cell: p.cell,
        threadId,
        scope: "thread",
        cliVersion: req.cliVersion ?? "unknown (imported from a record-mode folder)",
        ...(fixture.size > 0 ? { workspace: await fixtureHash(path.join(stage, CELL_WORKSPACE_DIR)) } : {}),
        recordedAt: new Date(Math.min(...entries.map((e) => e.ts))).toISOString().slice(0, 10),
        description: `Thread ${threadId} of a running ${p.provider} bridge, imported from its record-mode folder.`,
        note: `${IMPORTED_NOTE}${folder}; no cell script: the recording alone replays it.${fixture.size > 0 ? ` Its workspace/ holds the ${fixture.size} file(s) the agent read through the bridge, as first read.` : ""}`,
        bridgeRuns: new Set(entries.map((e) => e.run)).size,
        lines: Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lanes[d].length])),
        source: { kind: "import", folder },
      });
      for (const direction of LANE_DIRECTIONS) {
        if (lanes[direction].length > 0) await writeFile(path.join(stage, laneFileName(direction)), `${lanes[direction].join("\n")}\n`);
      }
      await writeFile(path.join(stage, MANIFEST_FILE), redactor.redactText(`${JSON.stringify(manifest, null, 2)}\n`));
      const survivors = await sweepDirectory(stage, redactor);
      if (survivors.length > 0) throw new RedactionSurvivorError(survivors, (file) => path.join(p.provider, p.cell, path.relative(stage, file)));
      // Read back as `check` will read it: a lane that is not a valid recording is refused here.
      const built = buildThreadLane(await readRecording(stage));
      const events = normalizeThreadLane(built.events);
      const entriesOf = (direction: Direction) => lanes[direction].map((l) => JSON.parse(l) as { seq: number; run: number; line: string });
      const raced = [
        ...racedRequests(entriesOf("runtime→bridge"), entriesOf("bridge→runtime")),
        ...racedAgentAnswers({
          "runtime→bridge": entriesOf("runtime→bridge"),
          "bridge→runtime": entriesOf("bridge→runtime"),
          "provider→bridge": entriesOf("provider→bridge"),
          "bridge→provider": entriesOf("bridge→provider"),
        }),
      ];
      staged.push({
        provider: p.provider,
        cell: p.cell,
        destination: p.destination,
        oracle: p.oracle,
        stage,
        manifest,
        laneText: serializeThreadLane(events),
        events: events.length,
        threadId,
        problems: raced,
      });
    }
    for (const s of staged) {
      if (req.verify !== undefined) s.problems = [...s.problems, ...(await req.verify({ provider: s.provider, cell: s.cell, dir: s.stage, laneText: s.laneText }))];
    }
    // A thread that does not replay clean writes nothing, unless asked: then its recording alone.
    const write = req.keepDiverging === true || staged.every((s) => s.problems.length === 0);
    const imported: ImportedCell[] = [];
    for (const s of staged) imported.push(write ? await writeStaged(s) : { ...importedCell(s, null), written: false });
    return imported;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
