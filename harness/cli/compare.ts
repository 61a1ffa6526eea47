/**
 * `parity compare <providerA> <providerB>` (issue 39): the same CLI through two bridges, held
 * against each other cell by cell over the committed oracles (`lanes/<p>/<cell>.json`), each
 * difference with its class, lost/changed/invented and cause (adapter or bridge, with the
 * agent-side seq), read from `recordings/<p>/<cell>/` (harness/compare/pair/). Pair entries in
 * `allowlists/pairs/*.json` (and `--allowlist`) allow an adapter's known losses across cells. Exit 0
 * when every difference is allowed and no pair entry is stale, 1 otherwise (a difference caused by
 * our bridge is never allowed, and fails under `--strict` or `PAIR_BRIDGE_CAUSES` "fail"), 2 for bad input
 * (an unknown provider, no cell in common, a bad flag or allowlist).
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Argv } from "yargs";
import { loadPairAllowlists } from "../compare/pair/pair-allowlist.js";
import { comparePair } from "../compare/pair/pair-compare.js";
import { loadCellFacts } from "../check/cell-facts.js";
import { CELLS_ROOT, ORACLES_DIR, PAIR_BRIDGE_CAUSES, RECORDINGS_ROOT } from "../defaults.js";
import { EXIT_CODES, InputError, UsageError } from "../errors.js";
import { customAgentPairs, findPair, PROVIDER_PAIRS, pairName, type ProviderPair } from "../families/index.js";
import { readCustomAgentsText } from "../families/custom-agents-file.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { shownPath } from "../recording/paths.js";
import { renderPairHtml, renderPairJson, renderPairText } from "../report/pair-report.js";
import type { ParityCommand } from "./command.js";
import { closestName } from "./did-you-mean.js";
import { outputFlagError } from "./flag-checks.js";
import { booleanFlag, stringFlag, stringsFlag } from "./options.js";

async function providersWithLanes(lanesDir: string): Promise<string[]> {
  try {
    return (await readdir(lanesDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/** The `compare` command. */
export const compareCommand: ParityCommand = {
  command: "compare <providerA> <providerB>",
  describe: "The same CLI through two bridges: their lanes compared item by item, each difference with class and cause",
  builder: (y: Argv) =>
    y
      .positional("providerA", { type: "string", describe: "One provider (a declared pair's native bridge is always side A)" })
      .positional("providerB", { type: "string", describe: "The other provider" })
      .option("cell", { type: "string", array: true, describe: "Only these cells (default: every cell both providers recorded)" })
      .option("json", { type: "boolean", default: false, describe: "Print the comparison as JSON" })
      .option("html", { type: "string", describe: "Also write one self-contained HTML page to this file" })
      .option("allowlist", { type: "string", array: true, describe: "Extra allowlist files (besides allowlists/pairs/*.json)" })
      .option("strict", {
        type: "boolean",
        default: false,
        describe:
          'Fail on differences caused by our bridges (they always fail while harness/defaults.ts PAIR_BRIDGE_CAUSES is "fail", as today; with "warn" they are listed and counted, failing only under --strict)',
      })
      .option("custom-agents", { type: "string", describe: 'A customAgents file whose entries name their native counterpart ("counterpart")' })
      .example("$0 compare codex acp-codex", "every cell both recorded, grouped by class")
      .example("$0 compare claude-code acp-claude --cell turn-tools --json", "one cell, for machines")
      .example("$0 compare pi acp-pi --html pair.html", "a page for reviewers")
      .example("$0 compare codex acp-codex --allowlist budget.json", "with pair entries of your own besides allowlists/pairs/")
      .epilogue(`Declared pairs: ${PROVIDER_PAIRS.map(pairName).join(", ")}. Exit 0: every difference allowed; 1: a difference not allowed or a stale pair entry; 2: bad input.`),
  async run(args, ctx) {
    const typedA = String(args.providerA);
    const typedB = String(args.providerB);
    const lanesDir = path.resolve(ctx.cwd, ORACLES_DIR);
    const recordingsDir = path.resolve(ctx.cwd, RECORDINGS_ROOT);
    const known = await providersWithLanes(lanesDir);
    for (const provider of [typedA, typedB]) {
      if (!known.includes(provider)) {
        const near = closestName(provider, known);
        throw new UsageError(`unknown provider "${provider}": no oracles under ${ORACLES_DIR}/${provider}/${near !== undefined ? ` (did you mean ${near}?)` : ""}`);
      }
    }
    if (typedA === typedB) throw new UsageError(`compare two different providers (both are "${typedA}")`);
    const customFile = stringFlag(args, "custom-agents");
    const pairs: ProviderPair[] = [...PROVIDER_PAIRS];
    if (customFile !== undefined) {
      const file = path.resolve(ctx.cwd, customFile);
      pairs.push(...customAgentPairs(await readCustomAgentsText(file), file));
    }
    const declared = findPair(typedA, typedB, pairs);
    const [a, b] = declared !== undefined ? [declared.native, declared.adapter] : [typedA, typedB];
    const cells = stringsFlag(args, "cell");
    const entries = await loadPairAllowlists({ cwd: ctx.cwd, files: stringsFlag(args, "allowlist") });
    // An entry for a pair whose providers have no lanes would never be judged: a typo is input error.
    for (const entry of entries) {
      const missing = entry.pair.split("/").find((provider) => !known.includes(provider));
      if (missing !== undefined) {
        throw new InputError(`entry ${entry.source.index}: pair: "${entry.pair}" names ${missing}, which has no oracles under ${ORACLES_DIR}/`, { file: entry.source.file });
      }
    }
    // Each side's lane is judged against its cell's facts (as parity check does), so a difference
    // on a datum our bridge is untrue on is the bridge's. Stale facts stop the run (exit 2, one line).
    const cellsRoot = path.resolve(ctx.cwd, CELLS_ROOT);
    const factsOf = async (provider: string, cell: string) => {
      const state = (await loadCellFacts(cellsRoot, [{ provider, cell }])).get(`${provider}/${cell}`);
      return state?.state === "judged" ? state.facts : undefined;
    };
    const unpairedReasons = declared?.unpaired;
    const result = await comparePair({
      a,
      b,
      pair: `${a}/${b}`,
      lanesDir,
      recordingsDir,
      ...(cells.length > 0 ? { cells } : {}),
      entries,
      factsOf,
      ...(unpairedReasons !== undefined ? { unpairedReasons } : {}),
    });
    if (result.cells.length === 0) throw new UsageError(`${a} and ${b} have no recorded cell in common: nothing to compare`);
    let wrote: string | undefined;
    const html = stringFlag(args, "html");
    if (html !== undefined && html !== "") {
      const file = path.resolve(ctx.cwd, html);
      try {
        await writeFileAtomic(file, renderPairHtml(result));
      } catch (thrown) {
        throw outputFlagError("html", html, file, thrown);
      }
      wrote = shownPath(file, ctx.cwd);
    }
    const strict = booleanFlag(args, "strict") || PAIR_BRIDGE_CAUSES === "fail";
    if (booleanFlag(args, "json")) ctx.out(renderPairJson(result));
    else ctx.out(renderPairText(result, { color: ctx.color, strict, cwd: ctx.cwd }));
    if (wrote !== undefined && !booleanFlag(args, "json")) ctx.out(`wrote ${wrote}\n`);
    // A bridge's difference is never allowed: it fails under PAIR_BRIDGE_CAUSES "fail" (or --strict), else is listed.
    const failing = result.differences.some((d) => d.allowedBy === undefined && (strict || d.cause.kind !== "bridge")) || result.stale.length > 0;
    return failing ? EXIT_CODES.parityFailure : EXIT_CODES.ok;
  },
};
