import { readFileSync } from "node:fs";
import path from "node:path";
import type { Argv } from "yargs";
import { listAcpAgents } from "../../stack/acp/agents/custom-agents.js";
import { acpAgentLabel } from "../../stack/acp/agents/launch-spec.js";
import { probeAcpAgent, type AcpAgentProbe } from "../../stack/acp/agents/probe.js";
import { findExecutable } from "../../stack/acp/maintenance/executable.js";
import { packageRoot } from "../families/record-provider.js";
import { resolveWaitFlag } from "./flag-checks.js";
import { detectNetworkIsolation, netnsSpawn } from "../record/network.js";
import { withoutRecordProfiles } from "../families/index.js";
import { EXIT_CODES, InputError, UsageError } from "../errors.js";
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
  if (words.length === 0) throw new UsageError("--command is empty; give the agent command and its args, e.g. --command \"opencode acp\"");
  return words;
}

function readCustomAgents(file: string): string {
  try {
    // A "record" profile (parity record's) is no part of the setting the probe launches from.
    return withoutRecordProfiles(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InputError(`cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { file });
  }
}

function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? "undefined";
}

/**
 * The text answer: reachability and protocol, the agent's name/version, how it was launched, every
 * `agentCapabilities` key as the agent reported it (compact JSON, absent keys said so), auth
 * methods, and `fork` (spec 30 §3.2).
 */
export function formatProbe(label: string, probe: AcpAgentProbe): string {
  const lines: string[] = [];
  const launch = probe.launch;
  let launchLine: string | undefined;
  if (launch) {
    // The home/XDG paths are temp names; the switches are what a reader wants to see.
    const switches = Object.entries(launch.addedEnv).filter(([key]) => key !== "HOME" && !key.startsWith("XDG_"));
    launchLine =
      `  launch: dialect ${launch.dialect}, ` +
      (launch.isolatedHome ? "isolated temp HOME/XDG dirs (removed afterwards)" : "inherited HOME") +
      (switches.length ? `, ${switches.map(([key, value]) => `${key}=${value}`).join(" ")}` : "") +
      (launch.network ? `; network ${launch.network}` : "");
  }
  if (!probe.reachable) {
    lines.push(`${label}: not reachable — ${probe.reason}`);
    if (launchLine) lines.push(launchLine);
    return `${lines.join("\n")}\n`;
  }
  const info = probe.agentInfo;
  const who = info?.name ? `, agent ${info.name}${info.version ? ` ${info.version}` : ""}` : "";
  lines.push(`${label}: reachable (ACP protocol ${probe.protocolVersion ?? "?"}${who})`);
  if (launchLine) lines.push(launchLine);
  lines.push("  agentCapabilities:");
  const caps = probe.agentCapabilities as Record<string, unknown>;
  const known = ["loadSession", "promptCapabilities", "sessionCapabilities", "mcpCapabilities"];
  for (const key of [...known, ...Object.keys(caps).filter((k) => !known.includes(k)).sort()]) {
    lines.push(`    ${key}: ${key in caps ? compactJson(caps[key]) : "(not reported)"}`);
  }
  const auth = probe.authMethods.map((m) => (m.name ? `${m.id} (${m.name})` : m.id));
  lines.push(`  authMethods: ${auth.length ? auth.join(", ") : "none"}`);
  lines.push(`  fork: ${probe.fork ? "yes" : "no"}`);
  return `${lines.join("\n")}\n`;
}

/** What a probe command inherits; tests inject a controlled environment. */
export interface ProbeCommandOptions {
  /** The environment the agent inherits (sanitized by the probe); default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Parent directory of an isolated agent home; default `os.tmpdir()`. */
  tempDir?: string;
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
 * Builds `parity probe`: asks an installed ACP agent what it supports (spec 30 §3.2) by sending
 * only `initialize`, and prints the agent's capabilities as reported. Exit 0 when the agent
 * answered, 1 when it did not, 2 on a bad flag. opencode runs in an isolated temp home, offline.
 */
export function createProbeCommand(options: ProbeCommandOptions = {}): ParityCommand {
  return {
    tempDir: true,
    command: "probe",
    describe: "Ask an installed ACP agent what it supports (initialize only)",
    builder: (y: Argv) =>
      y
        .option("provider", { type: "string", describe: "A shipped or custom ACP agent id (acp-cursor, acp-opencode, acp-omp, acp-grok, acp-hermes-agent, acp-<slug>)" })
        .option("command", { type: "string", describe: 'The agent command and its args, e.g. "opencode acp" (no shell)' })
        .option("custom-agents", { type: "string", describe: "JSON file with the customAgents setting (an array of agent entries)" })
        .option("cwd", { type: "string", describe: "Working directory of the agent (default: the current directory)" })
        .option("timeout", { type: "string", describe: `How long to wait for initialize, in ms (a whole number ≥ 1; default ${PROBE_TIMEOUT_MS})` })
        .option("timeout-ms", { type: "string", hidden: true, describe: "Old spelling of --timeout" })
        .option("json", { type: "boolean", default: false, describe: "Print the probe result as JSON" })
        .option("network", {
          choices: ["auto", "netns", "host"],
          default: "auto",
          describe: "Run the agent in a fresh network namespace with only loopback (netns), on the host network (host), or netns where possible (auto)",
        })
        .example("$0 probe --provider acp-opencode", "Probe the shipped opencode agent (isolated temp HOME, offline)")
        .example('$0 probe --command "node ./my-agent.js --acp"', "Probe any ACP agent command")
        .example("$0 probe --provider acp-mine --custom-agents agents.json", "Probe a custom agent"),
    async run(args, ctx) {
      const provider = typeof args.provider === "string" ? args.provider : undefined;
      const commandLine = typeof args.command === "string" ? args.command : undefined;
      if ((provider === undefined) === (commandLine === undefined)) throw new UsageError("give exactly one of --provider <id> or --command \"<cmd> <args…>\"");
      const timeoutMs = resolveWaitFlag(args, PROBE_TIMEOUT_MS);
      const cwd = typeof args.cwd === "string" ? path.resolve(ctx.cwd, args.cwd) : ctx.cwd;

      let command: string;
      let commandArgs: string[];
      let env: Record<string, string> = {};
      let acpDialect: string | undefined;
      if (provider !== undefined) {
        const setting = typeof args["custom-agents"] === "string" ? readCustomAgents(path.resolve(ctx.cwd, args["custom-agents"])) : undefined;
        const { agents, warnings } = listAcpAgents(setting);
        for (const warning of warnings) ctx.err(`warning: ${warning}\n`);
        const agent = agents.find((a) => a.id === provider);
        if (!agent) throw new UsageError(`--provider ${provider}: unknown ACP agent (known: ${agents.map((a) => a.id).join(", ")})`);
        command = agent.launchSpec.command;
        commandArgs = agent.launchSpec.args;
        env = agent.launchSpec.env;
        acpDialect = agent.bridgeOptions.acpDialect;
      } else {
        [command, ...commandArgs] = splitCommandLine(commandLine!) as [string, ...string[]];
      }
      const label = acpAgentLabel({ command, args: commandArgs });
      const resolvedCommand = await projectCommand(command, [ctx.cwd, packageRoot()], env.PATH ?? (options.env ?? process.env).PATH);
      const network = args.network === "host" ? undefined : detectNetworkIsolation("auto");
      if (args.network === "netns" && network?.kind !== "netns") throw new UsageError(`--network netns: ${network?.kind === "watch" ? network.why : "unavailable"}`);
      // A command that cannot start gains nothing from a namespace and keeps its plain spawn error.
      const resolvable =
        (await findExecutable(resolvedCommand.includes("/") ? path.resolve(cwd, resolvedCommand) : resolvedCommand, (env.PATH ?? options.env?.PATH ?? process.env.PATH) as string | undefined)) !== null;
      const inNetns = network?.kind === "netns" && resolvable;
      const probe = await probeAcpAgent({
        ...(inNetns ? { spawn: netnsSpawn(network) } : {}),
        command: resolvedCommand,
        args: commandArgs,
        env,
        cwd,
        timeoutMs,
        ...(acpDialect !== undefined ? { acpDialect } : {}),
        ...(options.env ? { inheritedEnv: options.env } : {}),
        ...(options.tempDir !== undefined ? { tempDir: options.tempDir } : {}),
      });
      const shown = inNetns && probe.launch ? { ...probe, launch: { ...probe.launch, network: "netns: a fresh network namespace with only loopback" } } : probe;
      ctx.out(args.json ? `${JSON.stringify({ agent: label, ...shown }, null, 2)}\n` : formatProbe(label, shown));
      return probe.reachable ? EXIT_CODES.ok : EXIT_CODES.parityFailure;
    },
  };
}

/** `parity probe` with the process environment (see {@link createProbeCommand}). */
export const probeCommand: ParityCommand = createProbeCommand();
