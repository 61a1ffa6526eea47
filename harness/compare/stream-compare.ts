/**
 * The parity verdict of a cell whose lanes are streamed (00-product.md flow 3; the 200k-line
 * benchmark in README.md): when no allowlist entry applies, the live lane is held against each
 * expected lane event by event, keeping no event once it has been compared. Two lanes that
 * align event for event (same skeleton at every position, ids corresponding one to one) have no
 * difference in `diffLanes` (its script is all `equal`, and the id check is the same); anything
 * else, or an applying entry, is left to `compareParity` over the whole lanes, so a reported
 * difference reads exactly as before.
 */
import { entryApplies, type AllowlistEntry } from "./allowlist.js";
import { IdCorrespondence } from "./id-correspondence.js";
import { comparisonOf, countDifferences, type ParityAgainst, type ParityComparison, type ParityCounts, type ParityDifference, type ParityVerdict } from "./parity.js";
import { skeletonKey } from "./skeleton.js";

/**
 * Checks two lanes fed in lockstep, one aligned pair at a time, for what `diffLanes` would find
 * between them: `feed` returns false at the first pair whose skeletons differ or whose ids break
 * the one-to-one correspondence. Holds only the id maps (`IdCorrespondence`), never an event.
 */
export function createAlignedLaneCheck(): { feed(oldEvent: unknown, newEvent: unknown): boolean } {
  const ids = new IdCorrespondence();
  return {
    feed(oldEvent, newEvent) {
      if (skeletonKey(oldEvent) !== skeletonKey(newEvent)) return false;
      return ids.pair(oldEvent, newEvent).length === 0;
    },
  };
}

/**
 * One side of a streamed comparison: its NORMALIZED events in lane order (iterated once), and
 * its counts, read after the events have been iterated to their end.
 */
export interface StreamedParityLeg {
  events: AsyncIterable<unknown> | Iterable<unknown>;
  counts(): ParityCounts;
}

/** Input of {@link compareParityStreamed}; as `CompareParityInput`, with streamed legs. */
export interface CompareParityStreamedInput<E extends AllowlistEntry> {
  provider: string;
  cell: string;
  live: StreamedParityLeg;
  oracle?: StreamedParityLeg | null;
  recorded?: StreamedParityLeg | null;
  allowlist: readonly E[];
  recordingDir?: string;
}

type Cursor = AsyncIterator<unknown> | Iterator<unknown>;

function cursorOf(events: AsyncIterable<unknown> | Iterable<unknown>): Cursor {
  return Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : (events as Iterable<unknown>)[Symbol.iterator]();
}

interface Side {
  cursor: Cursor;
  check: ReturnType<typeof createAlignedLaneCheck>;
  count: number;
}

/** Walks the live events against every side's; true when each side aligns with them to its end. */
async function alignAll(liveEvents: AsyncIterable<unknown> | Iterable<unknown>, sides: Side[], counted: () => void): Promise<boolean> {
  for await (const event of liveEvents) {
    counted();
    for (const side of sides) {
      const next = await side.cursor.next();
      if (next.done || !side.check.feed(next.value, event)) return false;
      side.count += 1;
    }
  }
  for (const side of sides) if (!(await side.cursor.next()).done) return false;
  return true;
}

/**
 * The verdict `compareParity` gives for the same legs, computed in one pass over the streams,
 * or `undefined` when it cannot be had that way: an allowlist entry applies to the cell (masking
 * needs whole lanes; no stream is read then), or some side's events do not align event for
 * event with the live ones (the caller then compares the whole lanes with `compareParity`; the
 * streams are closed). On success every comparison's `lines` is empty, as
 * `compareParity`'s is for lanes without an event difference.
 *
 * @throws what iterating a stream throws (e.g. InputError for a bad recording line)
 */
export async function compareParityStreamed<E extends AllowlistEntry>(input: CompareParityStreamedInput<E>): Promise<ParityVerdict<E> | undefined> {
  if (input.allowlist.some((entry) => entryApplies(entry, input.provider, input.cell, input.recordingDir))) return undefined;
  const sides: Array<Side & { against: ParityAgainst; leg: StreamedParityLeg }> = [];
  if (input.oracle) sides.push({ against: "oracle", leg: input.oracle, cursor: cursorOf(input.oracle.events), check: createAlignedLaneCheck(), count: 0 });
  if (input.recorded) sides.push({ against: "recording", leg: input.recorded, cursor: cursorOf(input.recorded.events), check: createAlignedLaneCheck(), count: 0 });
  let liveEvents = 0;
  let aligned = false;
  try {
    aligned = await alignAll(input.live.events, sides, () => (liveEvents += 1));
  } finally {
    // A side left part-read (a difference) closes its files now, not when collected.
    if (!aligned) for (const side of sides) await side.cursor.return?.();
  }
  if (!aligned) return undefined;

  const live = input.live.counts();
  const diffs: ParityDifference[] = [];
  const comparisons: ParityComparison[] = [];
  for (const side of sides) {
    const expected = side.leg.counts();
    diffs.push(...countDifferences(side.against, live, expected));
    comparisons.push(comparisonOf(side.against, live, expected, liveEvents, side.count, []));
  }
  return { provider: input.provider, cell: input.cell, passed: diffs.length === 0, diffs, stale: [], masked: [], comparisons };
}
