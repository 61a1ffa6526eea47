/**
 * Where a custom agent's launch spec points, checked before `parity record` starts anything
 * (spec 30 §2.2 custom agents; docs/design/00-product.md CLI: a bad input is exit 2, one line).
 *
 * The rules (README step 2b, `parity record --help`):
 * - `command` without a path separator is looked up on PATH (the entry's `env.PATH` when it
 *   sets one, else the caller's); with a separator, a relative `command` resolves against the
 *   agents file's directory.
 * - A relative `cwd` resolves against the agents file's directory too. Without `cwd` the agent
 *   runs in the cell's temporary workspace.
 * - `args` are passed as written: a relative path there resolves against the agent's working
 *   directory, so it must be absolute unless `cwd` is set. A relative argument that names a
 *   file beside the agents file while no `cwd` is set is refused with that advice (it would
 *   otherwise fail inside the temp workspace with the agent's own stack trace).
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { AcpAgentDefinition } from "../../../stack/acp/agents/agents.js";
import { findExecutable } from "../../../stack/acp/maintenance/executable.js";
import { InputError } from "../../errors.js";

const hasSeparator = (text: string) => text.includes("/") || text.includes("\\");

/**
 * Resolves a custom agent's `command` and `cwd` by the rules of the module doc and returns the
 * agent with both absolute (in `launchSpec` and `bridgeOptions.acpLaunchSpec`); `args` are
 * untouched. `agentsFile` is the absolute path of the customAgents file; `env` supplies
 * `PATH` when the entry's own `env` does not.
 *
 * @throws InputError naming `agentsFile`, the entry id and the problem: a command not on PATH,
 *   a command path that is not an executable file, a `cwd` that is not a directory, or a
 *   relative argument naming a file beside the agents file with no `cwd` set.
 */
export async function resolveCustomAgentLaunch(agent: AcpAgentDefinition, agentsFile: string, env: NodeJS.ProcessEnv): Promise<AcpAgentDefinition> {
  const baseDir = path.dirname(agentsFile);
  const spec = agent.launchSpec;
  const entry = `entry "${agent.id.replace(/^acp-/, "")}"`;
  const fail = (problem: string): never => {
    throw new InputError(`${entry}: ${problem}`, { file: agentsFile });
  };

  let command: string;
  if (hasSeparator(spec.command) || path.isAbsolute(spec.command)) {
    command = path.resolve(baseDir, spec.command);
    if ((await findExecutable(command, undefined)) === null) {
      const where = path.isAbsolute(spec.command) ? "" : ` (relative commands resolve against the agents file's directory)`;
      fail(`command "${spec.command}": ${existsSync(command) ? "not an executable file" : "no such file"}: ${command}${where}`);
    }
  } else {
    const searchPath = spec.env.PATH ?? env.PATH ?? "";
    const found = await findExecutable(spec.command, searchPath);
    if (found === null) fail(`command "${spec.command}" is not on PATH; install it, or give its path (absolute, or relative to the agents file)`);
    command = found as string;
  }

  let cwd: string | undefined;
  if (spec.cwd !== undefined) {
    cwd = path.resolve(baseDir, spec.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) fail(`cwd "${spec.cwd}" is not a directory: ${cwd}`);
  } else {
    spec.args.forEach((arg, index) => {
      if (arg.startsWith("-") || path.isAbsolute(arg) || !hasSeparator(arg)) return;
      const beside = path.resolve(baseDir, arg);
      if (!existsSync(beside)) return;
      fail(`args[${index}] "${arg}" is a relative path; args are passed as written and the agent runs in the cell's temporary workspace, ` + `so write it absolute (${beside}) or set "cwd"`);
    });
  }

  const launchSpec = { ...spec, command, ...(cwd !== undefined ? { cwd } : {}) };
  return { ...agent, launchSpec, bridgeOptions: { ...agent.bridgeOptions, acpLaunchSpec: launchSpec } };
}
