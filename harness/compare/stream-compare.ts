/**
 * The parity verdict of a cell whose lanes are streamed (docs/design/00-product.md flow 3; the 200k-line
 * benchmark in README.md): when no allowlist entry applies, the live lane is held against each
 * expected lane event by event, keeping no event once it has been compared. Two lanes that
 * align event for event (same skeleton at every position, ids corresponding one to one) have no
 * difference in `diffLanes` (its script is all `equal`, and the id check is the same); anything
 * else, or an applying entry, is left to `compareParity` over the whole lanes, so a reported
 * difference reads exactly as before.
 */
import { appliesTo, type AllowlistEntry } from "./allowlist.js";
import { IdCorrespondence } from "./id-correspondence.js";
import { compareParity, comparisonOf, countDifferences, type ParityAgainst, type ParityComparison, type ParityCounts, type ParityDifference, type ParityLeg, type ParityVerdict } from "./parity.js";
import { skeletonKey } from "./skeleton.js";
import type { PrintedOutputs } from "./run-to-run.js";

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
  /** False once this side was found not to align with the live lane (its cursor is then closed). */
  aligned: boolean;
}

/**
 * Walks the live events against every side's, one pass; a side that stops aligning is closed
 * and left behind while the others go on (the walk ends early when none is left). After it,
 * `aligned` says which sides align with the live lane to their end.
 */
async function alignAll(liveEvents: AsyncIterable<unknown> | Iterable<unknown>, sides: Side[], counted: () => void): Promise<void> {
  const drop = async (side: Side) => {
    side.aligned = false;
    await side.cursor.return?.();
  };
  try {
    for await (const event of liveEvents) {
      counted();
      for (const side of sides) {
        if (!side.aligned) continue;
        const next = await side.cursor.next();
        if (next.done || !side.check.feed(next.value, event)) await drop(side);
        else side.count += 1;
      }
      if (sides.length > 0 && !sides.some((side) => side.aligned)) return;
    }
    for (const side of sides) if (side.aligned && !(await side.cursor.next()).done) await drop(side);
  } catch (error) {
    for (const side of sides) if (side.aligned) await drop(side);
    throw error;
  }
}

/** Opens the sides of a streamed comparison in verdict order (oracle, then recording). */
function openSides(input: { oracle?: StreamedParityLeg | null; recorded?: StreamedParityLeg | null }): Array<Side & { against: ParityAgainst; leg: StreamedParityLeg }> {
  const sides: Array<Side & { against: ParityAgainst; leg: StreamedParityLeg }> = [];
  const open = (against: ParityAgainst, leg: StreamedParityLeg) => sides.push({ against, leg, cursor: cursorOf(leg.events), check: createAlignedLaneCheck(), count: 0, aligned: true });
  if (input.oracle) open("oracle", input.oracle);
  if (input.recorded) open("recording", input.recorded);
  return sides;
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
  if (input.allowlist.some(appliesTo(input.provider, input.cell, input.recordingDir))) return undefined;
  const sides = openSides(input);
  let liveEvents = 0;
  await alignAll(input.live.events, sides, () => (liveEvents += 1));
  if (!sides.every((side) => side.aligned)) return undefined;

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

/** A leg that can be streamed once and loaded whole (see harness/compare/cell-legs.ts). */
export interface ComparableLeg {
  stream(): StreamedParityLeg;
  load(): Promise<ParityLeg>;
}

/**
 * The verdict `compareParity` gives, side by side: with no applying allowlist entry every side
 * is compared with the live lane independently (masking changes nothing), so one streamed pass
 * settles each side that aligns event for event, and only a side that does not is compared
 * whole (`compareParity` with the live leg and that side alone, loaded then and let go after).
 * A cell that differs from its oracle only thus never holds its recorded lane. `undefined` when
 * an allowlist entry applies to the cell (nothing is read then).
 *
 * @throws what reading a leg throws (e.g. InputError for a bad recording line)
 */
export async function compareParityBySide<E extends AllowlistEntry>(input: {
  provider: string;
  cell: string;
  live: ComparableLeg;
  oracle?: ComparableLeg | null;
  recorded?: ComparableLeg | null;
  allowlist: readonly E[];
  recordingDir?: string;
  /** See `CompareParityInput.oracleFromAnotherRun` (parity.ts): an oracle side that does not align is compared with the run-to-run rules. */
  oracleFromAnotherRun?: boolean;
  /** See `CompareParityInput.printed` (parity.ts). */
  printed?: PrintedOutputs;
}): Promise<ParityVerdict<E> | undefined> {
  if (input.allowlist.some(appliesTo(input.provider, input.cell, input.recordingDir))) return undefined;
  const legs = { oracle: input.oracle ?? null, recording: input.recorded ?? null };
  const liveStream = input.live.stream();
  const sides = openSides({ oracle: legs.oracle?.stream() ?? null, recorded: legs.recording?.stream() ?? null });
  let liveEvents = 0;
  await alignAll(liveStream.events, sides, () => (liveEvents += 1));
  const live = liveStream.counts();
  let liveWhole: ParityLeg | undefined;
  const diffs: ParityDifference[] = [];
  const comparisons: ParityComparison[] = [];
  for (const side of sides) {
    if (side.aligned) {
      const expected = side.leg.counts();
      diffs.push(...countDifferences(side.against, live, expected));
      comparisons.push(comparisonOf(side.against, live, expected, liveEvents, side.count, []));
      continue;
    }
    liveWhole ??= await input.live.load();
    const expected = await legs[side.against]!.load();
    const whole = compareParity({
      provider: input.provider,
      cell: input.cell,
      allowlist: [],
      live: liveWhole,
      ...(input.oracleFromAnotherRun === true ? { oracleFromAnotherRun: true } : {}),
      ...(input.printed !== undefined ? { printed: input.printed } : {}),
      ...(side.against === "oracle" ? { oracle: expected } : { recorded: expected }),
    });
    diffs.push(...whole.diffs);
    comparisons.push(...whole.comparisons);
  }
  return { provider: input.provider, cell: input.cell, passed: diffs.length === 0, diffs, stale: [], masked: [], comparisons };
}
