/**
 * Where `parity diff` reads lanes from (docs/design/00-product.md, flow 5): one lane file, a checkout
 * directory (`<dir>/lanes/<provider>/<cell>.json`, or a lanes directory itself), or a git ref
 * (`git show <ref>:lanes/…`, read-only). Every lane is keyed `<provider>/<cell>` so two
 * sources pair up by key.
 */
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { globby } from "globby";
import { InputError, UsageError } from "../errors.js";
import { readOracleEvents } from "../lanes/oracle-stream.js";
import { parseJsonFile } from "./json-file.js";

const run = promisify(execFile);

/**
 * One lane of a source: its key, a label naming where it came from (file path or `ref:path`),
 * and how to get its text — read only when the lane is diffed, so two long lanes are never held
 * as text at once (issue 25: the lane diff's memory). `file` is set for a lane on disk, whose
 * events `readLaneEvents` streams without holding the text at all.
 */
export interface LaneText {
  key: string;
  label: string;
  /** The lane file (absolute), for file and directory sources. */
  file?: string;
  /** Reads the lane's text (the file, or `git show <ref>:<path>`). */
  text(): Promise<string>;
}

/** A set of lanes from one source. `kind` says which form the argument took. */
export interface LaneSource {
  kind: "file" | "directory" | "git";
  /** The argument as given. */
  spec: string;
  lanes: LaneText[];
  /** A directory that is a checkout (it has `package.json` or `.git`): one without `lanes/` is a known empty state, not a wrong folder. */
  checkout?: boolean;
}

/** A parsed lane file: its events (from the array, or from the `events` key of an object form). */
export interface ParsedLane {
  events: unknown[];
}

/**
 * Parses a lane file's text: a JSON array of events, or an object with an `events` array.
 * @throws InputError naming `label` for bad JSON or another shape.
 */
export function parseLaneText(text: string, label: string): ParsedLane {
  const value = parseJsonFile(text, label);
  if (Array.isArray(value)) return { events: value };
  if (typeof value === "object" && value !== null && Array.isArray((value as { events?: unknown }).events)) {
    return { events: (value as { events: unknown[] }).events };
  }
  throw new InputError('a lane file must be a JSON array of thread events or an object with an "events" array', {
    file: label,
  });
}

/**
 * A lane's events, parsed once: a lane file that is one JSON array is read in chunks and each
 * event parsed from its own text (`readOracleEvents`: exactly the elements `JSON.parse` of the
 * whole file gives), so neither the file's text nor one whole-file parse is ever held; any other
 * form (the `{events}` object, invalid JSON, a git ref's text) is read whole by `parseLaneText`,
 * which also gives the error.
 * @throws InputError naming the lane's label for bad JSON or another shape.
 */
export async function readLaneEvents(lane: LaneText): Promise<unknown[]> {
  if (lane.file !== undefined) {
    const events: unknown[] = [];
    const stream = readOracleEvents(lane.file);
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        if (next.value) return events;
        break;
      }
      events.push(next.value);
    }
  }
  return parseLaneText(await lane.text(), lane.label).events;
}

/**
 * An alternate path's oracle relative to a lanes directory, `<provider>/<cell>/alternates/<k>.json`
 * (harness/recording/alternates.ts): a lane of its own, keyed `<provider>/<cell>/alternates/<k>` as
 * `check` names it, so a change to an agent's other path shows in `parity diff` too.
 */
const ALTERNATE_ORACLE = /^[^/]+\/[^/]+\/alternates\/\d+\.json$/;

/** The key of a lane file relative to its lanes directory: `acp-cursor/turn-tools.json` → `acp-cursor/turn-tools`. */
export function laneKey(relative: string): string {
  return relative
    .split(path.sep)
    .join("/")
    .replace(/(\.events)?\.json$/, "");
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}

async function isGitRef(cwd: string, ref: string): Promise<boolean> {
  if (ref.startsWith("-")) return false;
  try {
    await git(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

async function readGitLanes(cwd: string, ref: string): Promise<LaneText[]> {
  const top = (await git(cwd, ["rev-parse", "--show-toplevel"])).trim();
  const listing = await git(top, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", ref, "--", "lanes/"]);
  // lanes/<provider>/<cell>.json and its alternates' oracles only, as a directory (readDirectoryLanes).
  const files = listing
    .split("\0")
    .filter((file) => (file.endsWith(".json") && file.split("/").length === 3) || ALTERNATE_ORACLE.test(file.slice("lanes/".length)))
    .sort();
  const lanes: LaneText[] = [];
  for (const file of files) {
    lanes.push({ key: laneKey(file.slice("lanes/".length)), label: `${ref}:${file}`, text: () => git(top, ["show", `${ref}:${file}`]) });
  }
  return lanes;
}

async function isDirectory(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isDirectory() ?? false;
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}

/**
 * Lanes of a directory: `<dir>/lanes/<provider>/<cell>.json` when it is a checkout, else
 * `<dir>/<provider>/<cell>.json` when it is a lanes directory itself, else `<dir>/<cell>.json`
 * when it is one provider's oracles (`lanes/codex`): then each lane is keyed by its cell alone, so
 * two providers' directories pair up cell by cell (`parity diff lanes/codex lanes/acp-codex`).
 * Only those depths are read: a directory is never walked at large (a checkout without `lanes/`
 * would otherwise have its allowlists, manifests and node_modules read as lanes). A checkout (it
 * has `package.json` or `.git`) without `lanes/` has no lanes.
 */
async function readDirectoryLanes(dir: string): Promise<LaneText[]> {
  const nested = path.join(dir, "lanes");
  let base = dir;
  if (await isDirectory(nested)) base = nested;
  else if ((await exists(path.join(dir, "package.json"))) || (await exists(path.join(dir, ".git")))) return [];
  let files = (await globby(["*/*.json", "*/*/alternates/*.json"], { cwd: base, onlyFiles: true })).filter((f) => f.split("/").length === 2 || ALTERNATE_ORACLE.test(f)).sort();
  if (files.length === 0 && base === dir)
    files = (await globby(["*.json", "*/alternates/*.json"], { cwd: base, onlyFiles: true })).filter((f) => !f.includes("/") || ALTERNATE_ORACLE.test(`p/${f}`)).sort();
  const lanes: LaneText[] = [];
  for (const file of files) {
    const full = path.join(base, file);
    lanes.push({ key: laneKey(file), label: full, file: full, text: () => readFile(full, "utf8") });
  }
  return lanes;
}

/**
 * Reads one `parity diff` argument, resolved against `cwd`: an existing file, an existing
 * directory, else a git ref of the repository at `cwd`.
 * @throws UsageError when it is none of these.
 */
export async function readLaneSource(spec: string, cwd: string): Promise<LaneSource> {
  const resolved = path.resolve(cwd, spec);
  const info = await stat(resolved).catch(() => undefined);
  if (info?.isFile()) {
    return { kind: "file", spec, lanes: [{ key: laneKey(path.basename(resolved)), label: resolved, file: resolved, text: () => readFile(resolved, "utf8") }] };
  }
  if (info?.isDirectory()) {
    const checkout = (await exists(path.join(resolved, "package.json"))) || (await exists(path.join(resolved, ".git")));
    return { kind: "directory", spec, lanes: await readDirectoryLanes(resolved), checkout };
  }
  if (await isGitRef(cwd, spec)) return { kind: "git", spec, lanes: await readGitLanes(cwd, spec) };
  throw new UsageError(`"${spec}" is neither a lane file, a directory nor a git ref (resolved against ${cwd})`);
}
