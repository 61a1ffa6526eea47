/**
 * The errors of an ACP agent connection (see connection.ts): the agent answered with an error,
 * the agent is gone, a request timed out, and the error a client-request handler throws to
 * answer with a JSON-RPC error.
 */
import type { AgentExitInfo } from "./agent-exit.js";

function describeErrorData(data: unknown): string {
  if (data === undefined || data === null) return "";
  if (typeof data === "string") return data ? `: ${data}` : "";
  if (typeof data === "object" && typeof (data as { details?: unknown }).details === "string") {
    // The other keys (claude's `transcriptPath`) say where to look next: kept beside the details.
    const { details, ...rest } = data as { details: string };
    return Object.keys(rest).length > 0 ? `: ${details} ${JSON.stringify(rest)}` : `: ${details}`;
  }
  return `: ${JSON.stringify(data)}`;
}

/** An agent replied to one of our requests with a JSON-RPC error. `message` includes `: <details>` from `error.data`. */
export class AcpAgentRequestError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly method: string;
  /** The agent's own `error.message`, without details. */
  readonly agentMessage: string;
  constructor(method: string, code: number, agentMessage: string, data: unknown) {
    super(agentMessage + describeErrorData(data));
    this.name = "AcpAgentRequestError";
    this.code = code;
    this.data = data;
    this.method = method;
    this.agentMessage = agentMessage;
  }
}

/** The agent ended (or never started) while a request was pending, or a request was made after it ended. */
export class AcpAgentExitedError extends Error {
  readonly exit: AgentExitInfo;
  constructor(exit: AgentExitInfo) {
    super(exit.message);
    this.name = "AcpAgentExitedError";
    this.exit = exit;
  }
}

/** A request to the agent timed out; the message says which and after how long. */
export class AcpAgentTimeoutError extends Error {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(label: string, method: string, timeoutMs: number) {
    super(`ACP agent "${label}" did not answer ${method} within ${timeoutMs}ms`);
    this.name = "AcpAgentTimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * ACP's own "Resource not found" error code (the ACP SDK's `RequestError.resourceNotFound`, with
 * `data.uri`): the answer to `fs/read_text_file` for a file that does not exist.
 */
export const ACP_RESOURCE_NOT_FOUND = -32002;

/** Thrown by an agent→client request handler to reply with a JSON-RPC error instead of a result. */
export class AcpClientReplyError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "AcpClientReplyError";
    this.code = code;
    this.data = data;
  }
}
