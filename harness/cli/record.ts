/**
 * `parity record` (00-product.md CLI and flow 1): run one cell's runtime script live against a
 * real agent and package a new recording plus its oracle. Never overwrites (exit 2); a
 * secret that survives redaction → exit 3 with every `file:line`, nothing written. Refused
 * under `CI=true` unless `--out` (and the oracle directory) are outside this package.
 */
import path from "node:path";
import type { Argv } from "yargs";
import { EXIT_CODES, UsageError } from "../errors.js";
import { compileUserPatterns } from "../recording/redact.js";
import { recordCell, RECORD_STEP_TIMEOUT_MS } from "../record/record-cell.js";
import { packageRoot, RECORD_PROVIDERS } from "../record/providers.js";
import type { ParityCommand } from "./command.js";

const inside = (dir: string, root: string) => dir === root || dir.startsWith(`${root}${path.sep}`);

/** The `record` command. */
export const recordCommand: ParityCommand = {
  command: "record",
  describe: "Record a cell live against a real agent: a new recording plus its oracle (never overwrites)",
  builder: (y: Argv) =>
    y
      .option("provider", { type: "string", demandOption: true, describe: `Provider id (${Object.keys(RECORD_PROVIDERS).join(", ")})` })
      .option("cell", { type: "string", demandOption: true, describe: "Cell name (a directory under --cells)" })
      .option("redact", { type: "string", array: true, default: [], describe: "Extra regular expression to redact (repeatable)" })
      .option("out", { type: "string", default: "recordings", describe: "Recordings root; writes <out>/<provider>/<cell>/" })
      .option("lanes", { type: "string", describe: "Oracles root; default: the lanes/ directory beside --out" })
      .option("cells", { type: "string", default: "cells", describe: "Cell definitions root" })
      .option("custom-agents", { type: "string", describe: "A customAgents JSON file (spec 30 §2.2); --provider may name one of its agents (acp-<slug>)" })
      .option("timeout", { type: "number", default: RECORD_STEP_TIMEOUT_MS, describe: "Longest wait for one step's answer or event, in ms" })
      .example("$0 record --provider acp-opencode --cell turn-tools", "record opencode doing real tool work against the loopback model")
      .example("$0 record --provider acp-opencode --cell approval-allow --redact 'acct-[0-9]+'", "with an extra redaction pattern")
      .example("$0 record --provider acp-mine --cell turn-tools --custom-agents agents.json", "record your own ACP agent (an entry {\"id\": \"mine\", \"command\": …} of agents.json)")
      .example("CI=true $0 record --provider echo --cell zero-work --out \"$RUNNER_TEMP/recordings\"", "in CI, only outside the repository"),
  async run(args, ctx) {
    const out = path.resolve(ctx.cwd, String(args.out));
    const lanes = path.resolve(ctx.cwd, typeof args.lanes === "string" ? args.lanes : path.join(path.dirname(out), "lanes"));
    if (ctx.ci) {
      const repo = packageRoot();
      if (inside(out, repo) || inside(lanes, repo)) {
        throw new UsageError(`CI=true: parity record writes recordings and oracles; point --out (and --lanes) outside ${repo}, e.g. a temp dir`);
      }
    }
    const timeout = Number(args.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout ${String(args.timeout)}: expected a positive number of ms`);
    const redact = compileUserPatterns(((args.redact as unknown[]) ?? []).map(String));

    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once("SIGINT", onSigint);
    process.once("SIGTERM", onSigint);
    try {
      const result = await recordCell({
        providerId: String(args.provider),
        cell: String(args.cell),
        cellsRoot: path.resolve(ctx.cwd, String(args.cells)),
        outRoot: out,
        lanesRoot: lanes,
        redact,
        timeoutMs: timeout,
        ...(typeof args.customAgents === "string" ? { customAgentsFile: path.resolve(ctx.cwd, args.customAgents) } : {}),
        now: () => Date.now(),
        signal: controller.signal,
        ...(ctx.verbose ? { log: ctx.err, onStderr: ctx.err } : {}),
      });
      const rel = (p: string) => path.relative(ctx.cwd, p) || ".";
      ctx.out(`recorded ${result.manifest.provider}/${result.manifest.cell}: ${Object.entries(result.manifest.lines).map(([d, n]) => `${d} ${n}`).join(", ")}\n`);
      ctx.out(`  ${rel(result.dir)} (${result.manifest.cliVersion}, ${result.manifest.bridgeRuns} bridge run(s))\n`);
      ctx.out(`  ${rel(result.oracleFile)}: ${result.events} events, ${result.unhandled} unhandled, ${result.grammarDrops} grammar drops\n`);
      return EXIT_CODES.ok;
    } finally {
      process.removeListener("SIGINT", onSigint);
      process.removeListener("SIGTERM", onSigint);
    }
  },
};
