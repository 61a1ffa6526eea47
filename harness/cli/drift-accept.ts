/**
 * `parity drift --accept` (issue 41 build point 2): the new version becomes the project's. Its pin
 * moves — `agents/package.json` and its lockfile, or the project's own `package.json` for an agent
 * that is a devDependency there (opencode) — by the ordinary package client
 * (`npm install --package-lock-only --save-exact <package>@<version>`: the manifest and the lockfile,
 * nothing installed; `npm run agents:install` installs it), and the `--to` side's recordings and
 * their oracles are written as pending for review, as `parity check` leaves its pending results:
 *
 * - each new recording whole, as the hidden folder `recordings/<provider>/.<cell>.pending/` beside
 *   the recording it would replace (`pendingRecordingDir`; the recordings listing skips dot folders,
 *   so nothing replays it until it is accepted);
 * - its oracle as `lanes/<provider>/<cell>.json.pending` and the oracle's version sidecar
 *   (harness/recording/oracle-version.ts) as `<cell>.version.pending`.
 *
 * The lockfile keeps every platform's build of the agent the old one had (`lostOptionalDependencies`),
 * or the pin does not move.
 *
 * `parity review` (or `check -u`) accepts a cell by renaming all three into place
 * (harness/check/write-policy.ts `acceptPending`), and rejects it by deleting them; once review
 * has decided the upgrade's last cell, the pin is put back if no cell of it was accepted
 * (`settleUpgrade`, from the undo `writeUpgradeUndo` keeps). Nothing is
 * overwritten here: a cell that already has a pending result is refused before anything is written.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { EXIT_CODES, ParityError, UsageError } from "../errors.js";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { listRecordings } from "../recording/locations.js";
import { oracleVersionFile, oracleVersionText } from "../recording/oracle-version.js";
import { readRecording } from "../recording/reader.js";
import { isExactVersion } from "../record/agent-install.js";
import { recordProviderFor } from "../families/index.js";
import { pendingFile, pendingRecordingDir } from "../check/write-policy.js";

/** Runs the package client (`npm`) with `args` in `cwd`; rejects with its error. Injected by tests. */
export type PackageClient = (args: readonly string[], cwd: string) => Promise<void>;

/** The ordinary package client: `npm` on PATH, in `env`. */
export function npmClient(env: NodeJS.ProcessEnv = process.env): PackageClient {
  return async (args, cwd) => {
    await promisify(execFile)("npm", [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  };
}

/** Where a pin was moved: the manifest file, the package, its version before and after. */
export interface PinMove {
  file: string;
  package: string;
  from: string | undefined;
  to: string;
  /** The manifest and lockfile as they were before and after the move (absolute paths; `before` undefined: the file did not exist), to undo it. */
  changed: Array<{ file: string; before: string | undefined; after: string | undefined }>;
}

async function dependenciesOf(file: string, field: "dependencies" | "devDependencies"): Promise<Record<string, string>> {
  try {
    return (JSON.parse(await readFile(file, "utf8")) as Record<string, Record<string, string> | undefined>)[field] ?? {};
  } catch {
    return {};
  }
}

/** Where `agentPackage` is pinned: the folder of its manifest, the version there, and npm's save flag for that field. */
interface PinLocation {
  dir: string;
  version: string | undefined;
  save: "--save-prod" | "--save-dev";
}

/** `agents/package.json`'s dependencies first, else the project's own devDependencies; undefined when neither pins it. */
async function pinLocation(agentPackage: string, projectDir: string): Promise<PinLocation | undefined> {
  const agents = path.join(projectDir, "agents");
  const agentsPins = await dependenciesOf(path.join(agents, "package.json"), "dependencies");
  if (Object.hasOwn(agentsPins, agentPackage)) return { dir: agents, version: agentsPins[agentPackage], save: "--save-prod" };
  const rootDev = await dependenciesOf(path.join(projectDir, "package.json"), "devDependencies");
  if (Object.hasOwn(rootDev, agentPackage)) return { dir: projectDir, version: rootDev[agentPackage], save: "--save-dev" };
  return undefined;
}

/** The undo of the pin move of one provider's upgrade, kept while its cells are pending (see {@link writeUpgradeUndo}). */
interface UpgradeUndo {
  package: string;
  from: string | undefined;
  to: string;
  changed: PinMove["changed"];
}

/** `<pin folder>/.parity-upgrade-<provider>.pending`: ignored by git, as every `.pending` file. */
function upgradeUndoFile(pinDir: string, provider: string): string {
  return path.join(pinDir, `.parity-upgrade-${provider}.pending`);
}

/**
 * Keeps what undoes `pin` (the manifest and lockfile as they were and as the move left them) until
 * the upgrade's last pending cell is decided in `parity review` ({@link settleUpgrade}); an earlier
 * upgrade's undo, whose cells were all decided, is replaced.
 */
export async function writeUpgradeUndo(provider: string, pin: PinMove): Promise<void> {
  const undo: UpgradeUndo = { package: pin.package, from: pin.from, to: pin.to, changed: pin.changed };
  await writeFileAtomic(upgradeUndoFile(path.dirname(pin.file), provider), `${JSON.stringify(undo)}\n`);
}

/**
 * After `parity review` decided a cell whose new recording `drift --accept` left pending: while
 * other cells of the upgrade are pending, nothing; once none is, the upgrade is settled — when no
 * recording of the provider names the new version (every cell was rejected), the pin is put back
 * (the manifest and lockfile as they were before `--accept`, unless they changed since, which is
 * said instead), else it stays; either way the undo is deleted. A user who rejects the upgrade in
 * every cell expects the project as it was; one who kept a cell of it needs its pin.
 * @returns one line (no newline) saying what became of the pin, and whether the upgrade is settled
 *   (no cell of it pending any more); undefined when there is no undo
 *   (an upgrade accepted before undos were kept: {@link upgradeRejectedLine} names the files)
 */
export async function settleUpgrade(provider: string, projectDir: string, recordingsRoot: string): Promise<{ line: string; settled: boolean } | undefined> {
  const agentPackage = (await recordProviderFor(provider, undefined).catch(() => undefined))?.agentPackages?.[0];
  const where = agentPackage === undefined ? undefined : await pinLocation(agentPackage, projectDir);
  if (where === undefined) return undefined;
  const file = upgradeUndoFile(where.dir, provider);
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const undo = JSON.parse(text) as UpgradeUndo;
  const locations = (await listRecordings([recordingsRoot])).filter((l) => l.provider === provider);
  let pending = 0;
  let accepted = 0;
  for (const location of locations) {
    if (existsSync(pendingRecordingDir(location.dir))) pending += 1;
    const manifest = JSON.parse(await readFile(path.join(location.dir, "manifest.json"), "utf8").catch(() => "{}")) as { cliVersion?: unknown };
    if (typeof manifest.cliVersion === "string" && manifest.cliVersion.split(/\s+/).at(-1) === undo.to) accepted += 1;
  }
  if (pending > 0)
    return { settled: false, line: `${undo.package} stays pinned at ${undo.to} while ${pending} more ${pending === 1 ? "cell" : "cells"} of it ${pending === 1 ? "is" : "are"} pending` };
  await rm(file, { force: true });
  if (accepted > 0) return { settled: true, line: `${undo.package} stays pinned at ${undo.to}: ${accepted} ${accepted === 1 ? "cell" : "cells"} of it accepted` };
  const rel = (f: string) => path.relative(projectDir, f);
  const moved = [];
  let asBefore = true;
  for (const change of undo.changed) {
    const now = await readFile(change.file, "utf8").catch(() => undefined);
    if (now !== change.after) moved.push(rel(change.file));
    if (now !== change.before) asBefore = false;
  }
  // Put back by hand already (git restore): nothing to do.
  if (asBefore) return { settled: true, line: `no cell of ${undo.to} accepted: ${undo.package} is pinned at ${undo.from ?? "(none)"} again` };
  if (moved.length > 0) return { settled: true, line: `${undo.package} stays pinned at ${undo.to}: ${moved.join(" and ")} changed since parity drift --accept; pin ${undo.from ?? "it"} back by hand` };
  for (const change of undo.changed) {
    if (change.before === undefined) await rm(change.file, { force: true });
    else await writeFileAtomic(change.file, change.before);
  }
  return { settled: true, line: `no cell of ${undo.to} accepted: ${undo.package} pinned back at ${undo.from ?? "(none)"} (${undo.changed.map((c) => rel(c.file)).join(" and ")} as they were)` };
}

/**
 * What `parity review` says when it rejects a cell whose new recording `drift --accept` left
 * pending: the committed recording and oracle stand, and what became of the pin
 * ({@link settleUpgrade}); without an undo, the tracked files that put the pin back (`git restore`).
 * One line, ending in a newline.
 */
export async function upgradeRejectedLine(provider: string, projectDir: string, recordingsRoot: string): Promise<string> {
  const kept = "  rejected: the new recording and its oracle deleted; the committed ones stand";
  const settled = await settleUpgrade(provider, projectDir, recordingsRoot);
  if (settled !== undefined) return `${kept}; ${settled.line}\n`;
  const agentPackage = (await recordProviderFor(provider, undefined).catch(() => undefined))?.agentPackages?.[0];
  const where = agentPackage === undefined ? undefined : await pinLocation(agentPackage, projectDir);
  if (where === undefined || agentPackage === undefined) return `${kept}\n`;
  const files = ["package.json", "package-lock.json"].map((f) => path.relative(projectDir, path.join(where.dir, f)));
  return `${kept}. ${agentPackage} stays pinned at ${where.version ?? "(none)"} in ${files[0]!} (parity drift --accept moved it): git restore ${files.join(" ")} puts the committed pin back\n`;
}

/**
 * Moves `agentPackage`'s pin to `version`: in `<projectDir>/agents/package.json` when it is pinned
 * there, else in `<projectDir>/package.json`'s devDependencies when it is one, with npm updating
 * the lockfile beside it (`--package-lock-only`: nothing is installed).
 * @throws UsageError (exit 2) when the package is pinned in neither; ParityError `E_PIN` (exit 5)
 *   with npm's first error line when npm fails, or naming the optional dependencies (platform builds)
 *   the lockfile had and npm left out; the manifest and lockfile then left as they were
 */
export async function movePin(agentPackage: string, version: string, projectDir: string, npm: PackageClient): Promise<PinMove> {
  const where = await pinLocation(agentPackage, projectDir);
  if (where === undefined) throw new UsageError(`--accept: ${agentPackage} is pinned neither in agents/package.json nor as a devDependency in package.json; pin it by hand`);
  const { dir, version: from, save } = where;
  const file = path.join(dir, "package.json");
  const lock = path.join(dir, "package-lock.json");
  const before = await readFile(file, "utf8");
  const beforeLock = await readFile(lock, "utf8").catch(() => undefined);
  try {
    await npm(["install", "--package-lock-only", "--save-exact", save, "--no-audit", "--no-fund", "--ignore-scripts", `${agentPackage}@${version}`], dir);
  } catch (error) {
    // npm may have written the manifest before failing on the lockfile: both are put back.
    await writeFileAtomic(file, before);
    if (beforeLock !== undefined) await writeFileAtomic(lock, beforeLock);
    const text = `${(error as { stderr?: string }).stderr ?? ""}\n${(error as Error).message}`;
    const first = text.split("\n").find((l) => /npm error (?!code)/.test(l)) ?? text.split("\n").find((l) => l.trim() !== "") ?? "";
    throw new ParityError("E_PIN", `npm could not pin ${agentPackage}@${version} in ${file}: ${first.replace(/^npm error /, "").trim()}`, EXIT_CODES.internalError, { cause: error });
  }
  const after = (await dependenciesOf(file, save === "--save-dev" ? "devDependencies" : "dependencies"))[agentPackage];
  if (after !== version) throw new ParityError("E_PIN", `npm left ${agentPackage} at ${after ?? "nothing"} in ${file}, not ${version}`, EXIT_CODES.internalError);
  // npm drops an optional dependency it cannot fetch without a word: a registry that lacks one
  // platform's build of the new version (this box's has only the linux builds of codex 0.170.0)
  // would leave a lockfile whose `npm ci` on that platform installs no binary. Refused, as before.
  const lost = beforeLock === undefined ? [] : lostOptionalDependencies(beforeLock, await readFile(lock, "utf8").catch(() => "{}"));
  if (lost.length > 0) {
    await writeFileAtomic(file, before);
    await writeFileAtomic(lock, beforeLock!);
    const names = lost.map((l) => (l.spec !== undefined ? `${l.name} (${l.spec})` : l.name));
    throw new ParityError(
      "E_PIN",
      `npm could not keep ${lost.length === 1 ? "an optional dependency" : `${lost.length} optional dependencies`} of ${agentPackage}@${version} that ${path.relative(projectDir, lock)} had: ${names.join(", ")} — npm drops one it cannot fetch (the registry it reads has no such build?); nothing moved`,
      EXIT_CODES.internalError,
    );
  }
  const changed = [
    { file, before, after: await readFile(file, "utf8") },
    { file: lock, before: beforeLock, after: await readFile(lock, "utf8").catch(() => undefined) },
  ];
  return { file, package: agentPackage, from, to: version, changed };
}

/** An optional dependency a lockfile resolved and another does not: its name, who declares it, and the spec it is declared with there. */
export interface LostOptional {
  /** The declaring package's lockfile path (`node_modules/@openai/codex`). */
  declaredBy: string;
  name: string;
  spec: string | undefined;
}

type LockPackages = Record<string, { optionalDependencies?: Record<string, string> } | undefined>;

function lockPackages(text: string): LockPackages {
  try {
    return (JSON.parse(text) as { packages?: LockPackages }).packages ?? {};
  } catch {
    return {};
  }
}

/** Where node would find `name` from the package at lockfile path `from`: its own node_modules, then each parent's, up to the root's. */
function resolvesIn(packages: LockPackages, from: string, name: string): boolean {
  let at = from;
  for (;;) {
    if (packages[at === "" ? `node_modules/${name}` : `${at}/node_modules/${name}`] !== undefined) return true;
    if (at === "") return false;
    const cut = at.lastIndexOf("/node_modules/");
    at = cut < 0 ? "" : at.slice(0, cut);
  }
}

/**
 * The optional dependencies `after` (a lockfile's text, v2/v3 `packages`) leaves unresolved that
 * `before` resolved for a package of the same lockfile path: a platform's build the lockfile had
 * and lost. One that `before` did not resolve either (a build never published) is not lost. Pure.
 */
export function lostOptionalDependencies(before: string, after: string): LostOptional[] {
  const was = lockPackages(before);
  const now = lockPackages(after);
  const lost: LostOptional[] = [];
  for (const [declaredBy, entry] of Object.entries(now)) {
    for (const [name, spec] of Object.entries(entry?.optionalDependencies ?? {})) {
      if (resolvesIn(now, declaredBy, name)) continue;
      if (was[declaredBy] !== undefined && resolvesIn(was, declaredBy, name)) lost.push({ declaredBy, name, spec });
    }
  }
  return lost;
}

/**
 * The agent version a recorded side names: `agentVersion` when this run recorded it, else the one
 * exact version its recordings' `cliVersion`s end with (`codex 0.172.0` → `0.172.0`).
 * @throws UsageError when the recordings name none or several
 */
export function acceptedVersion(side: { agentVersion?: string; versions: readonly string[] }): string {
  if (side.agentVersion !== undefined) return side.agentVersion;
  const versions = [...new Set(side.versions.map((v) => v.split(/\s+/).at(-1) ?? ""))];
  if (versions.length === 1 && isExactVersion(versions[0]!)) return versions[0]!;
  throw new UsageError(`--accept: the --to recordings name ${side.versions.length === 0 ? "no version" : side.versions.join(", ")}; give --to an exact agent version, or recordings of one version`);
}

/** One cell {@link writePendingUpgrade} wrote: the accepted paths that now have a pending result beside them. */
export interface PendingUpgradeCell {
  cell: string;
  /** The recording folder, the oracle and its version sidecar (absolute), each with its pending form written. */
  files: string[];
}

/**
 * Writes every recording of `provider` under `toRoot` as pending in the project (see the module
 * comment), with its oracle built from the recording as `parity record` builds it.
 * @throws UsageError when a cell already has a pending result (nothing is written then), or when
 *   `toRoot` holds no recording of `provider`; InputError for a recording that cannot be read
 */
export async function writePendingUpgrade(provider: string, toRoot: string, project: { recordingsRoot: string; lanesDir: string }): Promise<PendingUpgradeCell[]> {
  const locations = (await listRecordings([toRoot])).filter((l) => l.provider === provider);
  if (locations.length === 0) throw new UsageError(`--accept: ${toRoot} holds no recording of ${provider}`);
  const plans = [];
  for (const location of locations) {
    const recording = await readRecording(location.dir, { expect: { provider, cell: location.cell } });
    const built = buildThreadLane(recording);
    const laneText = serializeThreadLane(built.scope === "process" ? [] : normalizeThreadLane(built.events));
    const recordingDir = path.join(project.recordingsRoot, provider, location.cell);
    const oracle = path.join(project.lanesDir, provider, `${location.cell}.json`);
    const files = [recordingDir, oracle, oracleVersionFile(oracle)];
    const taken = [pendingRecordingDir(recordingDir), pendingFile(oracle), pendingFile(oracleVersionFile(oracle))].find((p) => existsSync(p));
    if (taken !== undefined) throw new UsageError(`--accept: ${taken} is already pending; review or reject it first (parity review), nothing written`);
    plans.push({ cell: location.cell, source: location.dir, recordingDir, oracle, laneText, cliVersion: recording.manifest.cliVersion, files });
  }
  const written: PendingUpgradeCell[] = [];
  for (const plan of plans) {
    const pending = pendingRecordingDir(plan.recordingDir);
    // Copied beside its final place under a temp name, then renamed: a pending recording is whole or absent.
    const staging = `${pending}.staging-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await cp(plan.source, staging, { recursive: true });
    await rm(path.join(staging, "lanes"), { recursive: true, force: true });
    await rename(staging, pending);
    // An oracle the new recording leaves as it is gets no pending form (its sidecar still changes).
    if ((await readFile(plan.oracle, "utf8").catch(() => undefined)) !== plan.laneText) await writeFileAtomic(pendingFile(plan.oracle), plan.laneText);
    await writeFileAtomic(pendingFile(oracleVersionFile(plan.oracle)), oracleVersionText(plan.cliVersion));
    written.push({ cell: plan.cell, files: plan.files });
  }
  return written;
}
