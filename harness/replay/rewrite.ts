import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import { isRecord } from "../../stack/protocol/json-value.js";

/**
 * Where the replay points a bridge: the replay child's command line, the workspace that
 * stands in for the recorded `cwd`, and the harness's own PATH (spec 10 §5.1 g).
 */
export interface RuntimeLineRewrite {
  /** Command the bridge must run instead of the agent (the node binary). */
  childCommand: string;
  /** Its arguments: the replay child script and its flags. */
  childArgs: string[];
  /** Directory that replaces a string `params.cwd`. */
  workspace: string;
  /** Value that replaces a string `params.options.envVars.PATH`; undefined leaves it. */
  path: string | undefined;
}

/**
 * Rewrites one recorded `runtime→bridge` line before it is written (spec 10 §5.1 g):
 * - a string `params.cwd` becomes the replay workspace;
 * - a string `params.options.envVars.PATH` becomes the harness's PATH;
 * - an ACP launch spec at `params.options.providerOptions.acpLaunchSpec` (whatever the
 *   method) keeps its other keys but loses `modelCli` and `cwd` (the agent's own directory on
 *   the recording machine: it may not exist here, and the replay child needs none), gets
 *   `command` = the node binary, `args` = the replay child and its flags, and `env: {}`; when no `providerOptions.acpDialect`
 *   is set, the dialect the recorded command implies (spec 30 §1.2: `cursor-agent` → `cursor`)
 *   is pinned explicitly, since the replay child's command (node) would select the generic one
 *   and a recording made before dialects existed would replay as a generic agent.
 * Lines that need none of this (or are not JSON objects) are returned unchanged, byte for
 * byte; rewritten lines are re-serialized with their key order kept.
 */
export function rewriteRuntimeLine(line: string, rewrite: RuntimeLineRewrite): string {
  if (!line.includes('"cwd"') && !line.includes('"PATH"') && !line.includes('"acpLaunchSpec"')) return line;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isRecord(value) || !isRecord(value.params)) return line;
  const params = value.params;
  let changed = false;
  if (typeof params.cwd === "string") {
    params.cwd = rewrite.workspace;
    changed = true;
  }
  const options = params.options;
  if (isRecord(options)) {
    if (rewrite.path !== undefined && isRecord(options.envVars) && typeof options.envVars.PATH === "string") {
      options.envVars.PATH = rewrite.path;
      changed = true;
    }
    const providerOptions = options.providerOptions;
    if (isRecord(providerOptions) && isRecord(providerOptions.acpLaunchSpec)) {
      const spec: Record<string, unknown> = { ...providerOptions.acpLaunchSpec };
      if (providerOptions.acpDialect === undefined && typeof spec.command === "string") {
        const implied = selectAcpDialect({ command: spec.command });
        if (implied.id !== "acp") providerOptions.acpDialect = implied.id;
      }
      delete spec.modelCli;
      delete spec.cwd;
      spec.command = rewrite.childCommand;
      spec.args = [...rewrite.childArgs];
      spec.env = {};
      providerOptions.acpLaunchSpec = spec;
      changed = true;
    }
  }
  return changed ? JSON.stringify(value) : line;
}
