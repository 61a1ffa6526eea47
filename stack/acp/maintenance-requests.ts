/**
 * Provider maintenance requests of the ACP bridge (spec 20 §1.2 row `provider/health`,
 * `provider/usage`, `provider/installation/status`, `provider/installation/run`; spec 30 §1.1
 * `maintenance`, §2.1, §6.5).
 *
 * Every request reads `providerOptions.acpLaunchSpec` (only `command` and `env` matter; the rest
 * is not validated here) and resolves the dialect from `providerOptions.acpDialect` + the command
 * (spec 30 §1.2). The maintenance env is the bridge's raw env + the spec env (§6.5); `PATH` for the
 * lookup and `--version` comes from it. Installation facts are shared by all agents; the dialect's
 * `maintenance` adds sign-in evidence (health), usage and an installer.
 *
 * Weaker than the reference: no built-in dialect has an installer (the spec gives no installer
 * command), usage never reaches a vendor API unless a host injects a transport, `unauthenticated`
 * only from local evidence a dialect reads (Cursor: its saved token file), no account email.
 */
import * as z from "zod";
import type { Scheduler } from "../bridge-kit/scheduler.js";
import type { AcpBridgeRuntime } from "./bridge-runtime.js";
import { findShippedAcpAgent } from "./agents/agents.js";
import type { AcpDialectRegistry } from "./dialects/registry.js";
import { selectAcpDialect } from "./dialects/select.js";
import type { AcpDialect } from "./dialects/types.js";
import { findExecutable, readCliVersion } from "./maintenance/executable.js";
import { createMaintenanceIo, maintenanceEnv } from "./maintenance/io.js";
import type { AcpMaintenanceIo, ProviderHealthResult, ProviderHealthStatus, ProviderInstallationRunResult, ProviderInstallationStatus, ProviderUsageResult } from "./maintenance/shapes.js";

/** Params of the maintenance requests as the handlers read them (spec 20 §1.2). */
export interface AcpMaintenanceParams {
  providerId?: string | undefined;
  providerOptions?: Record<string, unknown> | undefined;
}

/** What a maintenance handler needs of the bridge: its raw env and its dialect registry. */
export interface AcpMaintenanceHost {
  env: Readonly<Record<string, string | undefined>>;
  dialects: AcpDialectRegistry;
  /** Replaces members of the default {@link AcpMaintenanceIo} (tests; a host's usage transport). */
  io?: Partial<AcpMaintenanceIo>;
  /** The `--version` run's time limit runs on it; default the real scheduler. */
  scheduler?: Scheduler;
}

const LaunchCommandSchema = z.looseObject({ command: z.string().min(1), env: z.record(z.string(), z.string()).optional().catch(undefined) });

/** The request's agent: command (null without a usable launch spec), dialect and maintenance I/O. */
interface MaintenanceTarget {
  command: string | null;
  dialect: AcpDialect;
  io: AcpMaintenanceIo;
  scheduler: Scheduler | undefined;
}

function targetOf(host: AcpMaintenanceHost, params: AcpMaintenanceParams): MaintenanceTarget {
  const options = params.providerOptions ?? {};
  const spec = LaunchCommandSchema.safeParse(options.acpLaunchSpec);
  const command = spec.success ? spec.data.command : null;
  const explicit = typeof options.acpDialect === "string" ? options.acpDialect : undefined;
  // Without a command only an explicit dialect can apply; "" never matches the command table.
  const dialect = selectAcpDialect({ explicit, command: command ?? "" }, host.dialects);
  const env = maintenanceEnv(host.env, spec.success ? spec.data.env : undefined);
  return { command, dialect, io: createMaintenanceIo(env, host.io), scheduler: host.scheduler };
}

/** The bridge's maintenance host: `ctx.env` and the dialect registry of its options. */
export function maintenanceHostOf(rt: AcpBridgeRuntime): AcpMaintenanceHost {
  return { env: rt.ctx.env, dialects: rt.options.dialects, scheduler: rt.options.scheduler };
}

async function installationOf(target: MaintenanceTarget): Promise<ProviderInstallationStatus> {
  const path = target.command === null ? null : await findExecutable(target.command, target.io.env.PATH);
  const installer = target.dialect.maintenance?.installer?.(target.io.platform);
  return {
    executableName: target.command ?? "",
    executablePath: path,
    installed: path !== null,
    installSource: path !== null ? "external" : "notInstalled",
    currentVersion: path === null ? null : await readCliVersion(path, target.io.env, target.scheduler),
    latestVersion: null,
    minimumSupportedVersion: null,
    npmPackageName: null,
    npmGlobalPackageVersion: null,
    // Only an install is offered: the agents update themselves, and no latest version is known.
    installAction: path === null && installer ? { kind: "install", label: "Install", command: installer.displayCommand ?? installer.script } : null,
    needsUpdate: false,
    versionUnsupported: false,
  };
}

/**
 * `provider/installation/status` (spec 20 §1.2, §4 cell 4): the strict
 * {@link ProviderInstallationStatus} key set. `installAction` is an install only when the command
 * is missing and the dialect has an installer. Never throws.
 */
export async function providerInstallationStatus(host: AcpMaintenanceHost, params: AcpMaintenanceParams): Promise<ProviderInstallationStatus> {
  return installationOf(targetOf(host, params));
}

/**
 * `provider/health` (spec 20 §1.2): `unknown` without a launch command; `not_installed` when it
 * is not on `PATH`; `unauthenticated` when the dialect's local sign-in evidence says signed out;
 * else `ready` (also when there is no evidence). A failing evidence reader → `unknown` with its
 * message. `loginCommand` = the shipped agent's sign-in command, else the dialect's. Never throws.
 */
export async function providerHealth(host: AcpMaintenanceHost, params: AcpMaintenanceParams): Promise<ProviderHealthResult> {
  const target = targetOf(host, params);
  const maintenance = target.dialect.maintenance;
  const shippedLogin = params.providerId ? findShippedAcpAgent(params.providerId)?.signInCommand : undefined;
  const canInstall = maintenance?.installer?.(target.io.platform) !== undefined;
  const health = (status: ProviderHealthStatus, facts: { statusMessage?: string; accountEmail?: string | null; installedVersion?: string | null } = {}): ProviderHealthResult => ({
    supported: true,
    health: {
      status,
      statusMessage: facts.statusMessage ?? null,
      accountEmail: facts.accountEmail ?? null,
      planLabel: null,
      installedVersion: facts.installedVersion ?? null,
      minimumSupportedVersion: null,
      canInstall: canInstall && status === "not_installed",
      canUpdate: false,
      loginCommand: shippedLogin ?? maintenance?.loginCommand ?? null,
    },
  });
  if (target.command === null) return health("unknown", { statusMessage: "No ACP launch command was given (providerOptions.acpLaunchSpec.command)." });
  const installation = await installationOf(target);
  if (!installation.installed) return health("not_installed", { statusMessage: `${target.command} was not found on PATH.` });
  const installedVersion = installation.currentVersion;
  try {
    const evidence = await maintenance?.readSignIn?.(target.io);
    if (evidence?.signedIn === false) {
      return health("unauthenticated", { statusMessage: `${target.command} is not signed in (no credentials at ${evidence.source}).`, installedVersion });
    }
    return health("ready", { accountEmail: evidence?.accountEmail ?? null, installedVersion });
  } catch (error) {
    const message = error instanceof Error && error.message.length > 0 ? error.message : "The sign-in state could not be read.";
    return health("unknown", { statusMessage: message, installedVersion });
  }
}

/**
 * `provider/usage` (spec 20 §1.2, spec 30 §2.1): `{supported:false}` unless the dialect reads
 * usage (built-in: Cursor only); `not_installed` when the command is missing; else the dialect's
 * report. A throwing reader becomes `error` with its message. Never throws.
 */
export async function providerUsage(host: AcpMaintenanceHost, params: AcpMaintenanceParams): Promise<ProviderUsageResult> {
  const target = targetOf(host, params);
  const readUsage = target.dialect.maintenance?.readUsage;
  if (readUsage === undefined) return { supported: false };
  if (target.command === null || (await findExecutable(target.command, target.io.env.PATH)) === null) {
    return { supported: true, usage: { status: "not_installed" } };
  }
  try {
    return await readUsage(target.io);
  } catch (error) {
    const message = error instanceof Error && error.message.length > 0 ? error.message : "Usage could not be read.";
    return { supported: true, usage: { status: "error", message, planLabel: null, accountEmail: null } };
  }
}

/**
 * `provider/installation/run {action}` (spec 20 §1.2): a plan `{available:true, command:{command:"sh",
 * args:["-c", script], displayCommand}, verification:{kind:"installed"}}` when the status offers
 * exactly that action (an install of a missing command whose dialect has an installer); else
 * `{available:false, message}`. The bridge never runs the plan. Never throws.
 */
export async function providerInstallationRun(host: AcpMaintenanceHost, params: AcpMaintenanceParams & { action: "install" | "update" }): Promise<ProviderInstallationRunResult> {
  const target = targetOf(host, params);
  const name = target.command ?? "This ACP agent";
  const installer = target.dialect.maintenance?.installer?.(target.io.platform);
  if (installer === undefined) {
    return { available: false, message: `No installer is known for ${name}; ${params.action === "install" ? "install" : "update"} it with its vendor's instructions.` };
  }
  const status = await installationOf(target);
  if (status.installAction?.kind !== params.action) {
    const why = params.action === "install" ? `${name} is already installed` : `this bridge does not offer updates for ${name}`;
    return { available: false, message: `Nothing to run: ${why}.` };
  }
  const displayCommand = installer.displayCommand ?? installer.script;
  return { available: true, command: { command: "sh", args: ["-c", installer.script], displayCommand }, verification: { kind: "installed" } };
}
