/**
 * Resolves a launch spec plus per-session execution settings into the exact argv, env and cwd of
 * one agent process (spec 20 §2.1, spec 30 §6.5).
 */
import type { AcpLaunchSpec, AcpReasoningLevel } from "./launch-spec.js";
import { ACP_REASONING_LEVELS } from "./launch-spec.js";
import type { AgentLaunch } from "../connection/connection.js";

/** The bb permission modes an ACP session accepts (`auto` is refused, spec 30 §6.2). */
export type AcpPermissionMode = "accept-edits" | "full";

/** The model id meaning "whatever the agent picks": never pinned on the command line. */
export const ACP_DEFAULT_MODEL_ID = "acp-default";

/** Execution settings that shape the launch. */
export interface AcpLaunchSettings {
  permissionMode: AcpPermissionMode;
  model?: string | undefined;
  reasoningLevel?: string | undefined;
}

/** The resolved argv plus warnings to show once the session has an identity. */
export interface ResolvedAgentArgs {
  args: string[];
  warnings: string[];
}

function isReasoningLevel(value: string | undefined): value is AcpReasoningLevel {
  return value !== undefined && (ACP_REASONING_LEVELS as readonly string[]).includes(value);
}

/**
 * `[...prefix, ...agentArgs]` (spec 20 §2.1): prefix = `[selectFlag, model]` when the spec has a
 * CLI model pin and a model other than `acp-default` is set (`model` is pinned as given: sessions
 * pass the catalog-resolved variant, and no model under the parameterized picker,
 * execution-settings.ts), then `[reasoningCli.flag, value]`;
 * agentArgs = spec `args` with `permissionCli.full` (mode `full`) or `.workspaceWrite`
 * (`accept-edits`) inserted after the first `insertAfterArgs` (default 0) args.
 * A level the reasoning flag cannot express yields a warning instead of a flag.
 */
export function resolveAgentArgs(spec: AcpLaunchSpec, settings: AcpLaunchSettings): ResolvedAgentArgs {
  const warnings: string[] = [];
  const prefix: string[] = [];
  const model = settings.model;
  if (spec.modelCli?.selectFlag && model && model !== ACP_DEFAULT_MODEL_ID) prefix.push(spec.modelCli.selectFlag, model);
  const level = settings.reasoningLevel;
  if (spec.reasoningCli && level) {
    const mapped = isReasoningLevel(level) ? spec.reasoningCli.levelValues?.[level] : undefined;
    const value = mapped ?? (isReasoningLevel(level) && spec.reasoningCli.supportedLevels.includes(level) ? level : undefined);
    if (value !== undefined) prefix.push(spec.reasoningCli.flag, value);
    else warnings.push(`Reasoning level "${level}" is not supported by ${spec.displayName}'s ${spec.reasoningCli.flag} flag; launching at its default.`);
  }
  const modeArgs = settings.permissionMode === "full" ? spec.permissionCli?.full : spec.permissionCli?.workspaceWrite;
  const at = Math.min(spec.permissionCli?.insertAfterArgs ?? 0, spec.args.length);
  const agentArgs = modeArgs ? [...spec.args.slice(0, at), ...modeArgs, ...spec.args.slice(at)] : [...spec.args];
  return { args: [...prefix, ...agentArgs], warnings };
}

/** Keys never inherited by an agent: no self-recording, no Electron Node-mode leak (spec 20 §6). */
export const BRIDGE_ONLY_ENV_KEYS = ["ELECTRON_RUN_AS_NODE", "BB_PROVIDER_BRIDGE_RECORD_DIR"] as const;

/** Inputs of {@link buildAgentEnv}. */
export interface AgentEnvInput {
  /** The bridge's own environment (`ctx.env`). */
  inherited: Record<string, string | undefined>;
  /** The shared child-env allowlist (`sanitizeInheritedChildProcessEnv` from bridge-kit). */
  sanitize(env: Record<string, string | undefined>): Record<string, string>;
  /** Launch spec `env`. */
  specEnv: Record<string, string>;
  /** Runtime `options.envVars` (session agents only). */
  envVars?: Record<string, string> | undefined;
  /** Dialect extras (opencode). */
  extra?: Readonly<Record<string, string>> | undefined;
}

/**
 * The child environment (spec 30 §6.5): the inherited env through the shared sanitizer, minus
 * {@link BRIDGE_ONLY_ENV_KEYS}, overlaid by the spec env, then `options.envVars`, then dialect
 * extras. Later layers win.
 */
export function buildAgentEnv(input: AgentEnvInput): Record<string, string> {
  const base = input.sanitize(input.inherited);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if ((BRIDGE_ONLY_ENV_KEYS as readonly string[]).includes(key)) continue;
    env[key] = value;
  }
  Object.assign(env, input.specEnv, input.envVars ?? {}, input.extra ?? {});
  return env;
}

/** Assembles an {@link AgentLaunch}: spec command, resolved args, env, and `spec.cwd ?? requestCwd`. */
export function agentLaunch(spec: AcpLaunchSpec, args: string[], env: Record<string, string>, requestCwd: string): AgentLaunch {
  return { command: spec.command, args, env, cwd: spec.cwd ?? requestCwd };
}
