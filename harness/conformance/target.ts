/**
 * What `parity conform` resolves a `--bridge` into (spec 10 §7): the transport to reach the
 * bridge and the session fixture to drive it with. Each bridge family says how a conformance
 * session starts its bridge (harness/families, its `conform` hook); these are the shapes and
 * the helpers every family shares.
 */
import type { SpawnBridgeOptions } from "../runtime/spawn-bridge.js";
import type { ConformanceSessionInput } from "./session.js";
import type { ConformanceTransport } from "./transport.js";

/** What `parity conform` knows besides the bridge name (resolved once from flags). */
export interface BridgeTargetOptions {
  /** Directory relative paths resolve against. */
  cwd: string;
  /** `--provider-id`, when given. */
  providerId?: string;
  /** Parsed `--launch-spec` JSON file, when given (ACP bridges put it in `options.providerOptions.acpLaunchSpec`). */
  launchSpec?: unknown;
  /** Parsed and validated `--session` file, when given; replaces the bridge's default fixture. */
  session?: ConformanceSessionInput;
  /** Environment of the bridge process. */
  env?: NodeJS.ProcessEnv;
  /** Receives bridge stderr (under `--verbose`). */
  onStderr?: (text: string) => void;
}

/** A bridge ready to be checked: how to reach it and the fixture to use. */
export interface BridgeTarget {
  transport: ConformanceTransport;
  session: ConformanceSessionInput;
  /** The bridge module that will be spawned (absolute, or relative to `cwd`). */
  modulePath: string;
  /** For a bridge that drives an agent: which one it runs against, in words (`parity conform` prints it). */
  agent?: string;
}

/** Spawn options of the bridge at `modulePath` as provider `providerId`, with the flags' cwd, env and stderr sink. */
export function spawnOptions(modulePath: string, providerId: string, options: BridgeTargetOptions): SpawnBridgeOptions {
  return {
    modulePath,
    providerId,
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
}

/** Adds the launch spec, when one was given, to a fixture's options as `providerOptions.acpLaunchSpec`. */
export function withLaunchSpec(session: ConformanceSessionInput, launchSpec: unknown): ConformanceSessionInput {
  if (launchSpec === undefined) return session;
  const options = { ...(session.options ?? {}) };
  const providerOptions = { ...((options.providerOptions as Record<string, unknown> | undefined) ?? {}), acpLaunchSpec: launchSpec };
  return { ...session, options: { ...options, providerOptions } };
}
