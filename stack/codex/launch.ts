/**
 * Where the `codex app-server` comes from, and how a runtime's execution options become Codex's
 * (spec 60 "Codex"; spec 20 §1.2 "Execution options").
 *
 * The launch travels like the ACP bridge's launch spec: in the session and turn requests'
 * `options.providerOptions.codexAppServer = {command, args, env?, cwd?}` (how `parity record`
 * points the bridge at the real CLI and a replay at the replay child). Without it the bridge
 * runs `BB_CODEX_BRIDGE_APP_SERVER_COMMAND` with the JSON array `BB_CODEX_BRIDGE_APP_SERVER_ARGS`
 * (the reference's variables), else `codex app-server` from PATH.
 */
import * as z from "zod";
import type { ExecutionOptions } from "../protocol/methods.js";
import { CODEX_LAUNCH_OPTION } from "./launch-option.js";
/** The environment variables of the fallback launch. */
export const CODEX_COMMAND_ENV = "BB_CODEX_BRIDGE_APP_SERVER_COMMAND";
export const CODEX_ARGS_ENV = "BB_CODEX_BRIDGE_APP_SERVER_ARGS";

/** A launch: executable, arguments, extra environment (over the sanitized inherited one), working directory. */
export const CodexLaunchSchema = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).default(["app-server"]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
/** A launch of the app-server. */
export type CodexLaunch = z.output<typeof CodexLaunchSchema>;

/**
 * The launch for a session: `options.providerOptions.codexAppServer`, else the environment's,
 * else `codex app-server`; `cwd` defaults to the session's.
 * @throws Error naming the field when the option or `BB_CODEX_BRIDGE_APP_SERVER_ARGS` is malformed.
 */
export function resolveCodexLaunch(options: ExecutionOptions | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): CodexLaunch {
  const given = options?.providerOptions?.[CODEX_LAUNCH_OPTION];
  if (given !== undefined) {
    const parsed = CodexLaunchSchema.safeParse(given);
    if (!parsed.success) throw new Error(`options.providerOptions.${CODEX_LAUNCH_OPTION}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    return { ...parsed.data, cwd: parsed.data.cwd ?? cwd };
  }
  const command = env[CODEX_COMMAND_ENV];
  if (command) {
    let args: unknown = ["app-server"];
    if (env[CODEX_ARGS_ENV]) {
      try {
        args = JSON.parse(env[CODEX_ARGS_ENV]!);
      } catch {
        args = undefined;
      }
      if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw new Error(`${CODEX_ARGS_ENV}: not a JSON array of strings`);
    }
    return { command, args: args as string[], cwd };
  }
  return { command: "codex", args: ["app-server"], cwd };
}

/** Codex's approval policy and sandbox for a session. */
export interface CodexPolicy {
  approvalPolicy: "never" | "untrusted" | "on-request";
  sandbox: "read-only" | "workspace-write" | "danger-full-access";
}

/**
 * The runtime's `permissionMode` as Codex's policy: `full` never asks; `accept-edits` and the
 * default ask before every command Codex does not know to be safe (`untrusted`); `plan` runs
 * read-only. The sandbox is `workspace-write` otherwise (spec 60: the offline configuration).
 */
export function codexPolicy(options: ExecutionOptions | undefined): CodexPolicy {
  const mode = options?.permissionMode;
  if (mode === "full") return { approvalPolicy: "never", sandbox: "workspace-write" };
  if (mode === "plan") return { approvalPolicy: "untrusted", sandbox: "read-only" };
  return { approvalPolicy: "untrusted", sandbox: "workspace-write" };
}

/** The per-turn overrides of `turn/start`: approval policy, model, reasoning effort (only those the options set). */
export function turnOverrides(options: ExecutionOptions | undefined): Record<string, unknown> {
  return {
    ...(options?.permissionMode ? { approvalPolicy: codexPolicy(options).approvalPolicy } : {}),
    ...(options?.model ? { model: options.model } : {}),
    ...(options?.reasoningLevel ? { effort: options.reasoningLevel } : {}),
  };
}
