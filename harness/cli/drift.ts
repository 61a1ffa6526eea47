/**
 * `parity drift --provider <p> --from <recordings> --to <recordings>`: what changed between two
 * sets of recordings of one provider — typically the pinned agent version and a new one, recorded
 * the same day on this machine — on the agent's own wire (harness/compare/wire-drift.ts) and in
 * the thread lanes (harness/compare/lane-drift.ts), each change once with the cells it appears in.
 * Exit 0 when the lanes did not change (wire changes alone are reported, not failed), 1 when they
 * did, 2 for bad input.
 *
 * A side may also be an agent version (issue 41 build point 2): `--from 0.170.0` records the
 * provider's committed cells with that version (record-version.ts) into a new temp folder, and
 * `--to` defaults to the pinned version, recorded fresh the same way, so the machine and the day
 * are the same on both sides and only the version differs. A cell that records on one side and
 * fails on the other is a change of its lanes.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import type { Argv } from "yargs";
import { EXIT_CODES, UsageError } from "../errors.js";
import { visibleLine } from "../report/visible.js";
import type { ParityCommand } from "./command.js";
import { booleanFlag, stringFlag, stringsFlag } from "./options.js";
import { positiveIntegerFlag } from "./flag-checks.js";
import { recordProviderFor } from "../families/index.js";
import { agentsDir } from "../families/record-provider.js";
import { isExactVersion, pinnedAgentVersion, readAgentPins } from "../record/agent-install.js";
import { agentCacheRoot, committedCells, installPlan, installVersion, newVersionFolder, recordCells, requireCells, requireHostPrograms } from "./record-version.js";
import { recordRepeated } from "./record-repeat.js";
import type { LaneChange } from "../compare/lane-drift.js";
import type { WireChange } from "../compare/wire-drift.js";
import { CELLS_ROOT, ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { acceptedVersion, movePin, npmClient, writePendingUpgrade, writeUpgradeUndo } from "./drift-accept.js";
import { rejectPending } from "../check/write-policy.js";
import { driftReport, laneChangeLine, wireChangeLine, type DriftReport, type DriftSideReport } from "./drift-report.js";

export { driftReport, type DriftReport, type DriftSideReport } from "./drift-report.js";

/** Where a side's recordings are: the folder given, or the one this run recorded a version into. */
interface ResolvedSide {
  root: string;
  agentVersion?: string;
  failed?: Array<{ cell: string; error: string }>;
  /** What varied between this side's runs (`--repeat`). */
  varies?: { wire: WireChange[]; lanes: LaneChange[] };
}

/** What {@link resolveDriftSide} needs to record a version. */
export interface DriftRecordOptions {
  /** The cells to record (default: every cell the provider has committed recordings of). */
  cells?: readonly string[];
  cwd: string;
  /** Record each version side this many times and set aside what varies between its runs (default 1). */
  repeat?: number;
  /** Agent cache root (record-version.ts `agentCacheRoot`). */
  cacheRoot: string;
  progress: (line: string) => void;
  signal?: AbortSignal;
  log?: (text: string) => void;
}

/**
 * A side of the drift as a recordings folder: an existing folder as given; an exact version
 * recorded now into a new temp folder (record-version.ts).
 * @throws UsageError (exit 2) for a value that is neither, or a version the provider cannot be recorded at
 */
export async function resolveDriftSide(flag: "from" | "to", value: string, provider: string, options: DriftRecordOptions): Promise<ResolvedSide> {
  const folder = path.resolve(options.cwd, value);
  if ((await stat(folder).catch(() => undefined))?.isDirectory()) return { root: folder };
  if (!isExactVersion(value)) throw new UsageError(`--${flag} ${value}: neither a recordings folder nor an exact agent version (e.g. 0.170.0)`);
  const cells = options.cells !== undefined && options.cells.length > 0 ? [...options.cells] : await committedCells(path.resolve(options.cwd, RECORDINGS_ROOT), provider);
  // Checked and installed (or refused) before a folder is made: a bad cell or version leaves nothing behind.
  await requireCells(path.resolve(options.cwd, CELLS_ROOT), cells, provider);
  // The request's own faults (provider, version) before the host's, as `record --agent-version`.
  // Its errors name the flag the user gave (`--from 99.99.99: npm has no …`), not record's.
  const plan = await installPlan({ provider, version: value, customAgentsFile: undefined }, `--${flag}`);
  await requireHostPrograms(provider, undefined);
  const install = await installVersion({ provider, version: value, cacheRoot: options.cacheRoot, progress: options.progress }, plan);
  const out = await newVersionFolder("parity-drift", provider, value);
  options.progress(`--${flag} ${value}: recording ${cells.length} cell(s) of ${provider} into ${out}\n`);
  const base = {
    provider,
    cells,
    cellsRoot: path.resolve(options.cwd, CELLS_ROOT),
    agentsDir: install.dir,
    label: `${provider}@${value}`,
    redact: [],
    now: () => Date.now(),
    progress: options.progress,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.log !== undefined ? { log: options.log } : {}),
  };
  if ((options.repeat ?? 1) > 1) {
    const repeated = await recordRepeated({ ...base, runs: options.repeat!, out, cwd: options.cwd });
    // Run 1 is the side compared; what differed between its runs is set aside by driftOfSides.
    return { root: repeated.runs[0]!.root, agentVersion: value, failed: repeated.runs[0]!.failed, varies: { wire: repeated.wire, lanes: repeated.lanes } };
  }
  const done = await recordCells({ ...base, out, lanes: path.join(out, "lanes") });
  return { root: out, agentVersion: value, failed: done.failed.map(({ cell, error }) => ({ cell, error })) };
}

/**
 * The drift between two sides, each a recordings folder or an agent version ({@link resolveDriftSide});
 * `to` absent: the pinned version of the provider's agent.
 * @throws UsageError (exit 2) for bad input; a side that recorded no cell at all is one too
 */
export async function driftOfSides(provider: string, fromValue: string, toValue: string | undefined, options: DriftRecordOptions): Promise<DriftReport> {
  let to = toValue;
  if (to === undefined) {
    const pinned = pinnedAgentVersion((await recordProviderFor(provider, undefined)).agentPackages, await readAgentPins(agentsDir()));
    if (pinned === undefined) throw new UsageError(`--to: ${provider} has no agent pinned in agents/package.json; give --to <recordings folder or version>`);
    to = pinned;
  }
  const from = await resolveDriftSide("from", fromValue, provider, options);
  const toSide = await resolveDriftSide("to", to, provider, options);
  for (const [flag, side] of [
    ["from", from],
    ["to", toSide],
  ] as const) {
    if (side.agentVersion !== undefined) options.progress(`--${flag} ${side.agentVersion}: reuse these recordings with --${flag} ${side.root}\n`);
  }
  // A version that failed every cell is a result (its cells are broken), not bad input.
  const report = await driftReport(provider, from.root, toSide.root, options.cwd, { from: (from.failed?.length ?? 0) > 0, to: (toSide.failed?.length ?? 0) > 0 });
  const describe = (side: ResolvedSide, base: DriftSideReport): DriftSideReport => ({
    ...base,
    ...(side.agentVersion !== undefined ? { agentVersion: side.agentVersion } : {}),
    ...(side.failed !== undefined ? { failed: side.failed } : {}),
  });
  const varied = setAsideVariation(report, [from.varies, toSide.varies]);
  const failedFrom = new Map((from.failed ?? []).map((f) => [f.cell, f.error]));
  const failedTo = new Map((toSide.failed ?? []).map((f) => [f.cell, f.error]));
  const brokenCells = [
    ...report.onlyTo.filter((c) => failedFrom.has(c)).map((cell) => ({ cell, failedOn: "from" as const, error: failedFrom.get(cell)! })),
    ...report.onlyFrom.filter((c) => failedTo.has(c)).map((cell) => ({ cell, failedOn: "to" as const, error: failedTo.get(cell)! })),
  ];
  return { ...report, ...varied, from: describe(from, report.from), to: describe(toSide, report.to), brokenCells };
}

/** A place of a change without its occurrence numbers and op: `commandExecution 1 / item/…/outputDelta #2: delta` → `commandExecution 1 / item/…/outputDelta: delta`. */
const placeOf = (where: string) => where.replace(/ #\d+/g, "");

/**
 * The drift's changes split (`--repeat`): a wire change of a kind and path, or a lane change at
 * a place (occurrence numbers aside), that also differed between the runs of either side is
 * run-to-run variation, not the version's: moved to `varies`.
 */
function setAsideVariation(report: DriftReport, sides: ReadonlyArray<{ wire: WireChange[]; lanes: LaneChange[] } | undefined>): Pick<DriftReport, "wire" | "lanes" | "varies"> {
  const known = sides.filter((s) => s !== undefined);
  if (known.length === 0) return { wire: report.wire, lanes: report.lanes };
  const wireKey = (w: WireChange) => `${w.kind}\u0000${w.path ?? ""}`;
  const variedWire = new Set(known.flatMap((s) => s.wire.map(wireKey)));
  const variedPlaces = new Set(known.flatMap((s) => s.lanes.map((l) => placeOf(l.where))));
  return {
    wire: report.wire.filter((w) => !variedWire.has(wireKey(w))),
    lanes: report.lanes.filter((l) => !variedPlaces.has(placeOf(l.where))),
    varies: { wire: report.wire.filter((w) => variedWire.has(wireKey(w))), lanes: report.lanes.filter((l) => variedPlaces.has(placeOf(l.where))) },
  };
}
/** The text of a drift report; colour only when `color`. */
export function renderDriftText(report: DriftReport, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const cells = (list: readonly string[]) => (list.length === report.common.length && list.length > 1 ? `all ${list.length} cells` : list.join(", "));
  const count = (n: number) => `${n} ${n === 1 ? "cell" : "cells"}`;
  const out: string[] = [];
  out.push(
    `${c.bold(`drift of ${report.provider}`)}: ${report.from.versions.map(visibleLine).join(", ")} (${report.from.root}, ${count(report.from.cells)}) → ${report.to.versions.map(visibleLine).join(", ")} (${report.to.root}, ${count(report.to.cells)}); ${count(report.common.length)} compared`,
  );
  // The versions each side's oracles were accepted from (issue 41), when its recordings have oracles beside them.
  for (const [flag, side] of [
    ["from", report.from],
    ["to", report.to],
  ] as const) {
    if (side.oracleVersions.length > 0) out.push(`  --${flag} oracles accepted from ${side.oracleVersions.map(visibleLine).join(", ")}`);
  }
  if (report.onlyFrom.length > 0) out.push(`  only in --from: ${report.onlyFrom.join(", ")}`);
  if (report.onlyTo.length > 0) out.push(`  only in --to: ${report.onlyTo.join(", ")}`);
  out.push(c.bold(`wire (the agent's own lanes): ${report.wire.length} ${report.wire.length === 1 ? "change" : "changes"}`));
  for (const w of report.wire) out.push(wireChangeLine(w, cells, c));
  for (const b of report.brokenCells) out.push(`  ${c.red("broken")} ${b.cell}: recorded with --${b.failedOn === "from" ? "to" : "from"}, failed with --${b.failedOn}: ${visibleLine(b.error)}`);
  out.push(c.bold(`thread lanes: ${report.lanes.length} ${report.lanes.length === 1 ? "change" : "changes"}`));
  for (const l of report.lanes) out.push(laneChangeLine(l, cells, c));
  // Two live runs are compared with the run-to-run rules (check/cross-run.ts): what a rule held is said, not counted.
  if (report.runToRun.length > 0) {
    out.push(c.bold(`held by a run-to-run rule (not counted): ${report.runToRun.length} ${report.runToRun.length === 1 ? "rule" : "rules"}`));
    for (const h of report.runToRun) out.push(`  ${c.yellow(`rule ${h.rule}`.padEnd(7))} ${h.name}  (${cells(h.cells)})`);
  }
  if (report.varies !== undefined && report.varies.wire.length + report.varies.lanes.length > 0) {
    out.push(c.bold(`run-to-run variation (differs between one side's own runs; not counted): ${report.varies.wire.length + report.varies.lanes.length}`));
    for (const w of report.varies.wire) out.push(wireChangeLine(w, cells, c));
    for (const l of report.varies.lanes) out.push(laneChangeLine(l, cells, c));
  }
  const changed = new Set([...report.lanes.flatMap((l) => l.cells), ...report.brokenCells.map((b) => b.cell)]);
  out.push(changed.size === 0 ? "the thread lanes did not change" : `the thread lanes changed in ${changed.size} of ${report.common.length + report.brokenCells.length} cells`);
  return `${out.join("\n")}\n`;
}

/** The `drift` command. */
export const driftCommand: ParityCommand = {
  // Recording a version runs live agents: a session temp dir and a graceful interrupt, as `record`.
  tempDir: true,
  graceful: true,
  command: "drift",
  describe: "What changed between two sets of recordings of one provider (two agent versions): the agent's wire and the thread lanes",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: "The provider whose recordings are compared" })
      .option("from", { type: "string", demandOption: true, describe: "The earlier side: a recordings root, or an exact agent version to record now (e.g. 0.170.0)" })
      .option("to", { type: "string", describe: "The later side: a recordings root, or an agent version to record now. Default: the pinned version, recorded now" })
      .option("repeat", { type: "string", describe: "Record each version side this many times; a change that also varies between one side's runs is reported as run-to-run variation, not drift" })
      .option("cell", { type: "string", array: true, describe: "Cells to record for a version side (repeatable); default every cell the provider has recordings of" })
      .option("json", { type: "boolean", default: false, describe: "Print the report as JSON" })
      .option("accept", {
        type: "boolean",
        default: false,
        describe: "Make --to the project's version: move its pin (npm, lockfile only) and write its recordings and oracles as pending for parity review",
      })
      .example("$0 drift --provider codex --from 0.170.0 --json", "record codex 0.170.0 and the pinned codex now, on this machine, and compare")
      .example("$0 drift --provider claude-code --from 2.1.325 --cell zero-work --cell turn-tools", "only two cells of each version")
      .example("$0 drift --provider codex --from /tmp/codex-pinned --to /tmp/codex-next", "two recordings roots of the same cells")
      .example("$0 drift --provider acp-opencode --from recordings --to /tmp/rec --json", "the committed recordings against a fresh re-record")
      .example("$0 drift --provider codex --from 0.171.0 --to 0.172.0 --accept", "then parity review: accept the new recordings and oracles cell by cell")
      .epilogue(
        "Wire changes (kinds, fields and value shapes of the agent's messages, the bridge's answers to its requests) are reported once each with the cells " +
          "they appear in; values are not compared, so ids and times that vary from run to run do not show. Lists of named things are compared by key. " +
          "Exit 0 when the thread lanes did not change, 1 when they did.",
      ),
  async run(args, ctx) {
    const provider = String(args.provider);
    const accept = booleanFlag(args, "accept");
    // Checked before anything is recorded: CI never writes the project's pins, recordings or oracles.
    if (accept && ctx.ci) throw new UsageError("--accept: under CI=true nothing writes the project's pins, recordings or oracles; run it locally and commit the result");
    const report = await driftOfSides(provider, String(stringFlag(args, "from")), stringFlag(args, "to"), {
      cells: stringsFlag(args, "cell"),
      repeat: positiveIntegerFlag("repeat", args.repeat, "runs") ?? 1,
      cwd: ctx.cwd,
      cacheRoot: agentCacheRoot(ctx.env ?? process.env),
      progress: (line) => ctx.err(line),
      ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
      ...(ctx.verbose ? { log: ctx.err } : {}),
    });
    ctx.out(booleanFlag(args, "json") ? `${JSON.stringify(report, null, 2)}\n` : renderDriftText(report, ctx.color));
    if (accept) return acceptDrift(report, provider, ctx);
    return report.lanes.length > 0 || report.brokenCells.length > 0 ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  },
};

/**
 * `--accept` after the report (drift-accept.ts): refused (exit 1, nothing written) when a cell failed
 * to record with `--to`; else the `--to` recordings and oracles written as pending, then the pin
 * moved (a failed move takes the pending files back). Says what it wrote and what to run next on stderr.
 */
async function acceptDrift(report: DriftReport, provider: string, ctx: Parameters<ParityCommand["run"]>[1]): Promise<number> {
  if ((report.to.failed?.length ?? 0) > 0) {
    ctx.err(`parity: --accept: nothing accepted: ${report.to.failed!.length} cell(s) failed to record with --to (${report.to.failed!.map((f) => f.cell).join(", ")})\n`);
    return EXIT_CODES.parityFailure;
  }
  const version = acceptedVersion(report.to);
  const agentPackage = (await recordProviderFor(provider, undefined)).agentPackages?.[0];
  if (agentPackage === undefined) throw new UsageError(`--accept: ${provider} runs no npm agent: there is no pin to move`);
  const written = await writePendingUpgrade(provider, path.resolve(ctx.cwd, report.to.root), {
    recordingsRoot: path.resolve(ctx.cwd, RECORDINGS_ROOT),
    lanesDir: path.resolve(ctx.cwd, ORACLES_DIR),
  });
  let pin;
  try {
    pin = await movePin(agentPackage, version, ctx.cwd, npmClient(ctx.env ?? process.env));
  } catch (error) {
    await rejectPending(written.flatMap((c) => c.files));
    throw error;
  }
  // Review puts the pin back when it rejects every cell of the upgrade (drift-accept.ts settleUpgrade).
  await writeUpgradeUndo(provider, pin);
  const rel = (p: string) => path.relative(ctx.cwd, p);
  ctx.err(
    `parity: pinned ${pin.package} ${pin.from ?? "(none)"} → ${pin.to} in ${rel(pin.file)} and its lockfile (install it: ${rel(pin.file) === "package.json" ? "npm install" : "npm run agents:install"})\n`,
  );
  ctx.err(
    `parity: ${written.length} ${written.length === 1 ? "cell" : "cells"} of ${provider} pending (recordings/${provider}/.<cell>.pending/, lanes/${provider}/<cell>.json.pending): accept or reject them cell by cell with parity review\n`,
  );
  return EXIT_CODES.ok;
}
