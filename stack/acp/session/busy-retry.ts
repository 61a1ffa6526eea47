/**
 * Busy retry (spec 30 §6.2): a prompt rejected with `ACP_AGENT_ERRORS.sessionBusy` (-32003) and `data.reason:"session_busy"` is sent
 * again, up to {@link BUSY_RETRY_LIMIT} times, each once the agent has gone quiet (no new updates
 * between two polls and no unfinished tool calls). It gives up on stop, exit or cancel, and after
 * `busyRetryMaxWaitMs`.
 */
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { AcpAgentRequestError } from "../connection/connection.js";
import { ACP_AGENT_ERRORS } from "../connection/acp-client.js";
import type { AcpSession, PromptRun } from "../state/session.js";

/** Most re-sends of one prompt. */
export const BUSY_RETRY_LIMIT = 3;

/** True for the agent's "session busy" rejection of a prompt. */
export function isSessionBusyError(error: unknown): boolean {
  if (!(error instanceof AcpAgentRequestError) || error.code !== ACP_AGENT_ERRORS.sessionBusy) return false;
  const data = error.data as { reason?: unknown } | null | undefined;
  return !!data && typeof data === "object" && data.reason === "session_busy";
}

/**
 * Resolves true once the agent is quiet, false when the run stopped mattering (stop, exit, cancel,
 * run replaced) or the wait passed `busyRetryMaxWaitMs`. Polls every `busyRetryPollMs`.
 */
export function waitForAgentQuiet(rt: AcpBridgeRuntime, session: AcpSession, run: PromptRun): Promise<boolean> {
  const { busyRetryPollMs, busyRetryMaxWaitMs, scheduler } = rt.options;
  let waited = 0;
  let lastSeen = session.translator.activity().lastUpdateAt;
  return new Promise((resolve) => {
    const poll = (): void => {
      if (session.prompt !== run || run.done || session.phase === "stopping" || run.cancelling || session.connection.exitInfo() !== null) return resolve(false);
      const activity = session.translator.activity();
      if (activity.lastUpdateAt === lastSeen && activity.openToolCount === 0) return resolve(true);
      lastSeen = activity.lastUpdateAt;
      waited += busyRetryPollMs;
      if (waited >= busyRetryMaxWaitMs) return resolve(false);
      scheduler.schedule(busyRetryPollMs, poll);
    };
    scheduler.schedule(busyRetryPollMs, poll);
  });
}
