/**
 * A recording's identity: what it recorded, wherever its folder is. An allowlist entry made for
 * the recordings of another root (`"recordings": "../shared/recordings"`) names the recording it
 * was made for by this identity (`recordingId`), so it still applies when the same recordings are
 * reached by another path — a clone that is not beside `shared/`, a copy, a mount — and never to
 * another recording of the same `provider/cell` (the project's fixture `recordings/acp-cursor/turn-tools`
 * is not the real one). harness/compare/allowlist.ts `entryApplies`.
 *
 * The identity is a SHA-256 of what really happened at the recording's two outer ends: the lanes
 * the runtime and the agent said (spec 10 §4: `runtime→bridge.ndjson`, `provider→bridge.ndjson`,
 * those present, in that order, each with its name). Not the bridge's lanes: they are what the
 * bridge of the day made of it, and `parity rerecord` writes `bridge→runtime.current.ndjson`
 * beside a recording whenever today's bridge says something else, so an identity that held it
 * changed on every rerecord of the shared recordings and their entries fell back on the root
 * path (test/check/allowlist-recording-id.test.ts). An entry that a rerecord made stale there is
 * judged stale, as anywhere (`parity allow --prune`). Not the manifest: its note and description
 * are prose that may be edited.
 *
 * Version 2 of the identity: version 1 (session 16) also hashed both bridge lanes and the current
 * lane; `allowlists/acp-cursor.json`'s ids were rewritten once to version 2 in the commit that
 * changed it (each checked to be version 1 of the same shared recording first).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { laneFileName, type Direction } from "./lane-names.js";

/** What an identity looks like: `sha256:` and 16 hex digits (64 bits: a name, not a signature). */
export const RECORDING_ID_PATTERN = /^sha256:[0-9a-f]{16}$/;

/** The lanes an identity covers: what the runtime and the agent said, never the bridge's words. */
export const IDENTITY_LANES: readonly Direction[] = ["runtime→bridge", "provider→bridge"];

/**
 * The identity of the recording in `dir` (see the module comment), or undefined when `dir` holds
 * neither of the lanes it covers (not a recording, or not readable). Synchronous (the per-cell
 * allowlist test is); reads at most two lane files.
 * @param dir a recording's folder (absolute, or relative to the process's working directory)
 */
export function recordingIdentity(dir: string): string | undefined {
  const hash = createHash("sha256");
  hash.update("recording identity 2\u0000");
  let lanes = 0;
  for (const name of IDENTITY_LANES.map(laneFileName)) {
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
