/**
 * `parity allow` (docs/design/00-product.md, CLI): appends one validated allowlist entry to an allowlist file
 * (`allowlists/<provider>.json` by default), atomically (temp file + rename). Refused under
 * `CI=true`, where nothing may write. The entry must then mask something in the next
 * `parity check`, or it fails that cell as stale (spec 10 §6.4). The entry is validated by the
 * loader's own schema (`AllowlistEntrySchema`), so it accepts exactly what `loadAllowlists`
 * accepts: field paths, event selectors (`/*[type=T]`, `/*[type=T][kind=K]`) and an optional
 * `recordings` root (allowlists/README.md). A provider or cell nothing is recorded for under the
 * recordings root in effect is refused (exit 2), before anything is written.
 */
import path from "node:path";
import type { Argv } from "yargs";
import { plainEntry, readAllowlistFile } from "../compare/allowlist.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { hintPath } from "../report/suggest.js";
import { migrateEntries } from "./allow-migrate.js";
import { ALLOW_DEFAULT_ROOT, appendAllowlistEntry } from "./allow-entry.js";
import { allowJson } from "./allow-json.js";
import type { ParityCommand } from "./command.js";
import type { CliContext } from "./context.js";
import { booleanFlag, FLAGS } from "./options.js";

/** Flags `allow` needs unless it migrates a file. */
const ENTRY_FLAGS = ["provider", "cell", "path", "pr", "reason"] as const;

/**
 * `--migrate <file>`: rewrites the file's positional entries as stable selectors (allow-migrate.ts),
 * atomically, and says per entry what it became or why it stayed. Exit 0 even when some stay
 * positional (they still load). `--recordings <root>`: where an entry whose own root is not there
 * is found by its `recordingId`.
 */
async function migrateFile(fileArg: string, ctx: CliContext, json: boolean, recordings: string | undefined): Promise<number> {
  const file = path.resolve(ctx.cwd, fileArg);
  // A file outside the project by its absolute path (the tour's "$T/acp-cursor.json" was `../../../tmp/…`), as --json names it.
  const shown = hintPath(file, ctx.cwd);
  const entries = await readAllowlistFile(file, ctx.cwd);
  // An entry whose root is not here (a clone not beside shared/) is found by its recordingId under
  // --recordings, else the project's own recordings.
  const searchRoots = [...(recordings !== undefined ? [path.resolve(ctx.cwd, recordings)] : []), path.resolve(ctx.cwd, ALLOW_DEFAULT_ROOT)];
  const results = await migrateEntries(entries, ctx.cwd, ALLOW_DEFAULT_ROOT, searchRoots);
  const plain = entries.map(plainEntry);
  let changed = 0;
  const say = (text: string) => void (json ? undefined : ctx.out(text));
  for (const { index, from, result } of results) {
    if ("path" in result) {
      plain[index] = { ...plain[index]!, path: result.path };
      changed++;
      say(`entry ${index}: ${from} → ${result.path}\n`);
    } else {
      say(`entry ${index}: ${from} kept: ${"kept" in result ? result.kept : result.problem}\n`);
    }
  }
  if (changed > 0) await writeFileAtomic(file, `${JSON.stringify(plain, null, 2)}\n`);
  if (json) {
    const entries = results.map(({ index, from, result }) => ({
      index,
      from,
      to: "path" in result ? result.path : null,
      kept: "path" in result ? null : "kept" in result ? result.kept : result.problem,
    }));
    const where = hintPath(file, ctx.cwd);
    ctx.out(allowJson({ action: "migrate", written: changed > 0 ? [where] : [], file: where, changed, entries }));
    return EXIT_CODES.ok;
  }
  const positional = results.length;
  ctx.out(
    positional === 0
      ? `${shown}: no positional entries, nothing to migrate\n`
      : `${shown}: ${changed} of ${positional} positional entries now use stable selectors${changed < positional ? "; the rest still load as they are" : ""}\n`,
  );
  return EXIT_CODES.ok;
}

/** The `allow` command. */
export const allowCommand: ParityCommand = {
  // --prune runs the gate, which replays: it needs the run's temp directory.
  tempDir: true,
  command: "allow",
  describe: "Append a validated allowlist entry (an intended lane difference tied to a PR)",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", describe: 'Provider id, or "*" for all (required unless --migrate)' })
      .option("cell", { type: "string", describe: 'Cell name, or "*" for all (required unless --migrate)' })
      .option("path", {
        type: "string",
        describe:
          "Selector of the field (/*[turn=1][item=commandExecution:1][type=item/completed]/item/exitCode, as check and diff print it), an event selector /*[type=T][kind=K] for whole added/removed events, or a JSON pointer (a position is turned into a selector when the cell can be replayed)",
      })
      .option("migrate", {
        type: "string",
        describe: "Rewrite this allowlist file's positional entries (/86/item/exitCode) as stable selectors, checked on each cell's lanes",
      })
      .option("recordings", {
        type: "string",
        describe:
          "Limit the entry to cells recorded under this recordings root (relative to where `parity check` runs, e.g. ../shared/recordings); with --migrate, where an entry whose own root is not there is found by its recordingId (e.g. /abs/shared/recordings from a clone not beside it)",
      })
      .option("pr", { type: "string", describe: 'The PR that made the difference, "#N" (required unless --migrate)' })
      .option("reason", { type: "string", describe: "Why the difference is intended (required unless --migrate)" })
      .option("layer", {
        type: "string",
        default: "events",
        choices: ["events", "grammar"],
        describe: "Lane layer the path points into: events, or grammar for a host-grammar drop (--path /grammarDrops/<rule>:<eventType>)",
      })
      .option("file", { type: "string", describe: "Allowlist file to append to (default allowlists/<provider>.json)" })
      .option("prune", {
        type: "boolean",
        describe: "Run the gate over the selected cells (--recordings, --provider, --cell, --timeout) and remove every entry that masks no difference in any cell it applies to, printing each",
      })
      .option("timeout", FLAGS.timeout)
      .option("json", {
        type: "boolean",
        default: false,
        describe:
          'Print one object instead of text: {action: "add"|"migrate"|"prune", written: [files written]} and, for add, file, index, entry, note; for --migrate, file, changed, entries [{index, from, to, kept}]; for --prune, pruned [{file, index, entry}], incomplete [{provider, cell, status}]',
      })
      .example("$0 allow --provider acp-cursor --cell turn-tools --path /86/item/exitCode --pr '#42' --reason 'exit code now reported'", "accept one changed field")
      .example("$0 allow --provider '*' --cell '*' --path '/**/durationMs' --pr '#43' --reason 'timing' --file allowlists/timing.json", "everywhere")
      .example(
        "$0 allow --provider acp-cursor --cell '*' --recordings ../shared/recordings --path '/*[type=thread/extensionState/updated]' --pr '#44' --reason 'new state events'",
        "accept a whole added event type, only for the recordings under ../shared/recordings",
      )
      .example("$0 allow --migrate allowlists/acp-cursor.json", "turn a file's positional entries into stable selectors")
      .example("$0 allow --migrate allowlists/acp-cursor.json --recordings /srv/shared/recordings", "the same from a clone not beside shared/: each entry's recording found there by its recordingId")
      .example("$0 allow --prune --recordings ../shared/recordings --provider acp-cursor", "remove the entries that mask no difference any more")
      .example("$0 allow --provider echo --cell turn --path '/*/delta' --pr '#5' --reason 'chunks' --json", "the entry as written, as JSON"),
  async run(args, ctx) {
    if (ctx.ci) {
      throw new UsageError("CI=true: `parity allow` writes allowlist files; run it locally and commit the file");
    }
    if (args.prune === true) {
      const extra = ["path", "pr", "reason", "migrate", "file"].find((flag) => args[flag] !== undefined);
      if (extra !== undefined) throw new UsageError(`--prune removes stale entries: drop --${extra}`);
      const { pruneAllowlists } = await import("./allow-prune.js");
      return pruneAllowlists(args, ctx, booleanFlag(args, "json"));
    }
    if (typeof args.migrate === "string") {
      const extra = ENTRY_FLAGS.find((flag) => args[flag] !== undefined);
      if (extra !== undefined) throw new UsageError(`--migrate rewrites a whole file: drop --${extra}`);
      return migrateFile(args.migrate, ctx, booleanFlag(args, "json"), typeof args.recordings === "string" ? args.recordings : undefined);
    }
    const missing = ENTRY_FLAGS.filter((flag) => args[flag] === undefined);
    if (missing.length > 0) throw new UsageError(`missing ${missing.map((flag) => `--${flag}`).join(", ")} (or --migrate <file>, or --prune): see parity allow --help`);
    const { entry, file, index, note } = await appendAllowlistEntry(
      {
        provider: args.provider,
        cell: args.cell,
        ...(args.recordings !== undefined ? { recordings: args.recordings } : {}),
        layer: args.layer,
        path: args.path,
        pr: args.pr,
        reason: args.reason,
      },
      { cwd: ctx.cwd, ...(typeof args.file === "string" ? { file: args.file } : {}) },
    );
    if (booleanFlag(args, "json")) {
      ctx.out(allowJson({ action: "add", written: [hintPath(file, ctx.cwd)], file: hintPath(file, ctx.cwd), index, entry, note: note ?? null }));
      return EXIT_CODES.ok;
    }
    if (note !== undefined) ctx.out(`${note}\n`);
    const scope = entry.recordings !== undefined ? ` in ${entry.recordings}` : "";
    ctx.out(`added entry ${index} to ${hintPath(file, ctx.cwd)}: ${entry.provider}/${entry.cell}${scope} ${entry.path} (${entry.pr})\n`);
    ctx.out("It must mask something in the next `parity check`, or that cell fails with a stale entry.\n");
    return EXIT_CODES.ok;
  },
};
