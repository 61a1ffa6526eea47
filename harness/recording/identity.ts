/**
 * A recording's identity: what it recorded, wherever its folder is. An allowlist entry made for
 * the recordings of another root (`"recordings": "../shared/recordings"`) names the recording it
 * was made for by this identity (`recordingId`), so it still applies when the same recordings are
 * reached by another path — a clone that is not beside `shared/`, a copy, a mount — and never to
 * another recording of the same `provider/cell` (the project's fixture `recordings/acp-cursor/turn-tools`
 * is not the real one). harness/compare/allowlist.ts `entryApplies`.
 *
 * The identity is a SHA-256 of the recording's lanes (spec 10 §4: `<direction>.ndjson`, those
 * present, in the order `LANE_DIRECTIONS` names them, then `bridge→runtime.current.ndjson` when
 * there, each with its name): what the agent, the runtime and the bridge said, and the bridge lane
 * the gate compares against. An entry masks a difference between today's bridge and that lane, so
 * a copy whose current lane `parity rerecord` refreshed is another recording for it (its
 * differences are gone: the entry would only be stale there; test/rerecord/rerecord-then-check.test.ts).
 * Not the manifest: its note and description are prose that may be edited.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CURRENT_BRIDGE_LANE_FILE, LANE_DIRECTIONS, laneFileName } from "./lane-names.js";

/** What an identity looks like: `sha256:` and 16 hex digits (64 bits: a name, not a signature). */
export const RECORDING_ID_PATTERN = /^sha256:[0-9a-f]{16}$/;

/**
 * The identity of the recording in `dir` (see the module comment), or undefined when `dir` holds
 * no recorded lane (not a recording, or not readable). Synchronous (the per-cell allowlist test is);
 * reads at most the five lane files.
 * @param dir a recording's folder (absolute, or relative to the process's working directory)
 */
export function recordingIdentity(dir: string): string | undefined {
  const hash = createHash("sha256");
  let lanes = 0;
  for (const name of [...LANE_DIRECTIONS.map(laneFileName), CURRENT_BRIDGE_LANE_FILE]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(dir, name));
    } catch {
      continue;
    }
    hash.update(`${name}\u0000${bytes.length}\u0000`);
    hash.update(bytes);
    lanes += 1;
  }
  return lanes === 0 ? undefined : `sha256:${hash.digest("hex").slice(0, 16)}`;
}
