import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { formatConformanceText } from "../conformance/format.js";
import { KNOWN_BRIDGES, resolveBridgeTarget, type BridgeTargetOptions } from "../conformance/known-bridges.js";
import { DEFAULT_CONFORMANCE_TIMEOUT_MS, runBridgeConformance } from "../conformance/run.js";
import { ConformanceSessionSchema, type ConformanceSessionInput } from "../conformance/session.js";
import { EXIT_CODES, InputError, UsageError } from "../errors.js";
import type { ParityCommand } from "./command.js";

/** Reads a JSON file for a flag; bad input is an InputError naming the file. */
function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(`cannot read (${code})`, { file });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { file });
  }
}

/** Reads and validates a `--session` fixture file (see `ConformanceSessionSchema`). */
function readSessionFile(file: string): ConformanceSessionInput {
  const parsed = ConformanceSessionSchema.safeParse(readJsonFile(file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(session)";
    throw new InputError(`invalid conformance session: field \`${field}\`: ${issue?.message ?? "invalid"}`, { file });
  }
  return parsed.data;
}

/**
 * `parity conform`: runs the conformance scenarios (spec 10 §7, plus this product's two
 * rules) against a bridge spawned through the bootstrap. Prints one line per rule and a
 * summary (or the report as JSON with `--json`); exit 0 when every rule passes, 1 otherwise,
 * 2 on a bad flag or file.
 */
export const conformCommand: ParityCommand = {
  command: "conform",
  describe: "Run the conformance scenarios against a bridge module",
  builder: (y: Argv) =>
    y
      .option("bridge", {
        type: "string",
        demandOption: true,
        describe: `Bridge to check: ${Object.keys(KNOWN_BRIDGES).join(", ")}, or a path to a module exporting experimental_providerBridge`,
      })
      .option("provider-id", { type: "string", describe: "Provider id the bridge runs as (default: the bridge name or module file name)" })
      .option("launch-spec", { type: "string", describe: "JSON file with an ACP launch spec, sent as options.providerOptions.acpLaunchSpec" })
      .option("session", {
        type: "string",
        describe: "JSON file with the conformance fixture {cwd, input, zeroWorkPromptInput?, holdPromptInput?, options?}",
      })
      .option("timeout-ms", {
        type: "number",
        default: DEFAULT_CONFORMANCE_TIMEOUT_MS,
        describe: "Longest wait for any one answer or event, in ms (only a misbehaving bridge waits this long)",
      })
      .option("json", { type: "boolean", default: false, describe: "Print the report as JSON" })
      .example("$0 conform --bridge echo", "Check the shipped echo bridge")
      .example("$0 conform --bridge ./dist/my-bridge.js --provider-id mine --session fixture.json", "Check your own bridge module")
      .example("$0 conform --bridge acp --launch-spec opencode.json --json", "Check the ACP bridge over an agent"),
  async run(args, ctx) {
    const bridge = String(args.bridge);
    const timeoutMs = Number(args["timeout-ms"]);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new UsageError(`--timeout-ms must be a positive number of ms, got ${String(args["timeout-ms"])}`);
    }
    const options: BridgeTargetOptions = { cwd: ctx.cwd };
    if (typeof args["provider-id"] === "string") options.providerId = args["provider-id"];
    if (typeof args["launch-spec"] === "string") options.launchSpec = readJsonFile(path.resolve(ctx.cwd, args["launch-spec"]));
    if (typeof args.session === "string") options.session = readSessionFile(path.resolve(ctx.cwd, args.session));
    if (ctx.verbose) options.onStderr = (text) => ctx.err(text);

    const target = resolveBridgeTarget(bridge, options);
    const modulePath = path.resolve(ctx.cwd, target.modulePath);
    if (!existsSync(modulePath)) {
      const known = Object.prototype.hasOwnProperty.call(KNOWN_BRIDGES, bridge);
      throw new UsageError(
        known
          ? `--bridge ${bridge}: ${modulePath} is missing; build the package first (npm run build)`
          : `--bridge ${bridge}: no such module, and not a known bridge name (${Object.keys(KNOWN_BRIDGES).join(", ")})`,
      );
    }

    const report = await runBridgeConformance({ transport: target.transport, session: target.session, timeoutMs });
    ctx.out(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatConformanceText(report, { color: ctx.color }));
    return report.passed ? EXIT_CODES.ok : EXIT_CODES.parityFailure;
  },
};
