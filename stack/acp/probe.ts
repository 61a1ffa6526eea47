/**
 * `probeAcpAgent` (spec 30 §3.2): asks an installed ACP agent what it supports by sending only
 * `initialize`, then always kills it. Never throws.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { z } from "zod";
import { sanitizeInheritedChildProcessEnv } from "../bridge-kit/child-env.js";
import { AcpAgentExitedError, AcpAgentTimeoutError, AcpClientReplyError, connectAcpAgent } from "./connection.js";
import { buildAgentEnv } from "./launch-args.js";
import { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION } from "./session-setup.js";

/** Default probe timeout in ms (spec 30 §3.2). */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;
/** The -32601 message every agent→client request gets during a probe. */
export const PROBE_CLIENT_REQUEST_MESSAGE = "bb is probing this agent's capabilities";

/** Probe request: `{command, args, env?, cwd, timeoutMs?}`. */
export interface AcpProbeRequest {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd: string;
  timeoutMs?: number;
  /** The environment to inherit (sanitized); defaults to `process.env`. */
  inheritedEnv?: Record<string, string | undefined>;
  /** Injected for tests. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
}

/** Probe result: reachable with facts, or unreachable with a reason (spec 30 §3.2 `acpAgentProbeSchema`). */
export const acpAgentProbeSchema = z.union([
  z.strictObject({
    reachable: z.literal(true),
    fork: z.boolean(),
    protocolVersion: z.number().optional(),
    loadSession: z.boolean().optional(),
    resume: z.boolean().optional(),
    image: z.boolean().optional(),
    authMethods: z.array(z.string()).optional(),
  }),
  z.strictObject({ reachable: z.literal(false), reason: z.string() }),
]);
/** A probe result. */
export type AcpAgentProbe = z.infer<typeof acpAgentProbeSchema>;

/**
 * Spawns the agent (not recorded) in `cwd` with the sanitized env plus `env`, sends `initialize`
 * (protocol 1, clientInfo bb/1.0.0, fs true, terminal false) and reports `{reachable:true, fork}`
 * (plus the other facts it read) or `{reachable:false, reason}`: "the agent did not answer
 * initialize within <ms>ms", "the agent exited before it answered initialize: …", or the error.
 */
export async function probeAcpAgent(request: AcpProbeRequest): Promise<AcpAgentProbe> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const env = buildAgentEnv({
    inherited: request.inheritedEnv ?? process.env,
    sanitize: (e) => sanitizeInheritedChildProcessEnv({ env: e }),
    specEnv: request.env ?? {},
  });
  const label = [request.command, ...request.args].join(" ");
  const connection = connectAcpAgent({
    launch: { command: request.command, args: request.args, env, cwd: request.cwd },
    label,
    ...(request.spawn ? { spawn: request.spawn } : {}),
    onNotification: () => {},
    onRequest: async () => {
      throw new AcpClientReplyError(-32601, PROBE_CLIENT_REQUEST_MESSAGE);
    },
    onExit: () => {},
  });
  try {
    const result = (await connection.request(
      "initialize",
      { protocolVersion: ACP_PROTOCOL_VERSION, clientInfo: ACP_CLIENT_INFO, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } },
      { timeoutMs },
    )) as Record<string, unknown> | null;
    const caps = (result?.agentCapabilities ?? {}) as Record<string, unknown>;
    const sessionCaps = (caps.sessionCapabilities ?? {}) as Record<string, unknown>;
    const promptCaps = (caps.promptCapabilities ?? {}) as Record<string, unknown>;
    const authMethods = Array.isArray(result?.authMethods)
      ? (result.authMethods as unknown[]).map((m) => (m && typeof m === "object" ? (m as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === "string")
      : [];
    return {
      reachable: true,
      fork: sessionCaps.fork !== undefined && sessionCaps.fork !== null,
      ...(typeof result?.protocolVersion === "number" ? { protocolVersion: result.protocolVersion } : {}),
      loadSession: caps.loadSession === true,
      resume: sessionCaps.resume !== undefined && sessionCaps.resume !== null,
      image: promptCaps.image === true,
      authMethods,
    };
  } catch (error) {
    if (error instanceof AcpAgentTimeoutError) return { reachable: false, reason: `the agent did not answer initialize within ${timeoutMs}ms` };
    if (error instanceof AcpAgentExitedError) {
      if (error.exit.reason === "spawn-error") return { reachable: false, reason: error.message };
      return { reachable: false, reason: `the agent exited before it answered initialize: ${error.message}` };
    }
    return { reachable: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await connection.kill();
  }
}
