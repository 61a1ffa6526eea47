/**
 * The two legs the gate compares for a cell, in the form that lets a long cell check in flat
 * memory (README.md, benchmarks): the live lane is normalized event by event as the replay
 * assembles it and spilled to a file (harness/lanes/event-spill.ts), the recorded lane is
 * assembled from the recording directory as it is read. Each leg can be streamed once
 * (`compareParityStreamed`) and, when the streamed comparison cannot decide, loaded whole
 * (`compareParity`) with exactly the events `normalizeThreadLane` would give.
 */
import { join } from "node:path";
import type { ThreadEvent } from "../../stack/protocol/thread-events.js";
import { buildThreadLane, createLaneNormalizer, normalizeThreadLane, streamThreadLane, type GrammarDrop, type ThreadLaneResult } from "../lanes/index.js";
import { createEventSpill, type EventSpill } from "../lanes/event-spill.js";
import { readOracleEvents, scanOracle } from "../lanes/oracle-stream.js";
import type { Manifest } from "../recording/manifest.js";
import type { Recording } from "../recording/reader.js";
import { grammarDropKeys, type ParityCounts, type ParityLeg } from "./parity.js";
import type { StreamedParityLeg } from "./stream-compare.js";

/** A leg that can be streamed (once) and loaded whole. */
export interface CellLeg {
  /** The leg's events one at a time; call once. */
  stream(): StreamedParityLeg;
  /** The whole leg, read again from its source. */
  load(): Promise<ParityLeg>;
}

/** The live lanes of a check run, one spill file per replayed cell (see the module comment). */
export interface LiveLaneSpills {
  /**
   * Opens (or opens again, for a cell replayed again) the spill of the cell recorded in
   * `recordingDir` and returns the sink the replay feeds its assembled events to.
   */
  open(recordingDir: string): (event: ThreadEvent) => void;
  /**
   * The cell's live leg: its spilled events with the replay's counts; `undefined` when no replay
   * of the cell opened a spill. Closes the spill for writing.
   */
  leg(recordingDir: string, lane: Pick<ThreadLaneResult, "unhandled" | "grammarDrops">): (CellLeg & { events: number }) | undefined;
  /** Forgets a cell's spill (its file stays until the caller removes the directory). */
  release(recordingDir: string): void;
}

/** Counts of a built lane as a leg carries them. */
function countsOf(lane: { unhandled: number; grammarDrops: readonly GrammarDrop[] }): ParityCounts {
  return { unhandled: lane.unhandled, grammarDrops: grammarDropKeys(lane.grammarDrops) };
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Spills live lanes into files named by a counter inside `dir` (an existing, private temporary directory). */
export function createLiveLaneSpills(dir: string): LiveLaneSpills {
  const spills = new Map<string, EventSpill>();
  let files = 0;
  return {
    open(recordingDir) {
      spills.get(recordingDir)?.close();
      const spill = createEventSpill(join(dir, `${(files += 1)}.ndjson`));
      spills.set(recordingDir, spill);
      const normalize = createLaneNormalizer();
      return (event) => spill.push(normalize(event));
    },
    leg(recordingDir, lane) {
      const spill = spills.get(recordingDir);
      if (spill === undefined) return undefined;
      spill.close();
      const counts = countsOf(lane);
      return {
        events: spill.count,
        stream: () => ({ events: spill.events(), counts: () => counts }),
        load: async () => ({ events: await collect(spill.events()), ...counts }),
      };
    },
    release(recordingDir) {
      spills.get(recordingDir)?.close();
      spills.delete(recordingDir);
    },
  };
}

/**
 * The recorded leg of a cell (its own bridge lane, the current one when present, assembled
 * today): streamed from the directory, or built from an already read recording.
 */
export function recordedLeg(source: { dir: string; manifest: Pick<Manifest, "provider" | "scope"> } | Recording): CellLeg {
  if ("merged" in source) {
    const lane = buildThreadLane(source, { useCurrent: true });
    const leg = { events: normalizeThreadLane(lane.events), ...countsOf(lane) };
    return { stream: () => ({ events: leg.events, counts: () => leg }), load: () => Promise.resolve(leg) };
  }
  return {
    stream() {
      const lane = streamThreadLane(source.dir, source.manifest, { useCurrent: true });
      const normalize = createLaneNormalizer();
      async function* events(): AsyncGenerator<unknown> {
        for await (const event of lane.events) yield normalize(event);
      }
      return { events: events(), counts: () => countsOf(lane.result()) };
    },
    async load() {
      const lane = streamThreadLane(source.dir, source.manifest, { useCurrent: true });
      const events = await collect(lane.events);
      return { events: normalizeThreadLane(events), ...countsOf(lane.result()) };
    },
  };
}

/** An in-memory leg (the oracle, read from its file) as a {@link CellLeg}. */
export function heldLeg(leg: ParityLeg): CellLeg {
  return { stream: () => ({ events: leg.events, counts: () => leg }), load: () => Promise.resolve(leg) };
}

/**
 * The oracle leg of a cell and where its events start: streamed from the file when it is one
 * JSON array (`oracle-stream.ts`: one pass to check it and count, one per use), else read whole
 * by `readWhole`, which also gives the file's errors (and `eventLinesOf` its event lines).
 */
export async function oracleLeg(
  file: string,
  readWhole: () => Promise<ParityLeg & { text: string }>,
  eventLinesOf: (text: string, leg: ParityLeg) => number[] | undefined,
): Promise<{ leg: CellLeg; eventLines: number[] | undefined }> {
  // The file's text is let go as soon as it is parsed (a long oracle's text is its size again).
  const load = async (): Promise<ParityLeg> => {
    const { text: _text, ...leg } = await readWhole();
    return leg;
  };
  const scan = await scanOracle(file);
  if (scan === undefined) {
    const { text, ...whole } = await readWhole();
    return { leg: heldLeg(whole), eventLines: eventLinesOf(text, whole) };
  }
  return {
    eventLines: scan.eventLines,
    leg: {
      stream: () => ({ events: readOracleEvents(file), counts: () => ({}) }),
      load,
    },
  };
}
