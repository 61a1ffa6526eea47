/**
 * `parity record` for a user's own ACP agent (spec 30 §2.2 custom agents): any agent named in a
 * `customAgents` JSON file records through the shipped ACP bridge with the launch spec the file
 * gives. Unlike the offline providers, the agent keeps the user's real HOME (its sign-in lives
 * there); redaction rewrites the home path and secrets before anything reaches disk.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { resolveCustomAcpAgents } from "../../stack/acp/custom-agents.js";
import type { AcpAgentDefinition } from "../../stack/acp/agents.js";
import { InputError } from "../errors.js";
import { packageDistPath } from "../runtime/spawn-bridge.js";
import type { RecordProvider } from "./providers.js";

/** Longest wait for `<agent> --version` when filling the manifest's `cliVersion` (ms). */
const VERSION_TIMEOUT_MS = 10_000;

/**
 * Reads a `customAgents` file (a JSON array of entries, spec 30 §2.2) and returns its agents.
 *
 * @throws InputError naming the file when it cannot be read, or with the first rejected entry's
 *   reason (an invalid entry is an error here, not a warning: the user asked for it by name).
 */
export async function readCustomAgentsFile(file: string): Promise<AcpAgentDefinition[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`cannot read the custom agents file (${(error as NodeJS.ErrnoException).code ?? "error"})`, { file });
  }
  const { agents, warnings } = resolveCustomAcpAgents(text);
  if (warnings.length > 0) throw new InputError(warnings[0]!, { file });
  return agents;
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
    modulePath: packageDistPath("stack", "acp", "bridge.js"),
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
