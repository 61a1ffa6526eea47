import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Argv } from "yargs";
import { InputError, UsageError } from "../errors.js";
import { mergeBlobs, parseBlob, type ShardBlob } from "../report/blob.js";
import { checkExitCode } from "../report/check-report.js";
import { REPORTER_NAMES } from "../report/reporter-names.js";
import { selectReporter } from "../report/reporters.js";
import type { ParityCommand } from "./command.js";
import type { CliContext } from "./context.js";
import { booleanFlag, stringFlag, stringsFlag, type ParsedFlags } from "./options.js";

/** The reporters a merged run renders with (a blob of blobs is no report). */
const MERGE_REPORTERS = REPORTER_NAMES.filter((name) => name !== "blob");

/**
 * The blob files named on the command line: a file as is, a directory's `*.json` files in name
 * order. @throws UsageError for a name that does not exist or a directory without blobs.
 */
async function blobFiles(names: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const name of names) {
    const full = path.resolve(cwd, name);
    const info = await stat(full).catch(() => undefined);
    if (info === undefined) throw new UsageError(`${name}: no such blob file or directory`);
    if (!info.isDirectory()) {
      files.push(full);
      continue;
    }
    const inside = (await readdir(full)).filter((f) => f.endsWith(".json")).sort();
    if (inside.length === 0) throw new UsageError(`${name}: no *.json blobs in this directory`);
    files.push(...inside.map((f) => path.join(full, f)));
  }
  return files;
}

/**
 * The reporter `--reporter` / `--json` select, as `check`'s: json with `--json` (every command
 * that reports takes it), unless `--reporter` names another one.
 * @throws UsageError when `--json` and another `--reporter` are both given, or for a reporter
 *   outside the merge set (naming the valid ones)
 */
function mergeReporterName(args: ParsedFlags): string {
  const named = stringFlag(args, "reporter") ?? "text";
  if (booleanFlag(args, "json") && named !== "text" && named !== "json") throw new UsageError(`--json and --reporter ${named} disagree; give one of them`);
  const name = booleanFlag(args, "json") ? "json" : named;
  if (!(MERGE_REPORTERS as readonly string[]).includes(name)) {
    throw new UsageError(`--reporter ${name}: use one of ${MERGE_REPORTERS.join(", ")}`);
  }
  return name;
}

/**
 * `parity merge-reports <blob…>` (as Playwright's `merge-reports`): the blobs the shards of one
 * run wrote (`check --shard i/n --reporter blob`) merged into one report of the whole run, in
 * the unsharded order, with any reporter. Exit codes as the unsharded `check` would give (0, 1, 2,
 * 4); 2 as well for blobs that are unreadable, of different runs, or missing a shard.
 */
export const mergeReportsCommand: ParityCommand = {
  command: "merge-reports <blobs..>",
  describe: "Merge the blobs of a sharded check (--reporter blob) into one report",
  builder: (y: Argv) =>
    y
      .positional("blobs", { type: "string", array: true, describe: "Blob files, or directories of *.json blobs" })
      .option("reporter", { type: "string", default: "text", describe: MERGE_REPORTERS.join(" | ") })
      .option("json", { type: "boolean", default: false, describe: "Same as --reporter json" })
      .example("$0 merge-reports blobs/ --reporter html > report.html", "One page for the whole CI matrix")
      .example("$0 merge-reports blob-1.json blob-2.json blob-3.json --reporter json", "The JSON report the unsharded run gives"),
  async run(args, ctx: CliContext) {
    const reporter = selectReporter(mergeReporterName(args));
    const files = await blobFiles(stringsFlag(args, "blobs"), ctx.cwd);
    const blobs: Array<{ file: string; blob: ShardBlob }> = [];
    for (const file of files) {
      const shown = path.relative(ctx.cwd, file) || file;
      const text = await readFile(file, "utf8").catch((thrown: NodeJS.ErrnoException) => {
        throw new InputError(`${shown}: cannot read (${thrown.code ?? thrown.message})`);
      });
      blobs.push({ file: shown, blob: parseBlob(text, shown) });
    }
    const run = mergeBlobs(blobs);
    const workspace = ctx.env?.GITHUB_WORKSPACE;
    ctx.out(reporter(run, { color: ctx.color, cwd: ctx.cwd, ...(ctx.columns !== undefined ? { width: ctx.columns } : {}), ...(workspace ? { workspace } : {}) }));
    return checkExitCode(run);
  },
};
