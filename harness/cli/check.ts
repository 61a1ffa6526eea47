import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import type { Argv } from "yargs";
import { ThreadEventSchema } from "../../stack/protocol/thread-events.js";
import { InputError, UsageError } from "../errors.js";
import { buildThreadLane, normalizeThreadLane } from "../lanes/index.js";
import { readRecording, type Recording } from "../recording/reader.js";
import { resolveRecordingRoots, selectRecordings } from "../recording/select.js";
import type { ParityCommand } from "./command.js";
import { cellFilterOf } from "./lanes.js";

/**
 * Interim `parity check` (00-product.md, CLI: `check`), until the replay gate replaces it:
 * for every recorded cell it assembles the thread lane from the recorded bridge lane and from
 * the current one, validates every event against the ThreadEvent schemas (spec 10 §2.2), and
 * compares the current lane, normalized (spec 10 §6.3 steps 1–5), with the committed oracle
 * `lanes/<provider>/<cell>.json` by exact JSON equality. It does not replay bridges.
 */

/** Roots `check` reads when no `--recordings` is given (each only when it exists). */
export const CHECK_DEFAULT_ROOTS = ["recordings", "../shared/recordings"] as const;

/** Verdict of one cell. */
export interface CellVerdict {
  provider: string;
  cell: string;
  status: "pass" | "fail" | "skip";
  /** One line: counts, and why it failed or was skipped. */
  detail: string;
}

/** Validates each event; returns the first problem as text, or undefined when all are valid. */
function firstInvalidEvent(events: readonly unknown[], leg: string): string | undefined {
  for (let i = 0; i < events.length; i++) {
    const parsed = ThreadEventSchema.safeParse(events[i]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const type = (events[i] as { type?: unknown }).type;
      return clip(`${leg} lane event ${i} (${String(type)}) is not a valid ThreadEvent: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`);
    }
  }
  return undefined;
}

/** Cuts a message to one readable line of at most 160 characters. */
function clip(message: string): string {
  const line = message.replace(/\s+/g, " ");
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

/** Index of the first differing element of two normalized lanes, or -1 when equal. */
function firstDifference(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return i;
  return -1;
}

async function readOracle(file: string): Promise<unknown[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch {
    throw new InputError("oracle is not valid JSON", { file });
  }
  if (!Array.isArray(value)) throw new InputError("oracle must be a JSON array of thread events", { file });
  return value;
}

/**
 * Checks one recording (see the module comment). `oracleFile` may not exist; outside CI that
 * skips the comparison, in CI it fails the cell (00-product.md: a missing oracle is a failure in CI).
 * `oracleName` is how the oracle is named in the verdict (defaults to the path).
 *
 * @throws InputError when the oracle exists but is not a JSON array.
 */
export async function checkCell(
  provider: string,
  cell: string,
  recording: Recording,
  oracleFile: string,
  ci: boolean,
  oracleName: string = oracleFile,
): Promise<CellVerdict> {
  const verdict = (status: CellVerdict["status"], detail: string): CellVerdict => ({ provider, cell, status, detail });
  if (recording.manifest.scope === "process") return verdict("skip", "process-scoped (no thread lane)");
  const recorded = buildThreadLane(recording, { useCurrent: false });
  const current = buildThreadLane(recording, { useCurrent: true });
  // The recorded bridge lane may predate grammar v3 (its batches are then rejected and
  // skipped); that is reported, not failed: the gate's recorded view is the current lane
  // (spec 10 §6.4, §6.6 `--plan-with`).
  const skipped = recorded.invalidDeltas.length;
  const counts =
    `recorded ${recorded.events.length} events${skipped > 0 ? ` (${skipped} batches rejected as not grammar v3)` : ""}, ` +
    `current ${current.events.length} events, ` +
    `unhandled ${recorded.unhandled}→${current.unhandled}, grammar drops ${recorded.grammarDrops.length}→${current.grammarDrops.length}`;
  const rejected = current.invalidDeltas[0];
  if (rejected !== undefined) {
    return verdict("fail", `${counts}; invalid thread/delta batch in the current lane at run ${rejected.run} seq ${rejected.seq}: ${clip(rejected.message)}`);
  }
  const invalid = firstInvalidEvent(recorded.events, "recorded") ?? firstInvalidEvent(current.events, "current");
  if (invalid !== undefined) return verdict("fail", `${counts}; ${invalid}`);
  if (!existsSync(oracleFile)) {
    return ci ? verdict("fail", `${counts}; missing oracle ${oracleName}`) : verdict("skip", `${counts}; no oracle ${oracleName}`);
  }
  const oracle = await readOracle(oracleFile);
  const lane = normalizeThreadLane(current.events);
  const at = firstDifference(lane, oracle);
  if (at === -1) return verdict("pass", `${counts}; equals its oracle`);
  const typeAt = (xs: readonly unknown[]): string => String((xs[at] as { type?: unknown } | undefined)?.type ?? "(none)");
  return verdict(
    "fail",
    `${counts}; differs from its oracle at event ${at} (lane ${typeAt(lane)}, oracle ${typeAt(oracle)}; ${lane.length} vs ${oracle.length} events)`,
  );
}

/** `parity check` (interim; see the module comment). */
export const checkCommand: ParityCommand = {
  command: "check",
  describe: "Gate (interim): assemble every recorded cell, validate its events, compare with its oracle",
  builder: (y: Argv) =>
    y
      .option("recordings", {
        type: "string",
        array: true,
        describe: "Recordings root (repeatable); default: recordings and ../shared/recordings when present",
      })
      .option("provider", { type: "string", describe: "Only this provider" })
      .option("cell", { type: "string", describe: "Only this cell" })
      .option("lanes", { type: "string", default: "lanes", describe: "Directory of the committed oracles" })
      .example("$0 check", "Every cell under ./recordings and ../shared/recordings")
      .example("$0 check --recordings ../shared/recordings --provider acp-cursor --cell turn-tools", "One cell"),
  async run(args, ctx) {
    const roots = resolveRecordingRoots((args.recordings as string[] | undefined) ?? [], ctx.cwd, CHECK_DEFAULT_ROOTS);
    const locations = await selectRecordings(roots, cellFilterOf(args));
    if (locations.length === 0) throw new UsageError(`no recorded cells under ${roots.join(", ") || "(no recordings root)"}`);
    const lanesDir = path.resolve(ctx.cwd, args.lanes as string);
    const c = new Chalk({ level: ctx.color ? 1 : 0 });
    const paint = { pass: c.green("PASS"), fail: c.red("FAIL"), skip: c.yellow("SKIP") };
    const tally = { pass: 0, fail: 0, skip: 0 };
    for (const location of locations) {
      const recording = await readRecording(location.dir);
      const oracle = path.join(lanesDir, location.provider, `${location.cell}.json`);
      const v = await checkCell(location.provider, location.cell, recording, oracle, ctx.ci, path.relative(ctx.cwd, oracle) || oracle);
      tally[v.status] += 1;
      ctx.out(`${paint[v.status]} ${v.provider}/${v.cell}: ${v.detail}\n`);
    }
    ctx.out(`${tally.pass} passed, ${tally.fail} failed, ${tally.skip} skipped (${locations.length} cells)\n`);
    return tally.fail > 0 ? 1 : 0;
  },
};
