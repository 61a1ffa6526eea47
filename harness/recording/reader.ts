import { stat } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../errors.js";
import { CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, compareLaneEntries, laneFileName, parseLaneEntry, type Direction, type LaneEntry } from "./lane-entry.js";
import { readLines } from "./line-reader.js";
import { kindOf, listDir } from "./locations.js";
import { MANIFEST_FILE, readManifest, type Manifest } from "./manifest.js";

// Finding recordings (locations.ts) needs no schema; exported here too, beside reading them.
export { listRecordings, type RecordingLocation } from "./locations.js";

/**
 * A recording read from `recordings/<provider>/<cell>/` (spec 10 §4; docs/design/00-product.md, Words):
 * its manifest, the four recorded lanes (a missing lane file reads as `[]`), the current
 * bridge lane when rerecord wrote one, and the merged view.
 */
export interface Recording {
  /** The directory it was read from, as given. */
  dir: string;
  manifest: Manifest;
  /** Each recorded lane in file order. */
  lanes: Record<Direction, LaneEntry[]>;
  /** `bridge→runtime.current.ndjson` in file order, or null when absent. */
  currentBridgeLane: LaneEntry[] | null;
  /**
   * All lanes merged by `(run, seq)`. With `useCurrent` (default true) the current bridge
   * lane, when present, replaces the recorded `bridge→runtime` lane (spec 10 §4,
   * `withCurrentBridgeLane`). Returns a new array on every call.
   */
  merged(opts?: { useCurrent?: boolean }): LaneEntry[];
}

/** Options of {@link readRecording} and {@link readLaneEntries}. */
export interface ReadRecordingOptions {
  /** Longest accepted lane line in bytes (see `DEFAULT_MAX_LINE_BYTES`). */
  maxLineBytes?: number;
  /**
   * Largest lane file {@link readRecording} loads, in bytes (default
   * {@link DEFAULT_MAX_LANE_FILE_BYTES}); it holds every entry in memory, so the bound is checked
   * before reading. {@link readLaneEntries} streams and has no such bound.
   */
  maxLaneFileBytes?: number;
  /**
   * The provider and cell the directory names (`<root>/<provider>/<cell>/`). When given, the
   * manifest must agree: a manifest copied or moved into another cell's directory would
   * otherwise be assembled, compared and reported under the wrong name.
   */
  expect?: { provider: string; cell: string };
}

/** Default largest lane file a recording may hold: 256 MiB (real ones are under 100 KiB). */
export const DEFAULT_MAX_LANE_FILE_BYTES = 256 * 1024 * 1024;

/** One validated entry with its 1-based line number in its file. */
export interface NumberedLaneEntry {
  entry: LaneEntry;
  lineNo: number;
}

/** Every file name a recording directory may hold with the `.ndjson` extension. */
const KNOWN_LANE_FILES = new Set<string>([...LANE_DIRECTIONS.map(laneFileName), CURRENT_BRIDGE_LANE_FILE]);

/**
 * Streams the validated entries of one lane file (spec 10 §4, Reading), never holding more
 * than one line. `direction` is the lane the file is named for; every entry's `dir` must equal it.
 *
 * @throws InputError `file:line` on a line that is too long, binary, not JSON, not an entry, or
 *   in the wrong lane; `file` alone when the file is missing or has no entries.
 */
export async function* readLaneEntries(file: string, direction: Direction, options: ReadRecordingOptions = {}): AsyncGenerator<NumberedLaneEntry> {
  let count = 0;
  const lineOptions = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  for await (const { lineNo, text } of readLines(file, lineOptions)) {
    if (text.trim() === "") throw new InputError("empty line; a lane file holds one JSON entry per line", { file, line: lineNo });
    count += 1;
    yield { entry: parseLaneEntry(text, direction, { file, line: lineNo }), lineNo };
  }
  if (count === 0) throw new InputError("empty lane file: a lane file exists only when it has entries", { file });
}

/**
 * Where each `(run, seq)` was first seen, to name both places of a duplicate: per run, per
 * seq, the file (an index into `files`) and line packed into one number. Numbers, not
 * `"run:seq"` → `"file:line"` strings: a 200k-line lane then indexes in a fraction of the memory.
 */
interface SeqIndex {
  files: string[];
  runs: Map<number, Map<number, number>>;
}

/** Lines per file the packed place can count (2^32, far above any lane file's limit). */
const LINE_SPAN = 2 ** 32;

function emptySeqIndex(): SeqIndex {
  return { files: [], runs: new Map() };
}

/** A copy of `index` that can grow without changing it. */
function copySeqIndex(index: SeqIndex): SeqIndex {
  return { files: [...index.files], runs: new Map([...index.runs].map(([run, seqs]) => [run, new Map(seqs)])) };
}

/**
 * Validates one lane file against `seen` and returns its entries and their count; with `keep`
 * false the entries are let go as they are read (the list comes back empty).
 */
async function readLaneFile(
  file: string,
  direction: Direction,
  seen: SeqIndex,
  options: ReadRecordingOptions,
  keep: boolean,
  onEntry?: (entry: LaneEntry, direction: Direction) => void,
): Promise<{ entries: LaneEntry[]; count: number }> {
  const limit = options.maxLaneFileBytes ?? DEFAULT_MAX_LANE_FILE_BYTES;
  const size = (await stat(file).catch(() => undefined))?.size ?? 0;
  if (size > limit) throw new InputError(`lane file is ${size} bytes; more than the ${limit}-byte limit of one recording lane`, { file });
  const entries: LaneEntry[] = [];
  let count = 0;
  const fileIndex = seen.files.push(file) - 1;
  let previous: { run: number; seq: number; lineNo: number } | undefined;
  for await (const { entry, lineNo } of readLaneEntries(file, direction, options)) {
    let seqs = seen.runs.get(entry.run);
    if (seqs === undefined) seen.runs.set(entry.run, (seqs = new Map()));
    const first = seqs.get(entry.seq);
    if (first !== undefined) {
      const where = `${seen.files[Math.floor(first / LINE_SPAN)]}:${first % LINE_SPAN}`;
      throw new InputError(`duplicate seq ${entry.seq} in run ${entry.run}: already used at ${where}`, { file, line: lineNo });
    }
    seqs.set(entry.seq, fileIndex * LINE_SPAN + lineNo);
    // A lane is written in seq order; one going backwards is a damaged or hand-edited file,
    // which the replay would otherwise meet as a long wait for an answer that came "before".
    if (previous !== undefined && (entry.run < previous.run || (entry.run === previous.run && entry.seq < previous.seq))) {
      const where = entry.run === previous.run ? `seq ${entry.seq} comes after seq ${previous.seq}` : `run ${entry.run} comes after run ${previous.run}`;
      throw new InputError(`${where} (line ${previous.lineNo}): a lane's entries go forwards in (run, seq)`, { file, line: lineNo });
    }
    previous = { run: entry.run, seq: entry.seq, lineNo };
    count += 1;
    onEntry?.(entry, direction);
    if (keep) entries.push(entry);
  }
  return { entries, count };
}

/** Why a lane file or manifest name that is not a regular file cannot be read. */
async function notAFileProblem(file: string, kind: "dir" | "other"): Promise<string> {
  if (kind === "dir") return "is a directory, not a file";
  try {
    await stat(file);
    return "is not a regular file";
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return "is a symbolic link loop (ELOOP), not a file";
    if (code === "ENOENT") return "is a symbolic link to nothing (dangling), not a file";
    return `cannot be read (${code ?? String(thrown)})`;
  }
}

/**
 * Reads and validates one recording directory (spec 10 §4). Lane files are streamed line
 * by line; a `seq` may appear only once per run across the recorded lanes, and once per run
 * across the current bridge lane and the three other lanes. The manifest's `lines` must
 * equal the recorded lanes' entry counts.
 *
 * @throws InputError naming `file:line` (or `file`) for: an unknown `.ndjson` file, a missing
 *   or invalid manifest, any bad lane line (see {@link readLaneEntries}), a duplicate `seq`,
 *   an empty lane file, a lane file over `maxLaneFileBytes`, a seq that goes backwards
 *   within a lane file, a lane file or manifest that is a directory, a symbolic link loop or
 *   dangling link, and (all at once, `; `-separated) manifest line counts that disagree with
 *   the lanes and (with `expect`) a manifest provider/cell that is not the directory's.
 */
export async function readRecording(dir: string, options: ReadRecordingOptions = {}): Promise<Recording> {
  const { manifest, lanes, currentBridgeLane } = await loadRecording(dir, options, true);
  return {
    dir,
    manifest,
    lanes,
    currentBridgeLane,
    merged(opts = {}) {
      const useCurrent = opts.useCurrent ?? true;
      const bridge = useCurrent && currentBridgeLane !== null ? currentBridgeLane : lanes["bridge→runtime"];
      const all = LANE_DIRECTIONS.flatMap((d) => (d === "bridge→runtime" ? bridge : lanes[d]));
      return all.sort(compareLaneEntries);
    },
  };
}

/** A recording checked by {@link validateRecording}: what it is, without its entries. */
export interface ValidatedRecording {
  /** The directory it was read from, as given. */
  dir: string;
  manifest: Manifest;
  /** Whether `bridge→runtime.current.ndjson` is present. */
  hasCurrentBridgeLane: boolean;
}

/**
 * Checks a recording directory exactly as {@link readRecording} does (same errors, same order)
 * while holding none of its entries: each lane file is streamed and let go, so a recording of
 * any length is checked in memory that does not grow with it (only the per-run seq index used to
 * name duplicates does). Read the entries afterwards with {@link readRecording} or stream them
 * with {@link readMergedEntries}. `onEntry` sees each entry of the four recorded lanes (not the
 * current bridge lane) as it is validated, lane by lane, each in file order; what it saw counts
 * only when the call resolves.
 *
 * @throws InputError as {@link readRecording}
 */
export async function validateRecording(dir: string, options: ReadRecordingOptions & { onEntry?: (entry: LaneEntry, direction: Direction) => void } = {}): Promise<ValidatedRecording> {
  const { manifest, currentBridgeLane } = await loadRecording(dir, options, false, options.onEntry);
  return { dir, manifest, hasCurrentBridgeLane: currentBridgeLane !== null };
}

/** The checks of {@link readRecording}; with `keep` false every lane comes back empty (counted, not held). */
async function loadRecording(
  dir: string,
  options: ReadRecordingOptions,
  keep: boolean,
  onEntry?: (entry: LaneEntry, direction: Direction) => void,
): Promise<{ manifest: Manifest; lanes: Record<Direction, LaneEntry[]>; currentBridgeLane: LaneEntry[] | null }> {
  const names = new Set<string>();
  for (const dirent of await listDir(dir)) {
    const kind = await kindOf(dir, dirent);
    if (kind !== "file" && (KNOWN_LANE_FILES.has(dirent.name) || dirent.name === MANIFEST_FILE)) {
      throw new InputError(await notAFileProblem(join(dir, dirent.name), kind), { file: join(dir, dirent.name) });
    }
    if (kind !== "file") continue;
    if (dirent.name.endsWith(".ndjson") && !KNOWN_LANE_FILES.has(dirent.name)) {
      throw new InputError(`unknown lane file name; a recording holds ${[...KNOWN_LANE_FILES].join(", ")} and ${MANIFEST_FILE}`, { file: join(dir, dirent.name) });
    }
    names.add(dirent.name);
  }
  const manifestFile = join(dir, MANIFEST_FILE);
  const manifest = await readManifest(manifestFile);
  // Every disagreement of the manifest with its directory and its lanes is reported at once.
  const manifestProblems: string[] = [];
  for (const field of ["provider", "cell"] as const) {
    const named = options.expect?.[field];
    if (named !== undefined && manifest[field] !== named) {
      manifestProblems.push(`${field} is "${manifest[field]}" but the directory names ${field} "${named}"`);
    }
  }

  // The three lanes a current lane does not replace share one index; the recorded and the
  // current bridge lane are each checked against a copy of it.
  const shared = emptySeqIndex();
  const lanes = {} as Record<Direction, LaneEntry[]>;
  const counts = {} as Record<Direction, number>;
  const none = () => ({ entries: [], count: 0 });
  for (const direction of LANE_DIRECTIONS) {
    if (direction === "bridge→runtime") continue;
    const name = laneFileName(direction);
    ({ entries: lanes[direction], count: counts[direction] } = names.has(name) ? await readLaneFile(join(dir, name), direction, shared, options, keep, onEntry) : none());
  }
  const bridgeName = laneFileName("bridge→runtime");
  ({ entries: lanes["bridge→runtime"], count: counts["bridge→runtime"] } = names.has(bridgeName)
    ? await readLaneFile(join(dir, bridgeName), "bridge→runtime", copySeqIndex(shared), options, keep, onEntry)
    : none());
  const currentBridgeLane = names.has(CURRENT_BRIDGE_LANE_FILE) ? (await readLaneFile(join(dir, CURRENT_BRIDGE_LANE_FILE), "bridge→runtime", copySeqIndex(shared), options, keep)).entries : null;

  for (const direction of LANE_DIRECTIONS) {
    const declared = manifest.lines[direction];
    const actual = counts[direction];
    if (declared !== actual) manifestProblems.push(`lines["${direction}"] is ${declared} but ${laneFileName(direction)} has ${actual} entries`);
  }
  if (manifestProblems.length > 0) throw new InputError(manifestProblems.join("; "), { file: manifestFile });

  return { manifest, lanes, currentBridgeLane };
}

/**
 * Merges lane streams, each in `(run, seq)` order, into one stream in `(run, seq)` order, holding
 * one entry per stream (spec 10 §4, merged view).
 */
export async function* mergeLaneStreams(lanes: ReadonlyArray<AsyncIterator<NumberedLaneEntry>>): AsyncGenerator<LaneEntry> {
  const heads: Array<LaneEntry | undefined> = [];
  for (const lane of lanes) heads.push((await lane.next()).value?.entry);
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i += 1) {
      const head = heads[i];
      if (head && (best === -1 || compareLaneEntries(head, heads[best]!) < 0)) best = i;
    }
    if (best === -1) return;
    const entry = heads[best]!;
    heads[best] = (await lanes[best]!.next()).value?.entry;
    yield entry;
  }
}

/**
 * Streams the merged view of a recording directory (what `Recording.merged` returns) one entry
 * at a time: its lane files merged by `(run, seq)`, the current bridge lane in place of the
 * recorded `bridge→runtime` lane when present and `useCurrent` (default true). Memory does not
 * grow with the recording. Entries are parsed as {@link readLaneEntries} does; the directory is
 * expected to have passed {@link validateRecording} (duplicates and counts are not checked here).
 *
 * @throws InputError naming file and line for a bad lane line
 */
export async function* readMergedEntries(dir: string, options: { useCurrent?: boolean } & ReadRecordingOptions = {}): AsyncGenerator<LaneEntry> {
  const names = new Set((await listDir(dir)).map((dirent) => dirent.name));
  const useCurrent = (options.useCurrent ?? true) && names.has(CURRENT_BRIDGE_LANE_FILE);
  const lanes = LANE_DIRECTIONS.flatMap((direction) => {
    const name = direction === "bridge→runtime" && useCurrent ? CURRENT_BRIDGE_LANE_FILE : laneFileName(direction);
    return names.has(name) ? [readLaneEntries(join(dir, name), direction, options)] : [];
  });
  yield* mergeLaneStreams(lanes);
}
