/**
 * The names of a recording's lanes and their files (spec 10 §4), without the entry schema: what
 * finding recordings needs (`locations.ts`), so `parity check` selects its cells and spawns its
 * bridges before zod is loaded (issue 25; `test/cli/check-spawn-early.test.ts`).
 */

/**
 * The four wire lanes of a recording, in the order spec 10 §4 names them. Each is used
 * verbatim as a file name: `<direction>.ndjson`.
 */
export const LANE_DIRECTIONS = ["runtime→bridge", "bridge→runtime", "provider→bridge", "bridge→provider"] as const;

/** One direction of one boundary (spec 10 §4, "Direction names"). */
export type Direction = (typeof LANE_DIRECTIONS)[number];

/**
 * File name of the bridge lane written by rerecord beside a recording (spec 10 §4,
 * "`bridge→runtime.current.ndjson`"). Holds only `bridge→runtime` entries; `seq` may be fractional.
 */
export const CURRENT_BRIDGE_LANE_FILE = "bridge→runtime.current.ndjson";

/** File name of a recorded lane: `<direction>.ndjson` (spec 10 §4, Layout). */
export function laneFileName(direction: Direction): string {
  return `${direction}.ndjson`;
}
