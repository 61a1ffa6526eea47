/**
 * The ACP family's probe (spec 30 §3.2): `initialize` only, or on to `session/new` and one
 * prompt, through stack/acp's `probeAcpAgent`. For a provider the agent runs exactly as
 * `parity record` prepared it: the launch spec and dialect its launch options carry, the bridge
 * env as the inherited env (the run's fresh HOME/XDG dirs, the profile's env), so a probe writes
 * nothing outside the run's temp dir.
 */
import path from "node:path";
import { probeAcpAgent, type AcpAgentProbe } from "../../../stack/acp/agents/probe.js";
import { selectAcpDialect } from "../../../stack/acp/dialects/index.js";
import { isRecord } from "../../../stack/protocol/json-value.js";
import type { FamilyCommandProbeRequest, FamilyProbe, FamilyProviderProbeRequest, ProbeAnswer } from "../family.js";

const compactJson = (value: unknown): string => JSON.stringify(value) ?? "undefined";

/** The launch line of the text answer (home/XDG paths are temp names; the switches are what a reader wants). */
function launchLine(launch: NonNullable<AcpAgentProbe["launch"]>): string {
  const switches = Object.entries(launch.addedEnv).filter(([key]) => key !== "HOME" && !key.startsWith("XDG_"));
  return (
    `  launch: dialect ${launch.dialect}, ` +
    (launch.isolatedHome ? "isolated temp HOME/XDG dirs (removed afterwards)" : "inherited HOME") +
    (switches.length ? `, ${switches.map(([key, value]) => `${key}=${value}`).join(" ")}` : "") +
    (launch.network ? `; network ${launch.network}` : "")
  );
}

/**
 * The text answer: reachability and protocol, the agent's name/version, how it was launched, every
 * `agentCapabilities` key as the agent reported it (compact JSON, absent keys said so), auth
 * methods, `fork` (spec 30 §3.2), and the prompt's outcome when one was sent.
 */
export function formatProbe(label: string, probe: AcpAgentProbe): string {
  const lines: string[] = [];
  if (!probe.reachable) {
    lines.push(`${label}: not reachable — ${probe.reason}`);
    if (probe.launch) lines.push(launchLine(probe.launch));
    return `${lines.join("\n")}\n`;
  }
  const info = probe.agentInfo;
  const who = info?.name ? `, agent ${info.name}${info.version ? ` ${info.version}` : ""}` : "";
  lines.push(`${label}: reachable (ACP protocol ${probe.protocolVersion ?? "?"}${who})`);
  if (probe.launch) lines.push(launchLine(probe.launch));
  lines.push("  agentCapabilities:");
  const caps = probe.agentCapabilities as Record<string, unknown>;
  const known = ["loadSession", "promptCapabilities", "sessionCapabilities", "mcpCapabilities"];
  for (const key of [
    ...known,
    ...Object.keys(caps)
      .filter((k) => !known.includes(k))
      .sort(),
  ]) {
    lines.push(`    ${key}: ${key in caps ? compactJson(caps[key]) : "(not reported)"}`);
  }
  const auth = probe.authMethods.map((m) => (m.name ? `${m.id} (${m.name})` : m.id));
  lines.push(`  authMethods: ${auth.length ? auth.join(", ") : "none"}`);
  lines.push(`  fork: ${probe.fork ? "yes" : "no"}`);
  if (probe.prompt) {
    lines.push("failed" in probe.prompt ? `  prompt: failed — ${probe.prompt.failed}` : `  prompt: stopReason ${probe.prompt.stopReason}, said ${compactJson(probe.prompt.text)}`);
  }
  return `${lines.join("\n")}\n`;
}

function answerOf(label: string, probe: AcpAgentProbe, network: string | undefined): ProbeAnswer {
  const shown: AcpAgentProbe = network && probe.launch ? { ...probe, launch: { ...probe.launch, network } } : probe;
  return { reachable: shown.reachable, label, result: shown as Record<string, unknown>, text: formatProbe(label, shown) };
}

/** The launch spec and dialect among execution options (`providerOptions.acpLaunchSpec`, `acpDialect`). */
function launchSpecOf(options: Record<string, unknown>): { command: string; args: string[]; env: Record<string, string>; cwd?: string; dialect?: string } {
  const providerOptions = isRecord(options.providerOptions) ? options.providerOptions : {};
  const spec = isRecord(providerOptions.acpLaunchSpec) ? providerOptions.acpLaunchSpec : {};
  return {
    command: String(spec.command),
    args: Array.isArray(spec.args) ? spec.args.map(String) : [],
    env: isRecord(spec.env) ? (spec.env as Record<string, string>) : {},
    ...(typeof spec.cwd === "string" ? { cwd: spec.cwd } : {}),
    ...(typeof providerOptions.acpDialect === "string" ? { dialect: providerOptions.acpDialect } : {}),
  };
}

const inside = (file: string | undefined, dir: string) => file !== undefined && (file === dir || file.startsWith(`${dir}${path.sep}`));

/** Probes the agent a prepared ACP provider launches, with the bridge env as its inherited env (module doc). */
async function probeProvider(request: FamilyProviderProbeRequest): Promise<ProbeAnswer> {
  const spec = launchSpecOf(request.prepared.options);
  const probe = await probeAcpAgent({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd ?? request.dirs.workspace,
    timeoutMs: request.timeoutMs,
    ...(spec.dialect !== undefined ? { acpDialect: spec.dialect } : {}),
    // The provider made the home (record's fresh HOME/XDG dirs, or a custom agent's own): no second one.
    isolateHome: false,
    inheritedEnv: request.prepared.env,
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(request.spawn ? { spawn: request.spawn } : {}),
  });
  // What the answer says of the launch: whether HOME is the run's own, and the dialect's offline
  // switches the provider's env sets (only those: its other values may be API keys).
  const offline = selectAcpDialect({ explicit: spec.dialect, command: spec.command }).offlineEnv ?? {};
  const switches = Object.fromEntries(Object.keys(offline).flatMap((key) => (request.prepared.env[key] !== undefined ? [[key, request.prepared.env[key]!]] : [])));
  const isolatedHome = inside(request.prepared.env.HOME, request.dirs.root);
  const withHome: AcpAgentProbe = probe.launch ? { ...probe, launch: { ...probe.launch, isolatedHome, addedEnv: { ...switches, ...probe.launch.addedEnv } } } : probe;
  const label = [path.basename(spec.command), ...spec.args].join(" ");
  return answerOf(label, withHome, request.network);
}

/** Probes a bare ACP agent command (an isolated home when its dialect has offline switches). */
async function probeCommand(request: FamilyCommandProbeRequest): Promise<ProbeAnswer> {
  const probe = await probeAcpAgent({
    command: request.command,
    args: request.args,
    cwd: request.cwd,
    timeoutMs: request.timeoutMs,
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(request.spawn ? { spawn: request.spawn } : {}),
    ...(request.inheritedEnv ? { inheritedEnv: request.inheritedEnv } : {}),
    ...(request.tempDir !== undefined ? { tempDir: request.tempDir } : {}),
  });
  return answerOf(request.label, probe, request.network);
}

/** The ACP family's probe hook. */
export const acpProbe: FamilyProbe = { provider: probeProvider, command: probeCommand };
