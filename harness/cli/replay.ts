import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../errors.js";
import { normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { MANIFEST_FILE } from "../recording/manifest.js";
import { listRecordings, readRecording } from "../recording/reader.js";
import { selectRecordings } from "../recording/select.js";
import { renderTimeline } from "../report/timeline.js";
import { INFRASTRUCTURE_TIMEOUT_EXIT } from "../report/check-report.js";
import { formatDivergenceSummary, replayTrouble } from "../replay/walk/divergence.js";
import { replayRecording, type ReplayResult } from "../replay/replay-recording.js";
import type { ParityCommand } from "./command.js";
import { replayOptionsOf, resolveReplayFlags, type ReplayFlags } from "./flag-checks.js";
import { booleanFlag, FLAGS, resolveSelection, stringFlag, type ParsedFlags } from "./options.js";

/** The `thread/delta` params the live bridge wrote, one JSON object per line (for `--deltas`). */
export function liveDeltaLines(result: ReplayResult): string {
  let out = "";
  for (const entry of result.bridgeLane) {
    let value: unknown;
    try {
      value = JSON.parse(entry.line);
    } catch {
      continue;
    }
    const message = value as { method?: unknown; params?: unknown };
    if (message.method === "thread/delta") out += `${JSON.stringify(message.params)}\n`;
  }
  return out;
}

/** The `--json` form of a replay: verdict, divergences, notes and the normalized lane. */
export function replayJson(result: ReplayResult): unknown {
  return {
    provider: result.provider,
    cell: result.cell,
    ok: result.ok,
    infrastructureTimeout: result.infrastructureTimeout,
    divergenceCount: result.divergenceCount,
    divergences: result.divergences,
    notes: result.notes,
    expectations: { met: result.expectationsMet, total: result.expectationsTotal },
    unhandled: result.lane.unhandled,
    grammarDrops: result.lane.grammarDrops,
    events: normalizeThreadLane(result.lane.events),
    pids: result.pids,
  };
}

/**
 * The `--timeline` text of a replay; for a live thread lane with no events, one line saying
 * so (an empty timeline would print nothing and look like a crash).
 */
export function timelineText(result: ReplayResult, color: boolean): string {
  const events = normalizeThreadLane(result.lane.events);
  if (events.length === 0) return `${result.provider}/${result.cell}: the live thread lane is empty (0 events)\n`;
  return renderTimeline(events, { color });
}

/** `parity replay`'s options. */
export interface ReplayCommandOptions {
  /** The cell: a recording directory (the positional, absolute), or a provider and cell under the recordings roots. */
  target: { dir: string } | { provider: string; cell: string; roots: string[] };
  replay: ReplayFlags;
  output: "lane" | "deltas" | "timeline" | "json";
  trace: boolean;
}

/**
 * `parity replay`: `--json`/`--deltas`/`--timeline` exclusive, then the replay flags, then the cell
 * (`--recordings` is read only when the cell is named by `--provider`/`--cell`).
 * @throws UsageError naming the flag, or asking for one cell
 */
export async function resolveReplayCommandOptions(args: ParsedFlags, cwd: string): Promise<ReplayCommandOptions> {
  // Each names what to print: two of them would silently lose one (--json won over --timeline).
  const outputs = ["json", "deltas", "timeline"].filter((flag) => booleanFlag(args, flag));
  if (outputs.length > 1) throw new UsageError(`${outputs.map((flag) => `--${flag}`).join(" and ")} are alternatives: pass one`);
  const replay = await resolveReplayFlags(args, cwd);
  const output = booleanFlag(args, "json") ? "json" : booleanFlag(args, "deltas") ? "deltas" : booleanFlag(args, "timeline") ? "timeline" : "lane";
  const trace = booleanFlag(args, "trace");
  const dir = stringFlag(args, "dir");
  if (dir !== undefined) return { target: { dir: path.resolve(cwd, dir) }, replay, output, trace };
  const provider = stringFlag(args, "provider");
  const cell = stringFlag(args, "cell");
  if (provider === undefined || cell === undefined) {
    throw new UsageError("name one cell: `parity replay <recording dir>` or `--provider <p> --cell <c>`");
  }
  return { target: { provider, cell, roots: resolveSelection(args, cwd).roots }, replay, output, trace };
}

/**
 * The recording directory of the cell `replay` was given.
 * @throws UsageError for a directory that holds recordings rather than being one (a provider's
 *   folder, a recordings root): it names a few of them to pick from
 */
async function cellDirOf(target: ReplayCommandOptions["target"], cwd: string): Promise<string> {
  if ("dir" in target) {
    if (!existsSync(path.join(target.dir, MANIFEST_FILE)) && existsSync(target.dir) && statSync(target.dir).isDirectory()) {
      const inside = await listRecordings([target.dir, path.dirname(target.dir)]).catch(() => []);
      const under = inside.filter((l) => l.dir.startsWith(`${target.dir}${path.sep}`)).map((l) => path.relative(cwd, l.dir) || l.dir);
      if (under.length > 0) {
        throw new UsageError(`${path.relative(cwd, target.dir) || target.dir} holds recordings, it is not one: name one cell, e.g. parity replay ${under.slice(0, 3).join(" or ")}`);
      }
    }
    return target.dir;
  }
  const { provider, cell, roots } = target;
  const found = await selectRecordings(roots, { provider, cell });
  const only = found[0];
  if (!only) throw new UsageError(`no recording of ${provider}/${cell} under ${roots.join(", ") || "(no recordings root)"}`);
  return only.dir;
}

/**
 * `parity replay` (docs/design/00-product.md, CLI; flow 2): replays one cell through its bridge and
 * prints the live thread lane (normalized, as an oracle is stored), or with `--deltas` the
 * live `thread/delta` params, or with `--timeline` a readable timeline; `--json` prints the
 * whole result. Divergences go to stderr, and for a bridge that exited early its exit code
 * (or signal) and stderr tail. Exit 0 when the replay did not diverge, 1 when it did, 2 for
 * usage or input errors, 4 for an infrastructure timeout (the wall-clock ceiling, no verdict).
 */
export const replayCommand: ParityCommand = {
  tempDir: true,
  command: "replay [dir]",
  describe: "Replay one recorded cell through its bridge and print the live thread lane",
  builder: (y: Argv) =>
    y
      .positional("dir", { type: "string", describe: "Recording directory (recordings/<provider>/<cell>)" })
      .option("provider", { type: "string", describe: "Provider of the cell (with --cell)" })
      .option("cell", { type: "string", describe: "Cell to replay (with --provider)" })
      .option("recordings", FLAGS.recordings)
      .option("deltas", { type: "boolean", default: false, describe: "Print the live thread/delta params instead" })
      .option("timeline", { type: "boolean", default: false, describe: "Print a readable timeline instead" })
      .option("json", { type: "boolean", default: false, describe: "Print the whole result as JSON" })
      .option("timeout", FLAGS.timeout)
      .option("module", FLAGS.module)
      .option("agent-process", FLAGS.agentProcess)
      .option("trace", { type: "boolean", default: false, describe: "Print every line written and every live line to stderr, in walk order" })
      .option("cells", FLAGS.cells)
      .example("$0 replay recordings/echo/turn", "Print the live thread lane of one recording")
      .example("$0 replay --recordings ../shared/recordings --provider acp-cursor --cell resume --timeline", "Readable timeline"),
  async run(args, ctx) {
    // Flags first: a bad value is one line, exit 2, before anything is replayed.
    const options = await resolveReplayCommandOptions(args, ctx.cwd);
    const dir = await cellDirOf(options.target, ctx.cwd);
    const recording = await readRecording(dir);
    if (recording.manifest.scope === "process") {
      throw new UsageError(`${recording.manifest.provider}/${recording.manifest.cell} is process-scoped: it has no thread lane to replay`);
    }
    const result = await replayRecording(recording, {
      ...replayOptionsOf(options.replay),
      ...(options.trace ? { trace: (text: string) => ctx.err(`${text}\n`) } : {}),
    });
    if (options.output === "json") ctx.out(`${JSON.stringify(replayJson(result), null, 2)}\n`);
    else if (options.output === "deltas") ctx.out(liveDeltaLines(result));
    else if (options.output === "timeline") ctx.out(timelineText(result, ctx.color));
    else ctx.out(serializeThreadLane(normalizeThreadLane(result.lane.events)));
    const cell = `${result.provider}/${result.cell}`;
    if (result.divergenceCount > 0) ctx.err(`parity replay: ${formatDivergenceSummary(cell, result.divergences, result.divergenceCount)}\n`);
    const trouble = replayTrouble(result);
    if (trouble !== "") ctx.err(trouble);
    if (ctx.verbose) {
      for (const n of result.notes) ctx.err(`note${n.seq === null ? "" : ` (after seq ${n.seq})`}: ${n.message}\n`);
      if (result.stderr) ctx.err(result.stderr.endsWith("\n") ? result.stderr : `${result.stderr}\n`);
    }
    if (result.divergenceCount > 0) return 1;
    return result.infrastructureTimeout ? INFRASTRUCTURE_TIMEOUT_EXIT : 0;
  },
};
