import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { formatConformanceText } from "../conformance/format.js";
import { DEFAULT_CONFORMANCE_TIMEOUT_MS, runBridgeConformance } from "../conformance/run.js";
import { checkLaunchSpecCommand } from "../conformance/launch-command.js";
import { ConformanceSessionSchema, type ConformanceSessionInput } from "../conformance/session.js";
import type { BridgeTargetOptions } from "../conformance/target.js";
import { knownBridgeNames, resolveBridgeTarget } from "../families/index.js";
import { acpLaunchSpecSchema } from "../../stack/acp/agents/launch-spec.js";
import { EXIT_CODES, InputError, UsageError } from "../errors.js";
import type { ParityCommand } from "./command.js";
import { checkBridgeModuleFlag, resolveWaitFlag } from "./flag-checks.js";

/** Reads a JSON file for a flag; bad input is an InputError naming the file (`shown`, default `file`). */
function readJsonFile(file: string, shown: string = file): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(`cannot read (${code})`, { file: shown });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { file: shown });
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
 * Reads and validates a `--launch-spec` file with `acpLaunchSpecSchema` (spec 30 §3.1) before
 * any bridge starts, and that its `command` resolves (on PATH, or a path relative to the agent's
 * working directory `cwd`); returns the JSON as written (the bridge parses it itself).
 *
 * @throws InputError `<file>: <field>: <problem>` (every issue, on one line) for an invalid spec,
 *   `<file>: command "<command>" …` for a command that cannot be spawned.
 */
async function readLaunchSpecFile(file: string, shown: string, cwd: string): Promise<unknown> {
  const value = readJsonFile(file, shown);
  const parsed = acpLaunchSpecSchema.safeParse(value);
  if (parsed.success) {
    await checkLaunchSpecCommand(parsed.data, shown, cwd, process.env);
    return value;
  }
  const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.map(String).join(".") : "(root)"}: ${i.message}`);
  throw new InputError(`${problems.join("; ")} (an ACP launch spec; the format is in parity conform --help)`, { file: shown });
}

/** The `--launch-spec` format, for `--help`. */
const LAUNCH_SPEC_HELP = [
  "--launch-spec <file>: one ACP launch spec (spec 30 §3.1) as JSON, checked before anything starts (exit 2 on a bad one), e.g.",
  '  {"displayName": "opencode", "command": "opencode", "args": ["acp"], "env": {}}',
  "Required: displayName (text), command (a name on PATH, or a path relative to the working directory), args (strings), env (name → value, may be {}). " +
    "Optional: cwd, modelCli, reasoningCli, nativeReasoning, nativeSkillRoots, permissionCli. Any other key is refused. " +
    "It is sent as options.providerOptions.acpLaunchSpec.",
  "Without --launch-spec, --bridge acp runs against this package's fixture ACP agent with all 14 rules. With one and no --session, the fixture has only " +
    "the ordinary prompt, so turn/settles-without-activity and stop/interrupt-settles-before-answer are listed as skipped (not run; they do not fail " +
    "the report): give zeroWorkPromptInput and holdPromptInput in a --session file to run them.",
].join("\n");

/**
 * `parity conform`: runs the conformance scenarios (spec 10 §7, plus this product's two
 * rules) against a bridge spawned through the bootstrap. Prints one line per rule and a
 * summary (or the report as JSON with `--json`), then which agent an agent-driving bridge ran
 * against; exit 0 when every rule passes, 1 otherwise, 2 on a bad flag or file (a
 * `--launch-spec` is validated with `acpLaunchSpecSchema` first).
 */
export const conformCommand: ParityCommand = {
  tempDir: true,
  command: "conform",
  describe: "Run the conformance scenarios against a bridge module",
  builder: (y: Argv) =>
    y
      .option("bridge", {
        type: "string",
        demandOption: true,
        describe: `Bridge to check: ${knownBridgeNames().join(", ")}, or a path to a module exporting experimental_providerBridge`,
      })
      .option("provider-id", { type: "string", describe: "Provider id the bridge runs as (default: the bridge name or module file name)" })
      .option("launch-spec", { type: "string", describe: "JSON file with an ACP launch spec (format below), sent as options.providerOptions.acpLaunchSpec" })
      .option("session", {
        type: "string",
        describe: "JSON file with the conformance fixture {cwd, input, zeroWorkPromptInput?, holdPromptInput?, options?}",
      })
      .option("timeout", {
        type: "string",
        describe: `Longest wait for any one answer or event, in ms, a whole number ≥ 1 (default ${DEFAULT_CONFORMANCE_TIMEOUT_MS}; only a misbehaving bridge waits this long)`,
      })
      .option("timeout-ms", { type: "string", hidden: true, describe: "Old spelling of --timeout" })
      .option("json", { type: "boolean", default: false, describe: "Print the report as JSON" })
      .example("$0 conform --bridge echo", "Check the shipped echo bridge")
      .example("$0 conform --bridge ./dist/my-bridge.js --provider-id mine --session fixture.json", "Check your own bridge module")
      .example("$0 conform --bridge acp", "Check the ACP bridge over the fixture ACP agent (the default agent)")
      .example("$0 conform --bridge acp --launch-spec opencode.json --json", "Check the ACP bridge over an agent of yours")
      .epilogue(LAUNCH_SPEC_HELP),
  async run(args, ctx) {
    const bridge = String(args.bridge);
    const timeoutMs = resolveWaitFlag(args, DEFAULT_CONFORMANCE_TIMEOUT_MS);
    const options: BridgeTargetOptions = { cwd: ctx.cwd };
    if (typeof args["provider-id"] === "string") options.providerId = args["provider-id"];
    if (typeof args.session === "string") options.session = readSessionFile(path.resolve(ctx.cwd, args.session));
    if (typeof args["launch-spec"] === "string") {
      // The agent runs in the session's cwd when the spec sets none (conformance session, spec 10 §7).
      const agentCwd = path.resolve(ctx.cwd, options.session?.cwd ?? ".");
      options.launchSpec = await readLaunchSpecFile(path.resolve(ctx.cwd, args["launch-spec"]), args["launch-spec"], agentCwd);
    }
    if (ctx.verbose) options.onStderr = (text) => ctx.err(text);

    const target = resolveBridgeTarget(bridge, options);
    const modulePath = path.resolve(ctx.cwd, target.modulePath);
    if (!existsSync(modulePath)) {
      const known = knownBridgeNames().includes(bridge);
      throw new UsageError(
        known
          ? `--bridge ${bridge}: ${modulePath} is missing; build the package first (npm run build)`
          : `--bridge ${bridge}: no such module, and not a known bridge name (${knownBridgeNames().join(", ")})`,
      );
    }
    // A module path (not a known name) must load and export a bridge, as `check --module` requires.
    if (!knownBridgeNames().includes(bridge)) await checkBridgeModuleFlag(bridge, ctx.cwd, "bridge");

    const report = await runBridgeConformance({ transport: target.transport, session: target.session, timeoutMs });
    if (args.json) {
      ctx.out(`${JSON.stringify(target.agent !== undefined ? { ...report, agent: target.agent } : report, null, 2)}\n`);
    } else {
      ctx.out(formatConformanceText(report, { color: ctx.color }));
      // After the summary, so the rule lines and the summary keep their places.
      if (target.agent !== undefined) ctx.out(`agent: ${target.agent}\n`);
    }
    return report.passed ? EXIT_CODES.ok : EXIT_CODES.parityFailure;
  },
};
