/**
 * How the bridge starts pi (spec 60 "pi", "Packages and launch"): the runtime's execution
 * options carry `providerOptions.piLaunchSpec {command, args?, env?}` (the CLI, e.g. `node
 * <pi>/dist/cli.js`, and extra environment); the bridge appends the RPC-mode flags, the gate
 * extension and the session to resume. A replay re-points `command`/`args` at the replay child,
 * which ignores the appended flags.
 */
import * as z from "zod";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import type { ExecutionOptions } from "../protocol/methods.js";

/** The launch spec in `options.providerOptions.piLaunchSpec`. */
export const PiLaunchSpecSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});
/** A parsed launch spec. */
export type PiLaunchSpec = z.output<typeof PiLaunchSpecSchema>;

/** The key of the launch spec under `providerOptions`. */
export const PI_LAUNCH_SPEC_KEY = "piLaunchSpec";

/** Flags every session runs with: RPC mode, and none of the user's skills, templates, themes or context files (spec 60). */
export const PI_RPC_FLAGS = ["--mode", "rpc", "--no-skills", "--no-prompt-templates", "--no-themes", "--no-context-files"] as const;

/**
 * The launch spec of a request's options.
 * @throws BridgeJsonRpcError −32602 naming `options.providerOptions.piLaunchSpec` and the problem.
 */
export function piLaunchSpecOf(options: ExecutionOptions | undefined): PiLaunchSpec {
  const parsed = PiLaunchSpecSchema.safeParse(options?.providerOptions?.[PI_LAUNCH_SPEC_KEY]);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = ["options", "providerOptions", PI_LAUNCH_SPEC_KEY, ...(issue?.path ?? []).map(String)].join(".");
  throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.invalidParams, `${where}: ${issue?.message ?? "invalid"}`);
}

/**
 * pi's argv after the spec's own: the RPC flags, `-e <extension>` when gated, `--session <ref>`
 * when resuming, `--no-session` for a process that keeps no session (`model/list`).
 */
export function piArgs(spec: PiLaunchSpec, extras: { extensionFile?: string; session?: string; ephemeral?: boolean }): string[] {
  return [
    ...spec.args,
    ...PI_RPC_FLAGS,
    ...(extras.extensionFile ? ["-e", extras.extensionFile] : []),
    ...(extras.session ? ["--session", extras.session] : []),
    ...(extras.ephemeral ? ["--no-session"] : []),
  ];
}
