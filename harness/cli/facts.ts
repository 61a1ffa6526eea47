/**
 * `parity facts` (issue 37): compute the facts of the committed cells — what really happens when
 * each cell's model script runs, commands run for real in the sandbox agents are recorded in —
 * and write `cells/<cell>/facts.json` and `cells/<cell>/facts/<provider>.json` (variants),
 * atomically, only where the text changed. `--check` (and any run under `CI=true`) writes
 * nothing, runs no command and exits 2 naming each missing or stale facts file with the command
 * that refreshes it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { CELLS_ROOT } from "../defaults.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { recordProviders } from "../families/index.js";
import { checkFactsFresh, describeFreshness, listFactsTargets, type FactsFreshness, type FactsTarget } from "../facts/fresh.js";
import { refreshFacts } from "../facts/refresh.js";
import { isInside } from "../recording/paths.js";
import { detectNetworkIsolation, type NetworkMode } from "../record/network.js";
import type { ParityCommand } from "./command.js";
import type { CliContext } from "./context.js";
import { closestName } from "./did-you-mean.js";
import { isDirectory, missingDefaultDir } from "./project-dir.js";
import { booleanFlag, FLAGS, stringFlag, type ParsedFlags } from "./options.js";

/** `parity facts`'s options, complete and typed. */
export interface FactsOptions {
  /** `--cells` (absolute). */
  cellsRoot: string;
  cell?: string;
  provider?: string;
  /** `--check`, or `CI=true`: write nothing. */
  check: boolean;
  network: NetworkMode;
  json: boolean;
}

const NETWORK_MODES: readonly NetworkMode[] = ["auto", "netns", "watch"];

/**
 * Turns `parity facts`' argv into {@link FactsOptions}.
 * @throws UsageError when the cells root is not a directory: `--cells` names it; without it, where
 *   `cells/` was looked for (a run outside any project found nothing and said nothing)
 */
export function resolveFactsOptions(args: ParsedFlags, ctx: Pick<CliContext, "cwd" | "ci">): FactsOptions {
  const cell = stringFlag(args, "cell");
  const provider = stringFlag(args, "provider");
  const cells = stringFlag(args, "cells") ?? CELLS_ROOT;
  const cellsRoot = path.resolve(ctx.cwd, cells);
  if (!isDirectory(cellsRoot)) {
    throw new UsageError(
      cells !== CELLS_ROOT
        ? `--cells ${cells}: ${existsSync(cellsRoot) ? "not a directory" : "directory not found"} (${cellsRoot})`
        : missingDefaultDir(ctx.cwd, CELLS_ROOT, "--cells", "parity facts computes the facts of the project's own cells (cells/<cell>/)"),
    );
  }
  return {
    cellsRoot,
    ...(cell !== undefined ? { cell } : {}),
    ...(provider !== undefined ? { provider } : {}),
    check: booleanFlag(args, "check") || ctx.ci,
    network: (stringFlag(args, "network") ?? "auto") as NetworkMode,
    json: booleanFlag(args, "json"),
  };
}

/**
 * The facts files the options select.
 * @throws UsageError for a `--cell` or `--provider` that selects nothing (naming the known ones, or the nearest)
 */
async function selectTargets(options: FactsOptions): Promise<FactsTarget[]> {
  const all = await listFactsTargets(options.cellsRoot);
  const cells = [...new Set(all.map((t) => t.cell))];
  if (options.cell !== undefined && !cells.includes(options.cell)) {
    const near = closestName(options.cell, cells);
    throw new UsageError(`--cell ${options.cell}: no such cell under ${options.cellsRoot}${near ? ` (did you mean ${near}?)` : `; known: ${cells.join(", ") || "none"}`}`);
  }
  if (options.provider !== undefined) {
    const providers = [...new Set([...Object.keys(recordProviders()), ...all.flatMap((t) => (t.variant === null ? [] : [t.variant]))])].sort();
    if (!providers.includes(options.provider)) {
      const near = closestName(options.provider, providers);
      throw new UsageError(`--provider ${options.provider}: no such provider${near ? ` (did you mean ${near}?)` : `; known: ${providers.join(", ")}`}`);
    }
  }
  return listFactsTargets(options.cellsRoot, { ...(options.cell !== undefined ? { cell: options.cell } : {}), ...(options.provider !== undefined ? { provider: options.provider } : {}) });
}

/** The `facts` command. */
export const factsCommand: ParityCommand = {
  tempDir: true,
  command: "facts",
  describe: "Compute what really happens in each cell (commands run for real) and write cells/<cell>/facts.json and facts/<provider>.json",
  builder: (y: Argv) =>
    y
      .option("cell", FLAGS.cell)
      .option("provider", { type: "string", describe: "Only the facts that judge this provider's lanes (its variant's, else the cell's)" })
      .option("cells", { type: "string", default: CELLS_ROOT, describe: "Cell definitions root" })
      .option("check", { type: "boolean", default: false, describe: "Write nothing and run nothing: exit 2 naming each missing or stale facts file (also what CI=true does)" })
      .option("network", {
        choices: NETWORK_MODES,
        default: "auto",
        describe: "Keep the cells' commands on loopback as record keeps agents: a network namespace (netns), none (watch), or netns where possible (auto)",
      })
      .option("json", { type: "boolean", default: false, describe: "Print one object per facts file (cell, variant, file, status) as JSON" })
      .example("$0 facts", "compute and write the facts of every cell and variant")
      .example("$0 facts --cell command-fails", "only that cell (and its variants): the command a stale facts file names")
      .example("$0 facts --check", "exit 2 when a facts file is missing or stale, writing nothing (CI)")
      .example("$0 facts --cell approval-deny --provider acp-qwen --json", "the facts that judge acp-qwen's approval-deny lane")
      .epilogue(
        "Facts are what really happens in a cell: for each tool call of its model script, in order, a command's stdout, stderr and exit code or signal " +
          "(run in a copy of the workspace in the sandbox agents are recorded in), a read's bytes, an edit's or write's file before and after, the cell's " +
          "approval answer; each model error; each turn's expected end. They are computed here and by `parity record`, never during `check`. " +
          "Here exit 2 is also a missing or stale facts file (--check), and 4 a cell command that did not end.",
      ),
  async run(args, ctx) {
    const options = resolveFactsOptions(args, ctx);
    const rel = (file: string) => (isInside(ctx.cwd, file) ? path.relative(ctx.cwd, file) : file);
    const targets = await selectTargets(options);
    if (options.check) {
      if (ctx.ci && !booleanFlag(args, "check") && !options.json) ctx.err("CI=true: parity facts writes nothing; checking freshness only (as --check)\n");
      const results: FactsFreshness[] = [];
      // Outside the default cells root, the refresh command names the root too.
      const cellsFlag = options.cellsRoot === path.resolve(ctx.cwd, CELLS_ROOT) ? "" : ` --cells ${rel(options.cellsRoot)}`;
      for (const t of targets) {
        const freshness = await checkFactsFresh(options.cellsRoot, t.cell, t.variant);
        results.push({ ...freshness, command: `${freshness.command}${cellsFlag}` });
      }
      const bad = results.filter((r) => r.status !== "fresh");
      if (options.json)
        ctx.out(
          `${JSON.stringify(
            results.map((r) => ({ ...r, file: rel(r.file) })),
            null,
            2,
          )}\n`,
        );
      else if (bad.length === 0) ctx.out(`${results.length} facts file(s) fresh\n`);
      else for (const r of bad) ctx.err(`parity: ${describeFreshness(r, rel)}\n`);
      return bad.length === 0 ? EXIT_CODES.ok : EXIT_CODES.inputError;
    }
    const isolation = detectNetworkIsolation(options.network);
    if (options.network === "netns" && isolation.kind !== "netns") throw new UsageError(`--network netns: ${isolation.why}`);
    const done = await refreshFacts(targets, { cellsRoot: options.cellsRoot, isolation, ...(ctx.wrote ? { wrote: ctx.wrote } : {}) });
    if (options.json) {
      ctx.out(
        `${JSON.stringify(
          done.map((d) => ({ ...d, file: rel(d.file) })),
          null,
          2,
        )}\n`,
      );
      return EXIT_CODES.ok;
    }
    for (const d of done) ctx.out(`${d.status === "written" ? "wrote    " : "unchanged"} ${rel(d.file)} (${d.steps} step(s))\n`);
    if (isolation.kind !== "netns") ctx.err(`note: commands ran without a network namespace (${isolation.why})\n`);
    return EXIT_CODES.ok;
  },
};
