import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";
import path from "node:path";
import { Chalk } from "chalk";
import type { Argv } from "yargs";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../lanes/index.js";
import { UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { writeOracleVersion } from "../recording/oracle-version.js";
import { isInside, realPathOf } from "../recording/paths.js";
import { readRecording, type Recording } from "../recording/reader.js";
import type { RecordingLocation } from "../recording/reader.js";
import { selectRecordings, type CellFilter } from "../recording/select.js";
import { manifestCellOf } from "../recording/alternates.js";
import type { ParityCommand } from "./command.js";
import { outputFlagError } from "./flag-checks.js";
import { formatTable } from "../report/table.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { FLAGS, booleanFlag, resolveSelection, stringFlag, type ParsedFlags, type Selection } from "./options.js";

/**
 * The thread lane of one cell (docs/design/00-product.md, Words: thread lane), as `parity lanes --json`
 * prints it: counts after the host grammar, and `lane`, the normalized thread events
 * (spec 10 §6.3 steps 1–5); `[]` for a process-scoped cell.
 */
export interface CellLane {
  provider: string;
  cell: string;
  scope: "thread" | "process";
  /** The recording's `cliVersion` (its manifest): what an oracle written from this lane is accepted from. */
  cliVersion: string;
  /** Events after the host grammar. */
  events: number;
  /** `provider/unhandled` events among them. */
  unhandled: number;
  /** Events the host grammar dropped. */
  grammarDrops: number;
  /** `thread/delta` batches the assembler rejected as invalid grammar v3 (skipped whole). */
  invalidDeltas: number;
  lane: unknown[];
}

/**
 * Assembles the thread lane of one recording: `buildThreadLane` (current bridge lane when
 * `useCurrent`, the default) then `normalizeThreadLane` (spec 10 §2, §3, §6.3).
 */
export function assembleCellLane(location: RecordingLocation, recording: Recording, useCurrent = true): CellLane {
  const built = buildThreadLane(recording, { useCurrent });
  const lane = built.scope === "process" ? [] : normalizeThreadLane(built.events);
  return {
    provider: location.provider,
    cell: location.cell,
    scope: built.scope,
    cliVersion: recording.manifest.cliVersion,
    events: built.events.length,
    unhandled: built.unhandled,
    grammarDrops: built.grammarDrops.length,
    invalidDeltas: built.invalidDeltas.length,
    lane,
  };
}

/**
 * Reads every selected recording and assembles its thread lane. All cells are read and
 * assembled before the caller writes anything, so one bad recording leaves `--out` untouched.
 *
 * @throws InputError on a bad recording, UsageError on an unknown `--provider`/`--cell`.
 */
export async function assembleCells(roots: readonly string[], filter: CellFilter, useCurrent = true): Promise<CellLane[]> {
  const cells: CellLane[] = [];
  // A cell's accepted alternates are assembled too, each under its own name (`<cell>/alternates/<k>`).
  for (const location of await selectRecordings(roots, filter, { alternates: true })) {
    const expect = { provider: location.provider, cell: manifestCellOf(location) };
    cells.push(assembleCellLane(location, await readRecording(location.dir, { expect }), useCurrent));
  }
  return cells;
}

/** `parity lanes`'s options, complete and typed. */
export interface LanesOptions {
  selection: Selection;
  /** `--out` as typed and resolved, when given. */
  out?: { value: string; dir: string };
  /** `--recorded`: assemble the recorded bridge lane instead of the current one. */
  recorded: boolean;
  json: boolean;
}

/**
 * `parity lanes`: `--recordings`, `--provider`, `--cell`, `--out`, `--recorded`, `--json`.
 * @throws UsageError for a `--recordings` root that is missing or not a directory
 */
export function resolveLanesOptions(args: ParsedFlags, cwd: string): LanesOptions {
  const out = stringFlag(args, "out");
  if (out !== undefined) {
    requireDirectoryFlag("out", out, path.resolve(cwd, out));
    requireFreeSpace(`--out ${out}`, path.resolve(cwd, out));
  }
  return {
    selection: resolveSelection(args, cwd),
    ...(out !== undefined ? { out: { value: out, dir: path.resolve(cwd, out) } } : {}),
    recorded: booleanFlag(args, "recorded"),
    json: booleanFlag(args, "json"),
  };
}

/** `parity lanes`: assemble each recorded cell's thread lane; print counts, JSON, or write files. */
export const lanesCommand: ParityCommand = {
  command: "lanes",
  describe: "Assemble the thread lane of each recorded cell (counts, JSON, or files under --out)",
  builder: (y: Argv) =>
    y
      .option("recordings", FLAGS.recordings)
      .option("provider", FLAGS.provider)
      .option("cell", FLAGS.cell)
      .option("recorded", {
        type: "boolean",
        default: false,
        describe: "Assemble the recorded bridge lane instead of bridge→runtime.current.ndjson",
      })
      .option("out", { type: "string", describe: "Write <out>/<provider>/<cell>.json (atomically) for every cell" })
      .option("json", { type: "boolean", default: false, describe: "Print one JSON array, one object per cell" })
      .example("$0 lanes --recordings ../shared/recordings", "Event counts of every recorded cell")
      .example("$0 lanes --recordings ../shared/recordings --provider acp-cursor --cell turn-tools --json", "One cell's normalized lane")
      .example("$0 lanes --recordings recordings --out lanes", "Write the oracles of every committed recording (refused under CI)"),
  async run(args, ctx) {
    const options = resolveLanesOptions(args, ctx.cwd);
    const out = options.out?.value;
    const outDir = options.out?.dir;
    if (outDir !== undefined && ctx.ci) {
      // docs/design/00-product.md: in CI nothing writes oracles or recordings, whatever path names them.
      const real = await realPathOf(outDir);
      for (const guarded of [ORACLES_DIR, RECORDINGS_ROOT]) {
        if (isInside(await realPathOf(path.resolve(ctx.cwd, guarded)), real)) {
          throw new UsageError(`--out ${out}: that is inside ${guarded}/, and nothing writes oracles or recordings under CI=true`);
        }
      }
    }
    const { roots, filter } = options.selection;
    const cells = await assembleCells(roots, filter, !options.recorded);
    const written: string[] = [];
    if (outDir !== undefined) {
      for (const c of cells) {
        const file = path.join(outDir, c.provider, `${c.cell}.json`);
        try {
          await writeFileAtomic(file, serializeThreadLane(c.lane));
          await writeOracleVersion(file, c.cliVersion);
        } catch (thrown) {
          throw outputFlagError("out", String(out), outDir, thrown);
        }
        written.push(file);
      }
    }
    if (options.json) {
      ctx.out(`${JSON.stringify(cells)}\n`);
      return 0;
    }
    const c = new Chalk({ level: ctx.color ? 1 : 0 });
    const header = ["provider", "cell", "scope", "events", "unhandled", "grammar drops", "invalid deltas"];
    const rows = cells.map((x) => [x.provider, x.cell, x.scope, x.events, x.unhandled, x.grammarDrops, x.invalidDeltas].map(String));
    const [head, ...body] = formatTable([header, ...rows]).split("\n");
    ctx.out(`${c.bold(head ?? "")}\n${body.join("\n")}`);
    if (cells.some((x) => x.invalidDeltas > 0)) ctx.out(`${c.dim(invalidDeltasNote(options.recorded))}\n`);
    for (const file of written) ctx.out(`wrote ${path.relative(ctx.cwd, file) || file}\n`);
    ctx.out(`${cells.length} ${cells.length === 1 ? "cell" : "cells"}\n`);
    return 0;
  },
};

/**
 * The one line `parity lanes` prints once per run when some cell has invalid deltas, saying what
 * they are. Recorded bridge lanes of the acp-cursor cells come from an older bridge that spoke
 * grammar v2 (`message.delta`/`message.close`), so with `--recorded` every turn's deltas count
 * here; the current lanes (`bridge→runtime.current.ndjson`) differ only in grammar (v2 → v3,
 * spec 20 §4) and are what the default assembles.
 */
export function invalidDeltasNote(recorded: boolean): string {
  const what = "invalid deltas: thread/delta batches that are not valid grammar v3 (spec 10), skipped whole";
  return recorded
    ? `${what}; recorded bridge lanes from an older bridge use grammar v2 (message.delta/message.close, spec 20 §4), the current lanes (bridge→runtime.current.ndjson, used without --recorded) are the v3 ones`
    : `${what}; in a current lane (bridge→runtime.current.ndjson) they mean the recorded bridge broke grammar v3`;
}
