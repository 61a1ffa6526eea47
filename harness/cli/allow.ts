/**
 * `parity allow` (00-product.md, CLI): appends one validated allowlist entry to an allowlist file
 * (`allowlists/<provider>.json` by default), atomically (temp file + rename). Refused under
 * `CI=true`, where nothing may write. The entry must then mask something in the next
 * `parity check`, or it fails that cell as stale (spec 10 §6.4). The entry is validated by the
 * loader's own schema (`AllowlistEntrySchema`), so it accepts exactly what `loadAllowlists`
 * accepts: field paths, event selectors (`/*[type=T]`, `/*[type=T][kind=K]`) and an optional
 * `recordings` root (allowlists/README.md). A provider or cell nothing is recorded for under the
 * recordings root in effect is refused (exit 2), before anything is written.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { AllowlistEntrySchema, plainEntry, readAllowlistFile } from "../compare/allowlist.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { listRecordings } from "../recording/reader.js";
import { hintPath } from "../report/suggest.js";
import type { ParityCommand } from "./command.js";

/** The default allowlist file of a provider: `allowlists/<provider>.json`, `allowlists/all.json` for `*`. */
export function defaultAllowlistFile(provider: string): string {
  return path.join("allowlists", `${provider === "*" ? "all" : provider}.json`);
}

/** Root `allow` checks `--provider`/`--cell` against when no `--recordings` is given. */
export const ALLOW_DEFAULT_ROOT = "recordings";

/**
 * Refuses an entry for a (provider, cell) that nothing recorded under the roots in effect
 * (`--recordings`, else `recordings/`, resolved against `cwd`): such an entry could only ever
 * be stale (spec 10 §6.4). `*` matches any provider or cell. When no root in effect exists as
 * a directory there is nothing to check against, and the entry is accepted.
 *
 * @throws UsageError `unknown --provider <p>: …` or `unknown --cell <c>: …`, listing what is recorded.
 */
export async function checkRecordedCell(provider: string, cell: string, recordings: string | undefined, cwd: string): Promise<void> {
  const root = path.resolve(cwd, recordings ?? ALLOW_DEFAULT_ROOT);
  if (!existsSync(root) || !statSync(root).isDirectory()) return;
  const shown = recordings ?? ALLOW_DEFAULT_ROOT;
  const all = await listRecordings([root]);
  const ofProvider = all.filter((l) => provider === "*" || l.provider === provider);
  if (ofProvider.length === 0) {
    const providers = [...new Set(all.map((l) => l.provider))];
    throw new UsageError(
      `unknown --provider ${provider}: nothing of it is recorded under ${shown} (recorded providers: ${providers.join(", ") || "none"})`,
    );
  }
  if (cell !== "*" && !ofProvider.some((l) => l.cell === cell)) {
    const cells = [...new Set(ofProvider.map((l) => l.cell))].sort();
    const of = provider === "*" ? "any provider" : provider;
    throw new UsageError(`unknown --cell ${cell}: no recording of it for ${of} under ${shown} (recorded cells: ${cells.join(", ")})`);
  }
}

/**
 * Validates `raw` as an allowlist entry (the loader's own schema), checks its provider/cell are
 * recorded ({@link checkRecordedCell}) and that the file holds no entry for the same path, and
 * appends it to `file` (default `allowlists/<provider>.json`, relative to `cwd`) atomically.
 *
 * @returns the entry as written, the absolute file and the entry's index in it.
 * @throws UsageError naming the field (as `--<field>`), an unknown provider/cell, or a duplicate.
 */
export async function appendAllowlistEntry(
  raw: Record<string, unknown>,
  where: { cwd: string; file?: string },
): Promise<{ entry: ReturnType<typeof plainEntry>; file: string; index: number }> {
  const parsed = AllowlistEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--${String(issue?.path[0] ?? "entry")}: ${issue?.message ?? "invalid entry"}`);
  }
  const entry = plainEntry(parsed.data);
  await checkRecordedCell(entry.provider, entry.cell, entry.recordings, where.cwd);
  const file = path.resolve(where.cwd, where.file ?? defaultAllowlistFile(entry.provider));
  const existing = existsSync(file) ? await readAllowlistFile(file, where.cwd) : [];
  // Entries for different recordings roots are different entries (the same cell name, another recording).
  const duplicate = existing.find(
    (e) => e.provider === entry.provider && e.cell === entry.cell && e.recordings === entry.recordings && e.layer === entry.layer && e.path === entry.path,
  );
  if (duplicate) {
    throw new UsageError(`${path.relative(where.cwd, file)} entry ${duplicate.source.index} already allows ${entry.path} for ${entry.provider}/${entry.cell} (${duplicate.pr})`);
  }
  const entries = [...existing.map(plainEntry), entry];
  await writeFileAtomic(file, `${JSON.stringify(entries, null, 2)}\n`);
  return { entry, file, index: entries.length - 1 };
}

/** The `allow` command. */
export const allowCommand: ParityCommand = {
  command: "allow",
  describe: "Append a validated allowlist entry (an intended lane difference tied to a PR)",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: 'Provider id, or "*" for all' })
      .option("cell", { type: "string", demandOption: true, describe: 'Cell name, or "*" for all' })
      .option("path", {
        type: "string",
        demandOption: true,
        describe: "JSON pointer into the normalized lane (* and ** allowed; must end with a field name), or an event selector /*[type=T] or /*[type=T][kind=K] for whole added/removed events",
      })
      .option("recordings", {
        type: "string",
        describe: "Limit the entry to cells recorded under this recordings root (relative to where `parity check` runs, e.g. ../shared/recordings)",
      })
      .option("pr", { type: "string", demandOption: true, describe: 'The PR that made the difference, "#N"' })
      .option("reason", { type: "string", demandOption: true, describe: "Why the difference is intended" })
      .option("layer", { type: "string", default: "events", choices: ["events"], describe: "Lane layer the path points into" })
      .option("file", { type: "string", describe: "Allowlist file to append to (default allowlists/<provider>.json)" })
      .example(
        "$0 allow --provider acp-cursor --cell turn-tools --path /86/item/exitCode --pr '#42' --reason 'exit code now reported'",
        "accept one changed field",
      )
      .example("$0 allow --provider '*' --cell '*' --path '/**/durationMs' --pr '#43' --reason 'timing' --file allowlists/timing.json", "everywhere")
      .example(
        "$0 allow --provider acp-cursor --cell '*' --recordings ../shared/recordings --path '/*[type=thread/extensionState/updated]' --pr '#44' --reason 'new state events'",
        "accept a whole added event type, only for the recordings under ../shared/recordings",
      ),
  async run(args, ctx) {
    if (ctx.ci) {
      throw new UsageError("CI=true: `parity allow` writes allowlist files; run it locally and commit the file");
    }
    const { entry, file, index } = await appendAllowlistEntry(
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
    const scope = entry.recordings !== undefined ? ` in ${entry.recordings}` : "";
    ctx.out(`added entry ${index} to ${hintPath(file, ctx.cwd)}: ${entry.provider}/${entry.cell}${scope} ${entry.path} (${entry.pr})\n`);
    ctx.out("It must mask something in the next `parity check`, or that cell fails with a stale entry.\n");
    return EXIT_CODES.ok;
  },
};
