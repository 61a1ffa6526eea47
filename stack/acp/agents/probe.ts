/**
 * `probeAcpAgent` (spec 30 §3.2): asks an installed ACP agent what it supports by sending only
 * `initialize`, then always kills it. Never throws. Beyond the spec's `{reachable, fork}` the
 * answer carries the agent's capabilities exactly as it reported them ("the answer shows
 * its real capabilities"). An agent whose dialect has offline switches (opencode) runs in a
 * throwaway HOME/XDG tree with those switches set, so probing writes nothing under the user's home.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { tmpdir } from "node:os";
import * as z from "zod";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import type { Scheduler } from "../../bridge-kit/scheduler.js";
import { sanitizeInheritedChildProcessEnv } from "../../bridge-kit/child-env.js";
import { createIsolatedHome, type IsolatedHome } from "./agent-isolation.js";
import { type AcpAgentConnection, AcpAgentExitedError, AcpAgentTimeoutError, AcpClientReplyError, connectAcpAgent } from "../connection/connection.js";
import { selectAcpDialect } from "../dialects/index.js";
import { buildAgentEnv } from "./launch-args.js";
import { ACP_CLIENT_INFO, ACP_PROTOCOL_VERSION, PROBE_CLIENT_CAPABILITIES } from "../connection/acp-client.js";
import { isRecord } from "../../protocol/json-value.js";

/** Default probe timeout in ms (spec 30 §3.2). */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;
/** The method-not-found (-32601) message every agent→client request gets during a probe. */
export const PROBE_CLIENT_REQUEST_MESSAGE = "bb is probing this agent's capabilities";

/** Probe request: `{command, args, env?, cwd, timeoutMs?}` (spec 30 §3.2) plus the options below. */
export interface AcpProbeRequest {
  command: string;
  args: string[];
  /** Launch spec env; wins over the inherited env and the isolation variables. */
  env?: Record<string, string>;
  cwd: string;
  /** ms to wait for the `initialize` answer; default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** An explicit dialect id (`providerOptions.acpDialect`); absent → chosen by the command (spec 30 §1.2). */
  acpDialect?: string;
  /**
   * Run the agent in a fresh temp HOME/XDG tree, removed afterwards. Default: true exactly when
   * the dialect has offline switches (opencode).
   */
  isolateHome?: boolean;
  /** Parent directory of the isolated home; default `os.tmpdir()`. */
  tempDir?: string;
  /** The environment to inherit (sanitized); defaults to `process.env`. */
  inheritedEnv?: Record<string, string | undefined>;
  /**
   * After `initialize`, go on to `session/new` (in `cwd`, no MCP servers) and send this one
   * prompt (`parity probe --prompt`); the answer then carries `prompt` (the session id, the
   * agent's `stopReason` and its streamed message text). Each request waits `timeoutMs`.
   */
  prompt?: string;
  /** Injected for tests. */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  /** The `initialize` timeout and the kill grace run on it; default the real scheduler (tests pass a fake one). */
  scheduler?: Scheduler;
}

const objectOf = z.record(z.string(), z.unknown());

/**
 * `agentCapabilities` as the agent sent them: the ACP keys typed loosely (objects stay objects,
 * whatever their members), every vendor key kept.
 */
export const acpProbedCapabilitiesSchema = z.looseObject({
  loadSession: z.boolean().optional(),
  promptCapabilities: objectOf.optional(),
  sessionCapabilities: objectOf.optional(),
  mcpCapabilities: objectOf.optional(),
});

/** One `authMethods` entry as sent (`id` required by ACP; other keys kept). */
export const acpProbedAuthMethodSchema = z.looseObject({ id: z.string(), name: z.string().optional(), description: z.string().nullable().optional() });

/** How the probe ran the agent: isolated home or not, and the variables it added. */
export const acpProbeLaunchSchema = z.strictObject({
  /** The dialect the command (or the explicit id) selected. */
  dialect: z.string(),
  /** True when the agent ran in a temp HOME/XDG tree (removed afterwards). */
  isolatedHome: z.boolean(),
  /** Variables the probe added over the inherited env (offline switches, dialect child env). */
  addedEnv: z.record(z.string(), z.string()),
  /** How the agent's network was isolated, when the caller isolated it (`parity probe`: a network namespace). */
  network: z.string().optional(),
});

/** What one probe prompt came to (`AcpProbeRequest.prompt`): the session, how the turn ended, what the agent said. */
export const acpProbePromptSchema = z.union([z.strictObject({ sessionId: z.string(), stopReason: z.string(), text: z.string() }), z.strictObject({ failed: z.string() })]);

/**
 * Probe result (spec 30 §3.2 `acpAgentProbeSchema`): reachable with `fork` (`sessionCapabilities.fork`
 * present) and what the agent reported in its `initialize` answer, or unreachable with a reason.
 * Both shapes say how the agent was launched.
 */
export const acpAgentProbeSchema = z.union([
  z.strictObject({
    reachable: z.literal(true),
    fork: z.boolean(),
    protocolVersion: z.number().optional(),
    agentCapabilities: acpProbedCapabilitiesSchema,
    agentInfo: z.looseObject({ name: z.string().optional(), version: z.string().optional(), title: z.string().nullable().optional() }).optional(),
    authMethods: z.array(acpProbedAuthMethodSchema),
    launch: acpProbeLaunchSchema.optional(),
    prompt: acpProbePromptSchema.optional(),
  }),
  z.strictObject({ reachable: z.literal(false), reason: z.string(), launch: acpProbeLaunchSchema.optional() }),
]);
/** A probe result. */
export type AcpAgentProbe = z.infer<typeof acpAgentProbeSchema>;
/** What a probe prompt came to. */
export type AcpProbePrompt = z.infer<typeof acpProbePromptSchema>;
/** How a probe launched its agent. */
export type AcpProbeLaunch = z.infer<typeof acpProbeLaunchSchema>;

/** The reachable shape from an `initialize` result; malformed members are dropped, not invented. */
function readInitializeResult(result: unknown): Omit<Extract<AcpAgentProbe, { reachable: true }>, "launch"> {
  const r = isRecord(result) ? result : {};
  const parsedCaps = acpProbedCapabilitiesSchema.safeParse(r.agentCapabilities ?? {});
  const caps = parsedCaps.success ? parsedCaps.data : {};
  const sessionCaps = caps.sessionCapabilities ?? {};
  const info = isRecord(r.agentInfo) ? r.agentInfo : undefined;
  const authMethods = Array.isArray(r.authMethods)
    ? r.authMethods.flatMap((m) => {
        const parsed = acpProbedAuthMethodSchema.safeParse(m);
        return parsed.success ? [parsed.data] : [];
      })
    : [];
  return {
    reachable: true,
    fork: sessionCaps.fork !== undefined && sessionCaps.fork !== null,
    ...(typeof r.protocolVersion === "number" ? { protocolVersion: r.protocolVersion } : {}),
    agentCapabilities: caps,
    ...(info ? { agentInfo: info } : {}),
    authMethods,
  };
}

/** `session/new` then one `session/prompt`; a failure of either is reported, never thrown. */
async function promptOnce(connection: AcpAgentConnection, cwd: string, text: string, timeoutMs: number, said: string[]): Promise<AcpProbePrompt> {
  try {
    const session = await connection.request("session/new", { cwd, mcpServers: [] }, { timeoutMs });
    const sessionId = isRecord(session) && typeof session.sessionId === "string" ? session.sessionId : undefined;
    if (sessionId === undefined) return { failed: "session/new answered without a sessionId" };
    const turn = await connection.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, { timeoutMs });
    const stopReason = isRecord(turn) && typeof turn.stopReason === "string" ? turn.stopReason : "(none)";
    return { sessionId, stopReason, text: said.join("") };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Spawns the agent (not recorded) in `cwd`, sends `initialize` (protocol 1, clientInfo bb/1.0.0,
 * fs true, terminal false) and reports `{reachable:true, fork, protocolVersion, agentCapabilities,
 * agentInfo, authMethods, launch}` or `{reachable:false, reason, launch}`: "the agent did not answer
 * initialize within <ms>ms", "the agent exited before it answered initialize: …", or the error.
 * Env = sanitized inherited env, overlaid by the isolated home and the dialect's offline switches
 * (when isolating), the spec env, then the dialect child env (as the bridge launches it, spec 30
 * §6.5). The agent is killed and the isolated home removed before this resolves.
 */
export async function probeAcpAgent(request: AcpProbeRequest): Promise<AcpAgentProbe> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const dialect = selectAcpDialect({ explicit: request.acpDialect, command: request.command });
  const offline = dialect.offlineEnv;
  const isolate = request.isolateHome ?? offline !== undefined;
  let home: IsolatedHome | undefined;
  try {
    home = isolate ? await createIsolatedHome(request.tempDir ?? tmpdir(), "acp-probe-home-") : undefined;
  } catch (error) {
    const launch: AcpProbeLaunch = { dialect: dialect.id, isolatedHome: false, addedEnv: {} };
    return { reachable: false, reason: `cannot create an isolated home: ${error instanceof Error ? error.message : String(error)}`, launch };
  }
  const addedEnv: Record<string, string> = { ...(home ? { ...home.env, ...offline } : {}), ...dialect.childEnv };
  const launch: AcpProbeLaunch = { dialect: dialect.id, isolatedHome: home !== undefined, addedEnv };
  const env = buildAgentEnv({
    inherited: { ...(request.inheritedEnv ?? process.env), ...(home ? { ...home.env, ...offline } : {}) },
    sanitize: (e) => sanitizeInheritedChildProcessEnv({ env: e }),
    specEnv: request.env ?? {},
    extra: dialect.childEnv,
  });
  const label = [request.command, ...request.args].join(" ");
  const said: string[] = [];
  const connection = connectAcpAgent({
    launch: { command: request.command, args: request.args, env, cwd: request.cwd },
    label,
    ...(request.spawn ? { spawn: request.spawn } : {}),
    ...(request.scheduler ? { scheduler: request.scheduler } : {}),
    onNotification: (method, params) => {
      const update = isRecord(params) && isRecord(params.update) ? params.update : undefined;
      if (method === "session/update" && update?.sessionUpdate === "agent_message_chunk" && isRecord(update.content) && typeof update.content.text === "string") said.push(update.content.text);
    },
    onRequest: async () => {
      throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.methodNotFound, PROBE_CLIENT_REQUEST_MESSAGE);
    },
    onExit: () => {},
  });
  try {
    const result = await connection.request("initialize", { protocolVersion: ACP_PROTOCOL_VERSION, clientInfo: ACP_CLIENT_INFO, clientCapabilities: PROBE_CLIENT_CAPABILITIES }, { timeoutMs });
    const answer = { ...readInitializeResult(result), launch };
    if (request.prompt === undefined) return answer;
    return { ...answer, prompt: await promptOnce(connection, request.cwd, request.prompt, timeoutMs, said) };
  } catch (error) {
    if (error instanceof AcpAgentTimeoutError) return { reachable: false, reason: `the agent did not answer initialize within ${timeoutMs}ms`, launch };
    if (error instanceof AcpAgentExitedError) {
      if (error.exit.reason === "spawn-error") return { reachable: false, reason: error.message, launch };
      return { reachable: false, reason: `the agent exited before it answered initialize: ${error.message}`, launch };
    }
    return { reachable: false, reason: error instanceof Error ? error.message : String(error), launch };
  } finally {
    await connection.kill();
    await home?.dispose();
  }
}
