import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import type { Argv } from "yargs";
import { LANE_DIRECTIONS, type Direction } from "../recording/lane-entry.js";
import { isInside } from "../recording/paths.js";
import { ALTERNATES_DIR, manifestCellOf, parseAlternateCellName } from "../recording/alternates.js";
import { readRecording } from "../recording/reader.js";
import { selectRecordings } from "../recording/select.js";
import { formatTable } from "../report/table.js";
import type { ParityCommand } from "./command.js";
import type { CliContext } from "./context.js";
import { ORACLES_DIR } from "../defaults.js";
import { FLAGS, booleanFlag, resolveSelection, stringFlag, type ParsedFlags, type Selection } from "./options.js";

/** One row of `parity list --json` (docs/design/00-product.md, CLI: `list`). */
export interface ListRow {
  provider: string;
  cell: string;
  /** The recording directory (absolute). */
  dir: string;
  scope: "thread" | "process";
  threadId: string | null;
  cliVersion: string;
  recordedAt: string;
  bridgeRuns: number;
  /** Entries per recorded lane, from the validated manifest. */
  lines: Record<Direction, number>;
  /** Entries in `bridge→runtime.current.ndjson`, or null when there is none. */
  currentLines: number | null;
  /**
   * Absolute path of the oracle `lanes/<provider>/<cell>.json`, or null when not committed or
   * when the recording lies outside the repository: `parity check` holds such a recording (e.g.
   * `../shared/recordings`) against its own bridge lane only, never against an oracle.
   */
  oracle: string | null;
}

/**
 * Builds the provider × cell matrix (docs/design/00-product.md, CLI: `list`) by reading and validating
 * every selected recording. `repoRoot` (default: the parent of `lanesDir`) is the checkout
 * whose oracles apply: only recordings inside it get an oracle, as in `parity check`.
 *
 * @throws InputError on any bad recording (see `readRecording`), UsageError on an unknown
 *   `--provider`/`--cell`.
 */
export async function listRows(roots: readonly string[], lanesDir: string, filter: { provider?: string; cell?: string }, repoRoot: string = path.dirname(lanesDir)): Promise<ListRow[]> {
  const rows: ListRow[] = [];
  for (const location of await selectRecordings(roots, filter, { alternates: true })) {
    const recording = await readRecording(location.dir, { expect: { provider: location.provider, cell: manifestCellOf(location) } });
    const m = recording.manifest;
    const oracle = path.join(lanesDir, location.provider, `${location.cell}.json`);
    rows.push({
      provider: location.provider,
      cell: location.cell,
      dir: location.dir,
      scope: m.scope,
      threadId: m.threadId,
      cliVersion: m.cliVersion,
      recordedAt: m.recordedAt,
      bridgeRuns: m.bridgeRuns,
      lines: m.lines,
      currentLines: recording.currentBridgeLane?.length ?? null,
      oracle: isInside(repoRoot, location.dir) && existsSync(oracle) ? oracle : null,
    });
  }
  return rows;
}

/**
 * Oracles `<lanesDir>/<provider>/<cell>.json` that no listed recording accounts for (a renamed
 * or deleted cell), narrowed by the same filter; absolute paths, sorted. Only rows that carry
 * an oracle (recordings inside the repository) account for one. A missing `lanesDir` has none.
 */
export async function orphanOracles(lanesDir: string, rows: readonly ListRow[], filter: { provider?: string; cell?: string }): Promise<string[]> {
  const recorded = new Set(rows.filter((r) => r.oracle !== null).map((r) => `${r.provider}/${r.cell}`));
  const orphans: string[] = [];
  const providers = await readdir(lanesDir, { withFileTypes: true }).catch(() => []);
  for (const provider of providers) {
    if (!provider.isDirectory() || (filter.provider !== undefined && provider.name !== filter.provider)) continue;
    for (const name of await oracleNames(path.join(lanesDir, provider.name))) {
      const cell = name.slice(0, -".json".length);
      const base = parseAlternateCellName(cell)?.cell ?? cell;
      if (filter.cell !== undefined && cell !== filter.cell && base !== filter.cell) continue;
      if (!recorded.has(`${provider.name}/${cell}`)) orphans.push(path.join(lanesDir, provider.name, name));
    }
  }
  return orphans.sort();
}

/** A provider's oracle names: `<cell>.json` and each alternate's `<cell>/alternates/<k>.json` (alternates.ts), unsorted. */
async function oracleNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".json")) names.push(entry.name);
    if (entry.isDirectory())
      for (const k of await readdir(path.join(dir, entry.name, ALTERNATES_DIR)).catch(() => [] as string[])) if (/^\d+\.json$/.test(k)) names.push(`${entry.name}/${ALTERNATES_DIR}/${k}`);
  }
  return names;
}

function renderText(rows: ListRow[], ctx: CliContext): string {
  const c = new Chalk({ level: ctx.color ? 1 : 0 });
  const header = ["provider", "cell", "scope", "cli", "recorded", "runs", "lines r→b/b→r/p→b/b→p", "current", "oracle"];
  const body = rows.map((r) => [
    r.provider,
    r.cell,
    r.scope,
    r.cliVersion,
    r.recordedAt,
    String(r.bridgeRuns),
    LANE_DIRECTIONS.map((d) => r.lines[d]).join("/"),
    r.currentLines === null ? "-" : String(r.currentLines),
    r.oracle === null ? "missing" : "yes",
  ]);
  // Pad on plain text, colour afterwards, so escape codes never skew the columns.
  const lines = formatTable([header, ...body]).split("\n");
  const coloured = lines.map((line, i) => {
    if (i === 0) return c.bold(line);
    const row = rows[i - 1];
    if (row === undefined) return line;
    return row.oracle === null ? line.replace(/missing$/, c.yellow("missing")) : line.replace(/yes$/, c.green("yes"));
  });
  const oracles = rows.filter((r) => r.oracle !== null).length;
  return `${coloured.join("\n")}${rows.length} recording(s), ${oracles} with an oracle\n`;
}

/** `parity list`'s options, complete and typed. */
export interface ListOptions {
  selection: Selection;
  /** The oracles directory (absolute), and whether `--lanes` named it. */
  lanesDir: string;
  lanesGiven: boolean;
  json: boolean;
}

/**
 * `parity list`: `--recordings`, `--provider`, `--cell`, `--lanes`, `--json`.
 * @throws UsageError for a `--recordings` root that is missing or not a directory
 */
export function resolveListOptions(args: ParsedFlags, cwd: string): ListOptions {
  const selection = resolveSelection(args, cwd);
  const lanes = stringFlag(args, "lanes");
  return { selection, lanesDir: path.resolve(cwd, lanes ?? ORACLES_DIR), lanesGiven: lanes !== undefined, json: booleanFlag(args, "json") };
}

/** `parity list`: the provider × cell matrix with the state of each recording and oracle. */
export const listCommand: ParityCommand = {
  command: "list",
  describe: "Show the provider × cell matrix: recordings, manifests, current lanes and oracles",
  builder: (y: Argv) =>
    y
      .option("recordings", FLAGS.recordings)
      .option("lanes", {
        type: "string",
        describe:
          "Oracles directory (default: lanes). Without --lanes only recordings under the working directory show an oracle; with it every listed recording is looked up in <lanes>/<provider>/<cell>.json",
      })
      .option("provider", FLAGS.provider)
      .option("cell", FLAGS.cell)
      .option("json", { type: "boolean", default: false, describe: "Print one JSON array instead of a table" })
      .example("$0 list", "Every recording under ./recordings")
      .example("$0 list --recordings ../shared/recordings --provider acp-cursor", "One provider's cells")
      .example("$0 list --json", "Machine-readable matrix"),
  async run(args, ctx) {
    const { selection, lanesDir, lanesGiven, json } = resolveListOptions(args, ctx.cwd);
    const { roots, filter: selected } = selection;
    const filter = {
      ...(selected.provider !== undefined ? { provider: selected.provider } : {}),
      ...(selected.cell !== undefined ? { cell: selected.cell } : {}),
    };
    // An explicit --lanes applies to every recording listed, wherever it lies.
    const rows = await listRows(roots, lanesDir, filter, lanesGiven ? path.parse(lanesDir).root : ctx.cwd);
    if (json) {
      ctx.out(`${JSON.stringify(rows)}\n`);
      return 0;
    }
    ctx.out(renderText(rows, ctx));
    // Orphans only make sense when the repository's own recordings were listed.
    const listedOwn = lanesGiven || roots.some((root) => isInside(ctx.cwd, root));
    for (const file of listedOwn ? await orphanOracles(lanesDir, rows, filter) : []) {
      ctx.out(`oracle without a recording: ${path.relative(ctx.cwd, file) || file}\n`);
    }
    return 0;
  },
};
