/**
 * Provider maintenance requests (spec 20 §1.2): `provider/health` and
 * `provider/installation/status`, answered from whether the launch command is on PATH.
 *
 * Weaker than the reference: no `--version` run, no sign-in probing (health is `ready` or
 * `not_installed`, never `unauthenticated`), no usage API.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { AcpBridgeRuntime } from "./bridge-runtime.js";
import { findShippedAcpAgent } from "./agents.js";
import { acpLaunchSpecSchema } from "./launch-spec.js";

/** Finds an executable by name on `PATH` (or checks an absolute path); `null` when absent. */
export function findExecutable(command: string, pathValue: string | undefined): string | null {
  const candidates = isAbsolute(command) || command.includes("/") ? [command] : (pathValue ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

function commandOf(params: { providerOptions?: Record<string, unknown> | undefined }): string | null {
  const parsed = acpLaunchSpecSchema.safeParse(params.providerOptions?.acpLaunchSpec);
  return parsed.success ? parsed.data.command : null;
}

/** `provider/health` → `{supported:true, health:{status: ready|not_installed|unknown, loginCommand?}}`. */
export function providerHealth(rt: AcpBridgeRuntime, params: { providerId?: string | undefined; providerOptions?: Record<string, unknown> | undefined }): Record<string, unknown> {
  const command = commandOf(params);
  const loginCommand = params.providerId ? findShippedAcpAgent(params.providerId)?.signInCommand : undefined;
  const status = command === null ? "unknown" : findExecutable(command, rt.ctx.env.PATH) ? "ready" : "not_installed";
  return { supported: true, health: { status, ...(loginCommand ? { loginCommand } : {}) } };
}

/** `provider/installation/status` → `{supported:true, installed, installSource: external|notInstalled, path?}`. */
export function providerInstallationStatus(rt: AcpBridgeRuntime, params: { providerOptions?: Record<string, unknown> | undefined }): Record<string, unknown> {
  const command = commandOf(params);
  const path = command === null ? null : findExecutable(command, rt.ctx.env.PATH);
  return { supported: true, installed: path !== null, installSource: path !== null ? "external" : "notInstalled", ...(path ? { path } : {}) };
}
