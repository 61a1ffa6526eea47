import { tmpdir } from "node:os";
import path from "node:path";
import type { Argv } from "yargs";
import { REAL_WAIT_CLOCK, startWaitProgress } from "../progress/wait-progress.js";
import { findExecutable } from "../../stack/acp/maintenance/executable.js";
import { packageRoot } from "../families/record-provider.js";
import { BRIDGE_FAMILIES, commandProbeFamily, probeProviderIds, type BridgeFamily, type ProbeAnswer } from "../families/index.js";
import { resolveWaitFlag } from "./flag-checks.js";
import { planProviderProbe } from "./probe-provider.js";
import { detectNetworkIsolation, NETWORK_NETNS, netnsSpawn, type NetworkIsolation } from "../record/network.js";
import { EXIT_CODES, UsageError } from "../errors.js";
import { PROBE_TIMEOUT_MS } from "../defaults.js";
import type { ParityCommand } from "./command.js";

/**
 * Splits a `--command` value into words: whitespace separates, single or double quotes group,
 * a backslash escapes the next character outside single quotes. No shell is involved.
 * @throws UsageError on an unterminated quote or an empty command.
 */
export function splitCommandLine(value: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < value.length) current += value[++i];
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < value.length) {
      current += value[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`--command has an unterminated ${quote} quote`);
  if (inWord) words.push(current);
  if (words.length === 0) throw new UsageError('--command is empty; give the agent command and its args, e.g. --command "opencode acp"');
  return words;
}

/** What a probe command inherits; tests inject a controlled environment and family list. */
export interface ProbeCommandOptions {
  /** The environment a `--command` agent inherits (sanitized by the probe); default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Parent directory of the run's temp dirs; default the session temp dir, else `os.tmpdir()`. */
  tempDir?: string;
  /** The bridge families; default the shipped list. */
  families?: readonly BridgeFamily[];
}

/** How long `probe` waits for `initialize` by default, in ms (harness/defaults.ts says why). */
export { PROBE_TIMEOUT_MS };

/**
 * The command to spawn for `command`: a bare name is looked up, as `npx` does, first in
 * `node_modules/.bin` of each of `projects` (the working directory, then this package), then
 * on `pathValue`; the absolute path found is returned. A command with a `/`, or one found
 * nowhere, is returned as given (the spawn then names it).
 */
export async function projectCommand(command: string, projects: readonly string[], pathValue: string | undefined): Promise<string> {
  if (command.includes("/")) return command;
  const dirs = [...projects.map((p) => path.join(p, "node_modules", ".bin")), ...(pathValue ?? "").split(path.delimiter)];
  return (await findExecutable(command, dirs.filter((d) => d !== "").join(path.delimiter))) ?? command;
}

/**
 * `--network`: the namespace the agent runs in, or undefined for the host network (`host`, or
 * `auto` where namespaces are unavailable).
 * @throws UsageError for `netns` where namespaces are unavailable.
 */
function probeIsolation(network: unknown): Extract<NetworkIsolation, { kind: "netns" }> | undefined {
  if (network === "host") return undefined;
  const isolation = detectNetworkIsolation("auto");
  if (network === "netns" && isolation.kind !== "netns") throw new UsageError(`--network netns: ${isolation.why}`);
  return isolation.kind === "netns" ? isolation : undefined;
}

/**
 * `--command`: checks the command line and returns the probe to run, in which the first family
 * whose probe takes a bare command asks it (launched as given, no record profile).
 * @throws UsageError for an unterminated quote, an empty command, or `--network netns` without namespaces.
 */
async function planCommandProbe(
  commandLine: string,
  args: Record<string, unknown>,
  cwd: string,
  options: ProbeCommandOptions & { projects: string[]; timeoutMs: number; prompt?: string },
): Promise<() => Promise<ProbeAnswer>> {
  const [command, ...commandArgs] = splitCommandLine(commandLine) as [string, ...string[]];
  const family = commandProbeFamily(options.families ?? BRIDGE_FAMILIES);
  const pathValue = (options.env ?? process.env).PATH;
  const resolvedCommand = await projectCommand(command, options.projects, pathValue);
  const isolation = probeIsolation(args.network);
  // A command that cannot start gains nothing from a namespace and keeps its plain spawn error.
  const resolvable = (await findExecutable(resolvedCommand.includes("/") ? path.resolve(cwd, resolvedCommand) : resolvedCommand, pathValue)) !== null;
  const inNetns = isolation !== undefined && resolvable;
  return () =>
    family.probe.command!({
      label: [command, ...commandArgs].join(" "),
      command: resolvedCommand,
      args: commandArgs,
      cwd,
      timeoutMs: options.timeoutMs,
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(inNetns ? { spawn: netnsSpawn(isolation), network: NETWORK_NETNS } : {}),
      ...(options.env ? { inheritedEnv: options.env } : {}),
      ...(options.tempDir !== undefined ? { tempDir: options.tempDir } : {}),
    });
}

/**
 * Builds `parity probe`: asks an installed agent what it supports (spec 30 §3.2 for ACP) through
 * its bridge family's `probe` hook, and prints the capabilities as reported. `--provider` runs
 * the agent exactly as `parity record` would (probe-provider.ts: fresh HOME/XDG dirs, the
 * profile's config and env, the loopback model endpoint, a network namespace); `--command` any
 * agent command. Exit 0 when the agent answered, 1 when it did not, 2 on a bad flag.
 */
export function createProbeCommand(options: ProbeCommandOptions = {}): ParityCommand {
  const families = options.families ?? BRIDGE_FAMILIES;
  return {
    tempDir: true,
    command: "probe",
    describe: "Ask an installed agent what it supports (initialize, or one prompt with --prompt)",
    builder: (y: Argv) =>
      y
        .option("provider", { type: "string", describe: `An agent parity record knows (${probeProviderIds(families).join(", ")}), or a custom acp-<slug>` })
        .option("command", { type: "string", describe: 'The agent command and its args, e.g. "opencode acp" (no shell)' })
        .option("custom-agents", { type: "string", describe: "JSON file with the customAgents setting (an array of agent entries; an entry's record profile is honoured)" })
        .option("cwd", { type: "string", describe: "Working directory of a --command agent (default: the current directory); --provider runs in a fresh workspace, as record does" })
        .option("prompt", { type: "string", describe: "After initialize, open a session and send this one prompt (a --provider's model is the loopback endpoint)" })
        .option("timeout", { type: "string", describe: `How long to wait for each answer, in ms (a whole number ≥ 1; default ${PROBE_TIMEOUT_MS})` })
        .option("timeout-ms", { type: "string", hidden: true, describe: "Old spelling of --timeout" })
        .option("json", { type: "boolean", default: false, describe: "Print the probe result as JSON" })
        .option("network", {
          choices: ["auto", "netns", "host"],
          default: "auto",
          describe: "Run the agent in a fresh network namespace with only loopback (netns), on the host network (host), or netns where possible (auto)",
        })
        .example("$0 probe --provider acp-opencode", "Probe the shipped opencode agent as record runs it (fresh temp HOME, offline)")
        .example('$0 probe --provider acp-opencode --prompt "say hi" --network netns', "Go on to a session and one prompt, in a network namespace")
        .example('$0 probe --command "node ./my-agent.js --acp"', "Probe any ACP agent command")
        .example("$0 probe --provider acp-mine --custom-agents agents.json", "Probe a custom agent"),
    async run(args, ctx) {
      const provider = typeof args.provider === "string" ? args.provider : undefined;
      const commandLine = typeof args.command === "string" ? args.command : undefined;
      if ((provider === undefined) === (commandLine === undefined)) throw new UsageError('give exactly one of --provider <id> or --command "<cmd> <args…>"');
      if (provider !== undefined && typeof args.cwd === "string") throw new UsageError("--cwd: --provider runs the agent in a fresh workspace, as record does; --cwd is for --command");
      const timeoutMs = resolveWaitFlag(args, PROBE_TIMEOUT_MS);
      const prompt = typeof args.prompt === "string" ? args.prompt : undefined;
      const tempRoot = options.tempDir ?? tmpdir();
      // Every input is checked before the progress line starts: a mistyped provider or a bad
      // --command is one error line, with no "probing …" before it.
      const probe = await (provider !== undefined
        ? planProviderProbe({
            providerId: provider,
            ...(typeof args["custom-agents"] === "string" ? { customAgentsFile: path.resolve(ctx.cwd, args["custom-agents"]) } : {}),
            families,
            tempRoot,
            isolation: probeIsolation(args.network),
            timeoutMs,
            ...(prompt !== undefined ? { prompt } : {}),
          })
        : planCommandProbe(commandLine!, args, typeof args.cwd === "string" ? path.resolve(ctx.cwd, args.cwd) : ctx.cwd, {
            ...options,
            families,
            projects: [ctx.cwd, packageRoot()],
            timeoutMs,
            ...(prompt !== undefined ? { prompt } : {}),
          }));
      const what = provider !== undefined ? `probing ${provider}` : `probing ${commandLine!}`;
      const wait = ctx.progress !== undefined && args.json !== true ? startWaitProgress(ctx.progress, what, REAL_WAIT_CLOCK, "starting the agent and asking initialize") : undefined;
      const answer = await probe().catch((error: unknown) => {
        wait?.end("failed");
        throw error;
      });
      wait?.end(answer.reachable ? "answered" : "no answer");
      ctx.out(args.json ? `${JSON.stringify({ agent: answer.label, ...answer.result }, null, 2)}\n` : answer.text);
      return answer.reachable ? EXIT_CODES.ok : EXIT_CODES.parityFailure;
    },
  };
}

/** `parity probe` with the process environment (see {@link createProbeCommand}). */
export const probeCommand: ParityCommand = createProbeCommand();
