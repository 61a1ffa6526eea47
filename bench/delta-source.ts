import { readdir } from "node:fs/promises";
import path from "node:path";
import { CURRENT_BRIDGE_LANE_FILE } from "../harness/recording/lane-entry.js";
import { readLaneEntries } from "../harness/recording/reader.js";
import { parseThreadDeltaParams, type ThreadDelta } from "../stack/protocol/thread-delta.js";

/**
 * One recorded `thread/delta` notification, kept as a template: its raw line split around
 * every `"threadId":"<id>"` occurrence so a replica can splice in its own thread id without
 * re-serializing the JSON.
 */
export interface DeltaTemplate {
  /** The line's pieces around each thread-id occurrence. */
  pieces: string[];
  threadId: string;
  /** Deltas in this notification (`params.deltas.length`). */
  deltaCount: number;
  /** The deltas, validated once at load time (shared by every replica; never mutated). */
  deltas: ThreadDelta[];
  /** Recorded `ts` relative to the first template, in ms. */
  offsetMs: number;
}

/** The templates of a set of recordings, in recorded order, with their totals. */
export interface DeltaCorpus {
  templates: DeltaTemplate[];
  /** Sum of `deltaCount` over all templates. */
  deltasPerReplica: number;
  /** Span of recorded time per replica in ms (last offset + 1). */
  spanMs: number;
  /** Recording directories the templates came from. */
  sources: string[];
}

/**
 * Reads the `bridge→runtime.current.ndjson` lane of every recording directory under `root`
 * (e.g. `../shared/recordings/acp-cursor`) and keeps its `thread/delta` notifications as
 * templates. Lanes are streamed through the recording reader (validated entries).
 *
 * @throws InputError on a bad lane file; Error when no template is found.
 */
export async function loadDeltaCorpus(root: string): Promise<DeltaCorpus> {
  const templates: DeltaTemplate[] = [];
  const sources: string[] = [];
  // Cells were recorded at different times: keep each cell's own gaps and lay the cells
  // end to end, 1 s apart, so the clock only moves forward.
  let cursor = 0;
  for (const cell of (await readdir(root)).sort()) {
    const found = await readdir(path.join(root, cell)).catch(() => [] as string[]);
    if (!found.includes(CURRENT_BRIDGE_LANE_FILE)) continue;
    sources.push(path.join(root, cell));
    let first: number | undefined;
    let clock = cursor;
    for await (const { entry } of readLaneEntries(path.join(root, cell, CURRENT_BRIDGE_LANE_FILE), "bridge→runtime")) {
      const message = JSON.parse(entry.line) as { method?: string; params?: { threadId?: unknown; deltas?: unknown } };
      if (message.method !== "thread/delta") continue;
      const { threadId, deltas } = parseThreadDeltaParams(message.params);
      first ??= entry.ts;
      clock = Math.max(clock, cursor + entry.ts - first);
      const pieces = entry.line.split(`"threadId":"${threadId}"`);
      templates.push({ pieces, threadId, deltaCount: deltas.length, deltas, offsetMs: clock });
    }
    cursor = clock + 1000;
  }
  if (templates.length === 0) throw new Error(`no thread/delta lines in ${root}/*/${CURRENT_BRIDGE_LANE_FILE}`);
  const deltasPerReplica = templates.reduce((n, t) => n + t.deltaCount, 0);
  return { templates, deltasPerReplica, spanMs: (templates.at(-1)?.offsetMs ?? 0) + 1, sources };
}

/** One generated notification: its thread, time, validated deltas, and the raw line on demand. */
export interface GeneratedLine {
  /** Builds the raw `thread/delta` line (only when the consumer feeds lines). */
  line(): string;
  threadId: string;
  /** Replica number `k` (0-based). */
  replica: number;
  ts: number;
  deltaCount: number;
  /**
   * The template's validated deltas, for feeding the assembler without parsing. Shared by all
   * replicas: opaque raw provider payloads inside them keep the original thread id (only
   * {@link GeneratedLine.line} renames every occurrence).
   */
  deltas: ThreadDelta[];
}

/**
 * Streams replicas of the corpus until at least `targetDeltas` deltas were produced. Replica
 * `k` renames each thread to `<id>~r<k>` (independent threads, deterministic names) and is
 * shifted by `k × spanMs` so time only moves forward. Nothing is buffered: each line is
 * built when pulled.
 */
export function* replicateDeltaLines(corpus: DeltaCorpus, targetDeltas: number, startTs = 0): Generator<GeneratedLine> {
  let produced = 0;
  for (let k = 0; produced < targetDeltas; k++) {
    for (const t of corpus.templates) {
      const threadId = `${t.threadId}~r${k}`;
      yield {
        line: () => t.pieces.join(`"threadId":"${threadId}"`),
        threadId,
        replica: k,
        ts: startTs + k * corpus.spanMs + t.offsetMs,
        deltaCount: t.deltaCount,
        deltas: t.deltas,
      };
      produced += t.deltaCount;
      if (produced >= targetDeltas) return;
    }
  }
}
