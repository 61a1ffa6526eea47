/**
 * The sessions of one bridge process, by runtime thread (spec 20 §1.2 thread and turn requests),
 * and where a session's CLI comes from: `options.providerOptions.claudeCodeLaunch` (the launch
 * spec `parity record` and the replay write), else `claude` on the PATH.
 */
import { announceSession, inputText, noActiveTurnError, SessionTable, turnActiveError, type BridgeSessions } from "../bridge-kit/session-bridge.js";
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../protocol/errors.js";
import { isRecord } from "../protocol/json-value.js";
import type { ExecutionOptions, ThreadStartParams } from "../protocol/methods.js";
import type { ClaudeCodeLaunch } from "./cli-process.js";
import { openClaudeSession, type ClaudeSession, type SessionDeps } from "./session.js";

/** Where a request's execution options carry the CLI launch. */
export const LAUNCH_OPTION = "claudeCodeLaunch";

/** The launch when none is given: the `claude` on the PATH. */
export const DEFAULT_LAUNCH: ClaudeCodeLaunch = { command: "claude", args: [] };

/** Returns `bytes` random bytes; injected so tests choose the session ids. */
export type Entropy = (bytes: number) => Uint8Array;

/** A version-4 UUID from 16 bytes of entropy (Claude Code's `--session-id` takes only a UUID). */
export function uuidFrom(bytes: Uint8Array): string {
  const b = [...bytes.slice(0, 16)];
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The launch in execution options, or {@link DEFAULT_LAUNCH}. */
export function launchOf(options: ExecutionOptions | undefined): ClaudeCodeLaunch {
  const launch = options?.providerOptions?.[LAUNCH_OPTION];
  if (launch === undefined) return DEFAULT_LAUNCH;
  if (!isRecord(launch) || typeof launch.command !== "string" || (launch.args !== undefined && !Array.isArray(launch.args))) {
    throw new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.invalidParams, `options.providerOptions.${LAUNCH_OPTION} must be {command, args?, env?, cwd?}`);
  }
  const env = isRecord(launch.env) ? (Object.fromEntries(Object.entries(launch.env).filter(([, v]) => typeof v === "string")) as Record<string, string>) : undefined;
  return {
    command: launch.command,
    args: (launch.args ?? []).map(String),
    ...(env ? { env } : {}),
    ...(typeof launch.cwd === "string" ? { cwd: launch.cwd } : {}),
  };
}

/** Creates the sessions of one bridge process. */
export function createClaudeSessions(deps: SessionDeps, entropy: Entropy): BridgeSessions {
  const sessions = new SessionTable<ClaudeSession>("Claude Code");

  const end = (threadId: string) => sessions.take(threadId)?.close();

  const open = async (params: ThreadStartParams, providerThreadId: string, resume: boolean) => {
    end(params.threadId);
    const options = params.options;
    const session = openClaudeSession(
      {
        threadId: params.threadId,
        providerThreadId,
        resume,
        cwd: params.cwd,
        launch: launchOf(options),
        ...(options?.model ? { model: options.model } : {}),
        ...(options?.permissionMode ? { permissionMode: options.permissionMode } : {}),
      },
      deps,
    );
    sessions.set(params.threadId, session);
    await session.initialize();
    return announceSession(deps.io, params.threadId, providerThreadId);
  };

  return {
    start: (params) => open(params, uuidFrom(entropy(16)), false),
    resume: (params) => open(params, params.providerThreadId, true),
    async startTurn(params, reply) {
      const session = sessions.sessionOf(params.threadId);
      if (session.busy) throw turnActiveError();
      await session.startTurn(inputText(params.input), params.clientRequestId, params.options?.permissionMode, () => reply({ threadId: params.threadId }));
    },
    steer(params, reply) {
      const session = sessions.sessionOf(params.threadId);
      if (!session.busy) throw noActiveTurnError();
      session.steer(inputText(params.input), params.clientRequestId, () => reply({ threadId: params.threadId }));
    },
    // `interrupt` settles the running turn first; either way the session's CLI ends.
    async stop(params, reply) {
      const session = sessions.get(params.threadId);
      if (session && params.intent === "interrupt") await session.interrupt();
      end(params.threadId);
      reply({ ok: true });
    },
    async closeAll() {
      await Promise.all(
        sessions.entries().map(async ([threadId, session]) => {
          await session.interrupt();
          end(threadId);
        }),
      );
    },
  };
}
