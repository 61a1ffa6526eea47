/**
 * `parity import <record-dir>`: the threads a running bridge recorded in record mode
 * (`BB_PROVIDER_BRIDGE_RECORD_DIR`) become gated cells — recordings redacted as `record` redacts
 * them, oracles pending for review (harness/record/import-record-dir.ts).
 */
import path from "node:path";
import type { Argv } from "yargs";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { packageRoot } from "../families/record-provider.js";
import { importRecordDir } from "../record/import-record-dir.js";
import { compileUserPatterns } from "../recording/redact.js";
import type { ParityCommand } from "./command.js";
import { FLAGS, booleanFlag, stringFlag, stringsFlag } from "./options.js";
import { requireDirectoryFlag, requireFreeSpace } from "./path-checks.js";

const inside = (file: string, dir: string) => {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** The `import` command. */
export const importCommand: ParityCommand = {
  command: "import <dir>",
  describe: "Turn a bridge's record-mode folder (BB_PROVIDER_BRIDGE_RECORD_DIR) into recordings with pending oracles",
  builder: (y: Argv) =>
    y
      .positional("dir", { type: "string", describe: "The record-mode folder: <dir>/<provider>/<thread>/<direction>.ndjson" })
      .option("provider", { type: "string", describe: "Only this provider's folder" })
      .option("thread", { type: "string", describe: "Only this thread (its id, or its folder name)" })
      .option("cell", { type: "string", describe: "The cell name, for one thread (default: import-<thread folder>)" })
      .option("cli-version", { type: "string", describe: "The agent CLI's version, for the manifest (default: not known)" })
      .option("redact", { ...FLAGS.redact, default: [] })
      .option("out", { type: "string", default: RECORDINGS_ROOT, describe: "Recordings root; writes <out>/<provider>/<cell>/" })
      .option("lanes", { type: "string", describe: `Oracles root; writes <lanes>/<provider>/<cell>.json.pending (default ${ORACLES_DIR}, or <out>/${ORACLES_DIR} with --out)` })
      .option("json", { type: "boolean", default: false, describe: "Print what was imported as JSON" })
      .example("$0 import /var/tmp/bridge-record", "every thread the bridge recorded there, as recordings/<provider>/import-<thread>/")
      .example("$0 import rec --provider echo --thread thr_42 --cell incident-42", "one thread, under a cell name of your own")
      .example("$0 review", "then accept the pending oracles (or: parity check -u)")
      .epilogue(
        "Nothing is overwritten: an existing recording or oracle is refused before anything is written. Secrets are redacted as " +
          "`parity record` redacts them (secret-named variables of this environment, tokens, your --redact patterns, the home directory); " +
          "a secret that survives is exit 3 and nothing is written. Under CI=true nothing is written inside the project.",
      ),
  async run(args, ctx) {
    const dir = path.resolve(ctx.cwd, String(args.dir));
    const outFlag = stringFlag(args, "out") ?? RECORDINGS_ROOT;
    const out = path.resolve(ctx.cwd, outFlag);
    const lanesFlag = stringFlag(args, "lanes");
    const lanesDir = lanesFlag !== undefined ? path.resolve(ctx.cwd, lanesFlag) : out === path.resolve(ctx.cwd, RECORDINGS_ROOT) ? path.resolve(ctx.cwd, ORACLES_DIR) : path.join(out, ORACLES_DIR);
    requireDirectoryFlag("out", outFlag, out);
    if (lanesFlag !== undefined) requireDirectoryFlag("lanes", lanesFlag, lanesDir);
    requireFreeSpace(`--out ${outFlag}`, out);
    if (ctx.ci) {
      const repo = packageRoot();
      if (inside(out, repo) || inside(lanesDir, repo)) throw new UsageError(`CI=true: parity import writes recordings and oracles; point --out (and --lanes) outside ${repo}`);
    }
    const provider = stringFlag(args, "provider");
    const thread = stringFlag(args, "thread");
    const cell = stringFlag(args, "cell");
    const cliVersion = stringFlag(args, "cliVersion");
    const imported = await importRecordDir({
      dir,
      out,
      lanesDir,
      redact: compileUserPatterns(stringsFlag(args, "redact")),
      ...(provider !== undefined ? { provider } : {}),
      ...(thread !== undefined ? { thread } : {}),
      ...(cell !== undefined ? { cell } : {}),
      ...(cliVersion !== undefined ? { cliVersion } : {}),
    });
    const rel = (p: string) => (inside(p, ctx.cwd) ? path.relative(ctx.cwd, p) : p);
    if (booleanFlag(args, "json")) {
      ctx.out(
        `${JSON.stringify(
          imported.map((c) => ({ ...c, dir: rel(c.dir), pendingOracle: rel(c.pendingOracle) })),
          null,
          2,
        )}\n`,
      );
      return EXIT_CODES.ok;
    }
    for (const c of imported) {
      ctx.out(`imported ${c.provider}/${c.cell} (thread ${c.threadId}): ${rel(c.dir)}, pending oracle ${rel(c.pendingOracle)} (${c.events} events)\n`);
    }
    const defaults = out === path.resolve(ctx.cwd, RECORDINGS_ROOT) && lanesDir === path.resolve(ctx.cwd, ORACLES_DIR);
    const where = defaults ? "" : ` --recordings ${rel(out)} --lanes ${rel(lanesDir)}`;
    ctx.out(`${imported.length} ${imported.length === 1 ? "cell" : "cells"} imported; review the pending oracles: parity review${where} (or parity check -u${where}), then commit them\n`);
    return EXIT_CODES.ok;
  },
};
