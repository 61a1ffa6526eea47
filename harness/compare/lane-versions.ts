/**
 * The CLI versions behind each lane of a `parity diff` side (issue 41 build point 4): the version
 * its oracle was accepted from (its sidecar `<provider>/<cell>.version` beside it,
 * harness/recording/oracle-version.ts) and the `cliVersion` of the recording it stands for
 * (`recordings/<provider>/<cell>/manifest.json` of the same checkout or git ref). A lane file or a
 * lanes directory outside a checkout has no recording to read: null. A git ref's files are read
 * by one `git cat-file --batch`, whatever the number of lanes.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { ORACLE_VERSION_SUFFIX, readOracleVersion, recordingCliVersion } from "../recording/oracle-version.js";
import type { LaneSource } from "./lane-sources.js";

/** One lane's two versions on one side; null where it is not known. */
export interface LaneVersions {
  oracle: string | null;
  recording: string | null;
}

const versionIn = (text: string | undefined): string | null => {
  if (text === undefined) return null;
  try {
    const v = (JSON.parse(text) as { cliVersion?: unknown }).cliVersion;
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
};

/** The blobs at `ref` of `paths` (repository-relative) by path; absent paths are left out. One `git cat-file --batch`. */
async function gitBlobs(cwd: string, ref: string, paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const top = await new Promise<string>((resolve, reject) => execFile("git", ["rev-parse", "--show-toplevel"], { cwd }, (e, stdout) => (e ? reject(e) : resolve(stdout.trim()))));
  const stdout = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile("git", ["cat-file", "--batch"], { cwd: top, encoding: "buffer", maxBuffer: 512 * 1024 * 1024 }, (e, data) => (e ? reject(e) : resolve(data)));
    child.stdin?.end(paths.map((p) => `${ref}:${p}\n`).join(""));
  });
  // Each answer: "<sha> blob <size>\n<bytes>\n", or "<spec> missing\n".
  let at = 0;
  for (const p of paths) {
    const eol = stdout.indexOf(10, at);
    const header = stdout.subarray(at, eol).toString("utf8");
    at = eol + 1;
    const size = /^[0-9a-f]+ \w+ (\d+)$/.exec(header)?.[1];
    if (size === undefined) continue;
    out.set(p, stdout.subarray(at, at + Number(size)).toString("utf8"));
    at += Number(size) + 1;
  }
  return out;
}

/**
 * The versions of every lane of `source` by its key (see the module comment).
 * @throws InputError for a sidecar on disk that is malformed (readOracleVersion); a git ref's malformed one reads as null
 */
export async function laneVersionsOf(source: LaneSource, cwd: string): Promise<Map<string, LaneVersions>> {
  const out = new Map<string, LaneVersions>();
  if (source.kind === "git") {
    const paths = source.lanes.flatMap((lane) => [`lanes/${lane.key}${ORACLE_VERSION_SUFFIX}`, `recordings/${lane.key}/manifest.json`]);
    const blobs = await gitBlobs(cwd, source.spec, paths);
    for (const lane of source.lanes) {
      out.set(lane.key, { oracle: versionIn(blobs.get(`lanes/${lane.key}${ORACLE_VERSION_SUFFIX}`)), recording: versionIn(blobs.get(`recordings/${lane.key}/manifest.json`)) });
    }
    return out;
  }
  for (const lane of source.lanes) {
    if (lane.file === undefined) continue;
    const oracle = await readOracleVersion(lane.file);
    // `<checkout>/lanes/<provider>/<cell>.json` → `<checkout>/recordings/<provider>/<cell>/`, whichever of its directories was given.
    const providerDir = path.dirname(lane.file);
    const base = path.dirname(providerDir);
    const recordingDir = path.join(path.dirname(base), "recordings", path.basename(providerDir), path.basename(lane.file, ".json"));
    const recording = path.basename(base) === "lanes" ? ((await recordingCliVersion(recordingDir)) ?? null) : null;
    out.set(lane.key, { oracle, recording });
  }
  return out;
}
