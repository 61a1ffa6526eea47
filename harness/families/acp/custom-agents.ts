/**
 * `parity record` for a user's own ACP agent (spec 30 §2.2 custom agents): any agent named in a
 * `customAgents` JSON file records through the shipped ACP bridge with the launch spec the file
 * gives. An entry may carry a `record` object: an agent profile (agent-profile.ts: model API,
 * env and config-file templates, version, settle rule, tool names), validated here; such an
 * agent records like the shipped real agents, offline against the loopback model endpoint with
 * a fresh HOME. Without `record` the agent keeps the user's real HOME (its sign-in lives
 * there) and gets no model endpoint; redaction rewrites the home path and secrets before
 * anything reaches disk.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { resolveCustomAcpAgents } from "../../../stack/acp/agents/custom-agents.js";
import type { AcpAgentDefinition } from "../../../stack/acp/agents/agents.js";
import { InputError } from "../../errors.js";
import { AgentRecordProfileSchema, type AgentRecordProfile } from "../agent-profile.js";
import { bridgeModulePath, type RecordProvider } from "../record-provider.js";
import { ACP_BRIDGE_MODULE } from "./launch.js";
import { resolveCustomAgentLaunch } from "./custom-agent-launch.js";
import { acpProfileBridge } from "./profiles.js";
import { profileRecordProvider } from "../profile-provider.js";
import type { FamilyCustomAgents } from "../family.js";
import path from "node:path";

/**
 * Longest wait for `<agent> --version` when filling the manifest's `cliVersion` (ms): it only
 * bounds a hung agent, generous so a loaded machine does not record "unknown version" for an
 * agent that answers (as profile-provider.ts's limit).
 */
const VERSION_TIMEOUT_MS = 120_000;

/**
 * The agents of a `customAgents` file's text (a JSON array of entries, spec 30 §2.2).
 *
 * @throws InputError naming `file` with the first rejected entry's reason (an invalid entry is
 *   an error here, not a warning: the user asked for it by name).
 */
export function parseCustomAgents(text: string, file: string): CustomRecordAgent[] {
  const { entries, profiles } = splitRecordProfiles(text, file);
  const { agents, warnings } = resolveCustomAcpAgents(entries);
  if (warnings.length > 0) throw new InputError(warnings[0]!, { file });
  return agents.map((agent) => {
    const profile = profiles.get(agent.id.replace(/^acp-/, ""));
    return profile ? { ...agent, recordProfile: profile } : agent;
  });
}

/**
 * Reads a `customAgents` file and returns its agents ({@link parseCustomAgents}).
 *
 * @throws InputError naming the file when it cannot be read, or what {@link parseCustomAgents} throws.
 */
export async function readCustomAgentsFile(file: string): Promise<CustomRecordAgent[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read the custom agents file (${(error as NodeJS.ErrnoException).code ?? "error"})`, { file });
  }
  return parseCustomAgents(text, file);
}

/** A custom agent, with its agent profile when its entry has a `record` object. */
export type CustomRecordAgent = AcpAgentDefinition & { recordProfile?: AgentRecordProfile };

/**
 * Takes each entry's `record` object out of the file's JSON (the customAgents setting itself
 * knows no such field) and validates it as an agent profile. Returns the entries without it
 * (as JSON text for `resolveCustomAcpAgents`) and the profiles by entry id.
 * @throws InputError naming the file, the entry and the first offending field.
 */
function splitRecordProfiles(text: string, file: string): { entries: string; profiles: Map<string, AgentRecordProfile> } {
  const profiles = new Map<string, AgentRecordProfile>();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { entries: text, profiles }; // resolveCustomAcpAgents says what is wrong
  }
  if (!Array.isArray(raw)) return { entries: text, profiles };
  const entries = raw.map((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null || !("record" in entry)) return entry;
    const { record, ...rest } = entry as { record: unknown; id?: unknown };
    const parsed = AgentRecordProfileSchema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = ["record", ...issue.path.map(String)].join(".");
      throw new InputError(`entry ${index}${typeof rest.id === "string" ? ` ("${rest.id}")` : ""}: field \`${field}\`: ${issue.message}`, { file });
    }
    if (typeof rest.id === "string") profiles.set(rest.id, parsed.data);
    return rest;
  });
  return { entries: JSON.stringify(entries), profiles };
}

async function agentVersion(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const running = promisify(execFile)(command, ["--version"], { env, timeout: VERSION_TIMEOUT_MS });
    // An agent that ignores --version and speaks ACP on stdin exits at end of input instead of at the timeout.
    running.child.stdin?.end();
    const { stdout } = await running;
    return stdout.trim().split("\n").pop() || "unknown version";
  } catch {
    return "unknown version";
  }
}

/**
 * A {@link RecordProvider} for one custom agent: the ACP bridge, the agent's own launch spec and
 * dialect, no model endpoint, the caller's environment (the bridge sanitizes what its child
 * inherits). `sourceFile` is named in the manifest note.
 */
export function customRecordProvider(agent: AcpAgentDefinition, sourceFile: string): RecordProvider {
  return {
    id: agent.id,
    modulePath: bridgeModulePath({ modulePath: ACP_BRIDGE_MODULE }),
    takesModelEndpoint: false,
    async prepare() {
      const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
      const spec = agent.launchSpec;
      const version = await agentVersion(spec.command, { ...env, ...spec.env });
      return {
        env,
        options: { providerOptions: { ...agent.bridgeOptions } },
        cliVersion: `${spec.command} ${version}`,
        note: `custom ACP agent ${agent.id} (${[spec.command, ...spec.args].join(" ")}) from ${sourceFile}`,
      };
    },
  };
}

/**
 * The ACP family's custom agents (family.ts `customAgents`): an entry without `record` runs
 * with the user's HOME and no model endpoint ({@link customRecordProvider}); one with a
 * `record` profile records like the shipped agents, its entry's env part of the profile's env
 * templates (the profile's wins). The agent's `command` and `cwd` are resolved and checked
 * before anything starts (`resolveCustomAgentLaunch`).
 */
export const acpCustomAgents: FamilyCustomAgents = {
  async recordProvider(entriesText, providerId, file) {
    const agent = parseCustomAgents(entriesText, file).find((a) => a.id === providerId);
    if (!agent) return undefined;
    const resolved = await resolveCustomAgentLaunch(agent, file, process.env);
    if (!agent.recordProfile) return customRecordProvider(resolved, path.basename(file));
    const { acpLaunchSpec: _spec, ...bridgeOptions } = resolved.bridgeOptions;
    const spec = resolved.launchSpec;
    const profile = { ...agent.recordProfile, env: { ...spec.env, ...agent.recordProfile.env } };
    return profileRecordProvider(profile, {
      id: agent.id,
      name: spec.displayName,
      command: spec.command,
      args: spec.args,
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      agentsDir: path.dirname(file),
      source: `custom ACP agent from ${path.basename(file)}`,
      bridge: acpProfileBridge(agent.id, spec.displayName, bridgeOptions),
    });
  },
};
