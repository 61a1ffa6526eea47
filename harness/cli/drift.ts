/**
 * `parity drift --provider <p> --from <recordings> --to <recordings>`: what changed between two
 * sets of recordings of one provider — typically the pinned agent version and a new one, recorded
 * the same day on this machine — on the agent's own wire (harness/compare/wire-drift.ts) and in
 * the thread lanes (harness/compare/lane-drift.ts), each change once with the cells it appears in.
 * Exit 0 when the lanes did not change (wire changes alone are reported, not failed), 1 when they
 * did, 2 for bad input.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import type { Argv } from "yargs";
import { EXIT_CODES, UsageError } from "../errors.js";
import { laneDrift, type LaneChange } from "../compare/lane-drift.js";
import { wireChanges, wireProfile, type WireChange, type WireMessage } from "../compare/wire-drift.js";
import { buildThreadLane, normalizeThreadLane } from "../lanes/index.js";
import { listRecordings } from "../recording/locations.js";
import { readRecording, type Recording } from "../recording/reader.js";
import { visibleLine } from "../report/visible.js";
import type { ParityCommand } from "./command.js";
import { booleanFlag, stringFlag } from "./options.js";

/** One side of a drift: its recordings of the provider, by cell. */
interface DriftSide {
  root: string;
  recordings: Map<string, Recording>;
  versions: string[];
}

async function readSide(flag: string, value: string, cwd: string, provider: string): Promise<DriftSide> {
  const root = path.resolve(cwd, value);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new UsageError(`--${flag} ${value}: not a recordings folder (give the recordings root of each side; recording an agent version is \`parity record\`'s)`);
  }
  const recordings = new Map<string, Recording>();
  for (const location of await listRecordings([root])) {
    if (location.provider !== provider) continue;
    recordings.set(location.cell, await readRecording(location.dir, { expect: { provider: location.provider, cell: location.cell } }));
  }
  if (recordings.size === 0) throw new UsageError(`--${flag} ${value}: no recording of ${provider} under it`);
  const versions = [...new Set([...recordings.values()].map((r) => r.manifest.cliVersion))].sort();
  return { root, recordings, versions };
}

function agentMessages(side: DriftSide, cells: ReadonlySet<string>): WireMessage[] {
  const messages: WireMessage[] = [];
  for (const [cell, recording] of side.recordings) {
    if (!cells.has(cell)) continue;
    const entries = [...recording.lanes["provider→bridge"], ...recording.lanes["bridge→provider"]].sort((a, b) => a.run - b.run || a.seq - b.seq);
    for (const entry of entries) {
      try {
        messages.push({ cell, dir: entry.dir as WireMessage["dir"], message: JSON.parse(entry.line) });
      } catch {
        // A line that is not JSON (an agent's stray output) has no kind: nothing to compare.
      }
    }
  }
  return messages;
}

function threadLaneOf(recording: Recording): unknown[] {
  const built = buildThreadLane(recording);
  return built.scope === "process" ? [] : normalizeThreadLane(built.events);
}

/** The drift report as data (`--json`). */
export interface DriftReport {
  provider: string;
  from: { root: string; versions: string[]; cells: number };
  to: { root: string; versions: string[]; cells: number };
  common: string[];
  onlyFrom: string[];
  onlyTo: string[];
  wire: WireChange[];
  lanes: LaneChange[];
}

/**
 * Compares two sides (see the module comment).
 * @throws UsageError (exit 2) for a folder that is not there or holds no recording of `provider`
 */
export async function driftReport(provider: string, fromValue: string, toValue: string, cwd: string): Promise<DriftReport> {
  const from = await readSide("from", fromValue, cwd, provider);
  const to = await readSide("to", toValue, cwd, provider);
  const common = [...from.recordings.keys()].filter((cell) => to.recordings.has(cell)).sort();
  const commonSet = new Set(common);
  const wire = wireChanges(wireProfile(agentMessages(from, commonSet)), wireProfile(agentMessages(to, commonSet)), commonSet);
  const lanes = laneDrift(common.map((cell) => ({ cell, from: threadLaneOf(from.recordings.get(cell)!), to: threadLaneOf(to.recordings.get(cell)!) })));
  return {
    provider,
    from: { root: fromValue, versions: from.versions, cells: from.recordings.size },
    to: { root: toValue, versions: to.versions, cells: to.recordings.size },
    common,
    onlyFrom: [...from.recordings.keys()].filter((c) => !commonSet.has(c)).sort(),
    onlyTo: [...to.recordings.keys()].filter((c) => !commonSet.has(c)).sort(),
    wire,
    lanes,
  };
}

function value(v: unknown): string {
  const text = v === undefined ? "(absent)" : (JSON.stringify(v) ?? "null");
  return visibleLine(text.length > 70 ? `${text.slice(0, 69)}…` : text);
}

/** The text of a drift report; colour only when `color`. */
export function renderDriftText(report: DriftReport, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const cells = (list: readonly string[]) => (list.length === report.common.length && list.length > 1 ? `all ${list.length} cells` : list.join(", "));
  const out: string[] = [];
  out.push(
    `${c.bold(`drift of ${report.provider}`)}: ${report.from.versions.map(visibleLine).join(", ")} (${report.from.root}, ${report.from.cells} cells) → ${report.to.versions.map(visibleLine).join(", ")} (${report.to.root}, ${report.to.cells} cells); ${report.common.length} cells compared`,
  );
  if (report.onlyFrom.length > 0) out.push(`  only in --from: ${report.onlyFrom.join(", ")}`);
  if (report.onlyTo.length > 0) out.push(`  only in --to: ${report.onlyTo.join(", ")}`);
  out.push(c.bold(`wire (the agent's own lanes): ${report.wire.length} ${report.wire.length === 1 ? "change" : "changes"}`));
  for (const w of report.wire) {
    out.push(
      `  ${c.yellow(w.change.padEnd(14))} ${visibleLine(w.kind)}${w.path !== undefined ? ` ${c.bold(visibleLine(w.path))}` : ""}${w.detail !== undefined ? `  ${visibleLine(w.detail)}` : ""}  (${cells(w.cells)})`,
    );
  }
  out.push(c.bold(`thread lanes: ${report.lanes.length} ${report.lanes.length === 1 ? "change" : "changes"}`));
  for (const l of report.lanes) {
    const values = l.op === "add" ? value(l.new) : l.op === "remove" ? value(l.old) : `${value(l.old)} → ${value(l.new)}`;
    out.push(`  ${c.yellow(l.op.padEnd(7))} ${visibleLine(l.where)}  ${values}  (${cells(l.cells)})`);
  }
  out.push(report.lanes.length === 0 ? "the thread lanes did not change" : `the thread lanes changed in ${new Set(report.lanes.flatMap((l) => l.cells)).size} of ${report.common.length} cells`);
  return `${out.join("\n")}\n`;
}

/** The `drift` command. */
export const driftCommand: ParityCommand = {
  command: "drift",
  describe: "What changed between two sets of recordings of one provider (two agent versions): the agent's wire and the thread lanes",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: "The provider whose recordings are compared" })
      .option("from", { type: "string", demandOption: true, describe: "Recordings root of the earlier side (e.g. the pinned version, recorded today)" })
      .option("to", { type: "string", demandOption: true, describe: "Recordings root of the later side (e.g. the new version, recorded the same day)" })
      .option("json", { type: "boolean", default: false, describe: "Print the report as JSON" })
      .example("$0 drift --provider codex --from /tmp/codex-pinned --to /tmp/codex-next", "two recordings roots of the same cells")
      .example("$0 drift --provider acp-opencode --from recordings --to /tmp/rec --json", "the committed recordings against a fresh re-record")
      .epilogue(
        "Wire changes (kinds, fields and value shapes of the agent's messages, the bridge's answers to its requests) are reported once each with the cells " +
          "they appear in; values are not compared, so ids and times that vary from run to run do not show. Lists of named things are compared by key. " +
          "Exit 0 when the thread lanes did not change, 1 when they did.",
      ),
  async run(args, ctx) {
    const provider = String(args.provider);
    const report = await driftReport(provider, String(stringFlag(args, "from")), String(stringFlag(args, "to")), ctx.cwd);
    ctx.out(booleanFlag(args, "json") ? `${JSON.stringify(report, null, 2)}\n` : renderDriftText(report, ctx.color));
    return report.lanes.length > 0 ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  },
};
