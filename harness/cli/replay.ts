import path from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../errors.js";
import { normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { readRecording } from "../recording/reader.js";
import { resolveRecordingRoots, selectRecordings } from "../recording/select.js";
import { renderTimeline } from "../report/timeline.js";
import { INFRASTRUCTURE_TIMEOUT_EXIT } from "../report/check-report.js";
import { formatDivergenceSummary, replayTrouble } from "../replay/divergence.js";
import { replayRecording, type ReplayResult } from "../replay/replay-recording.js";
import type { ParityCommand } from "./command.js";
import { CELLS_FLAG_DESCRIPTION, checkBridgeModuleFlag, existingDirFlag, positiveIntegerFlag } from "./flag-checks.js";

/** Roots `replay` searches for `--provider/--cell` when no `--recordings` is given. */
export const REPLAY_DEFAULT_ROOTS = ["recordings"] as const;

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

async function resolveCellDir(args: Record<string, unknown>, cwd: string): Promise<string> {
  const dir = args.dir as string | undefined;
  if (dir !== undefined) return path.resolve(cwd, dir);
  const provider = args.provider as string | undefined;
  const cell = args.cell as string | undefined;
  if (provider === undefined || cell === undefined) {
    throw new UsageError("name one cell: `parity replay <recording dir>` or `--provider <p> --cell <c>`");
  }
  const roots = resolveRecordingRoots((args.recordings as string[] | undefined) ?? [], cwd, REPLAY_DEFAULT_ROOTS);
  const found = await selectRecordings(roots, { provider, cell });
  const only = found[0];
  if (!only) throw new UsageError(`no recording of ${provider}/${cell} under ${roots.join(", ") || "(no recordings root)"}`);
  return only.dir;
}

/**
 * `parity replay` (00-product.md, CLI; flow 2): replays one cell through its bridge and
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
      .option("recordings", { type: "string", array: true, describe: "Recordings root (repeatable; default recordings)" })
      .option("deltas", { type: "boolean", default: false, describe: "Print the live thread/delta params instead" })
      .option("timeline", { type: "boolean", default: false, describe: "Print a readable timeline instead" })
      .option("json", { type: "boolean", default: false, describe: "Print the whole result as JSON" })
      .option("timeout", { type: "string", describe: "Wall-clock ceiling per cell in ms (a whole number ≥ 1; default 120000): a replay still running then is an infrastructure timeout, never a divergence" })
      .option("module", { type: "string", describe: "Bridge module to replay instead of the provider's own" })
      .option("trace", { type: "boolean", default: false, describe: "Print every line written and every live line to stderr, in walk order" })
      .option("cells", { type: "string", describe: CELLS_FLAG_DESCRIPTION })
      .example("$0 replay recordings/echo/turn", "Print the live thread lane of one recording")
      .example("$0 replay --recordings ../shared/recordings --provider acp-cursor --cell resume --timeline", "Readable timeline"),
  async run(args, ctx) {
    // Flags first: a bad value is one line, exit 2, before anything is replayed.
    if (args.deltas && args.timeline) throw new UsageError("--deltas and --timeline are alternatives: pass one");
    const timeout = positiveIntegerFlag("timeout", args.timeout, "ms");
    const modulePath = typeof args.module === "string" ? await checkBridgeModuleFlag(args.module, ctx.cwd) : undefined;
    const cellsRoot = typeof args.cells === "string" ? existingDirFlag("cells", args.cells, ctx.cwd) : undefined;
    const dir = await resolveCellDir(args, ctx.cwd);
    const recording = await readRecording(dir);
    if (recording.manifest.scope === "process") {
      throw new UsageError(`${recording.manifest.provider}/${recording.manifest.cell} is process-scoped: it has no thread lane to replay`);
    }
    const result = await replayRecording(recording, {
      ...(timeout !== undefined ? { timeouts: { ceilingMs: timeout } } : {}),
      ...(modulePath !== undefined ? { modulePath } : {}),
      ...(cellsRoot !== undefined ? { cellsRoot } : {}),
      ...(args.trace ? { trace: (text: string) => ctx.err(`${text}\n`) } : {}),
    });
    if (args.json) ctx.out(`${JSON.stringify(replayJson(result), null, 2)}\n`);
    else if (args.deltas) ctx.out(liveDeltaLines(result));
    else if (args.timeline) ctx.out(timelineText(result, ctx.color));
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
