/**
 * Checks, before `parity conform` starts a bridge, that a `--launch-spec`'s `command` names an
 * agent that can be spawned (docs/design/00-product.md CLI: a bad input is exit 2, one line), so a typo is
 * not a run of every rule ending in `spawn <command> ENOENT`.
 */
import path from "node:path";
import { findExecutable } from "../../stack/acp/maintenance/executable.js";
import { InputError } from "../errors.js";

/**
 * Resolves a launch spec's `command` as the ACP bridge will spawn it (spec 30 §3.1, spec 20
 * §2.1): a name without a `/` is looked up on `PATH` (the spec's `env.PATH` when it sets one,
 * else `env.PATH`); a path is taken relative to the agent's working directory (the spec's
 * `cwd`, resolved against `cwd`, else `cwd` itself).
 *
 * @param spec the already schema-checked launch spec (only `command`, `cwd`, `env` are read).
 * @param shown the `--launch-spec` file as typed, for the message.
 * @param cwd the directory the agent runs in when the spec sets no `cwd` (absolute).
 * @returns the absolute executable path.
 * @throws InputError `<shown>: command "<command>" is not on PATH; …` or
 *   `<shown>: command "<command>": not an executable file (<abs>)`.
 */
export async function checkLaunchSpecCommand(
  spec: { command: string; cwd?: string; env?: Record<string, string> },
  shown: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const { command } = spec;
  if (command.includes("/") || path.isAbsolute(command)) {
    const file = path.resolve(cwd, spec.cwd ?? ".", command);
    const found = await findExecutable(file, undefined);
    if (found === null) throw new InputError(`command "${command}": no executable file at ${file}`, { file: shown });
    return found;
  }
  const found = await findExecutable(command, spec.env?.PATH ?? env.PATH);
  if (found === null) {
    throw new InputError(`command "${command}" is not on PATH; install it, or give its path (absolute, or relative to the working directory)`, {
      file: shown,
    });
  }
  return found;
}
