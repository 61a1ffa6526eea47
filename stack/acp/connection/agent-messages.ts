/**
 * What the connection makes of one line an ACP agent wrote (see connection.ts): a request of
 * the agent is served and answered exactly once, a notification passed on, a response settles
 * the bridge's pending request it names; anything else is noted and ignored (spec 20 §2.2).
 */
import { answerRequestOnce, type PendingRequests } from "../../bridge-kit/json-rpc-endpoint.js";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { isRecord } from "../../protocol/json-value.js";
import type { AgentExitInfo } from "./agent-exit.js";
import { AcpClientReplyError } from "./errors.js";

/** An agent's response as the connection reads it: lenient, since agents differ. */
export interface AgentResponse {
  id: unknown;
  result?: unknown;
  error?: unknown;
}

/** Where the lines of one agent go. */
export interface AgentMessageTarget {
  /** Agent label for notes. */
  label: string;
  pending: PendingRequests<AgentResponse, AgentExitInfo>;
  onNotification(method: string, params: unknown): void;
  /** Serves one agent request; `answerWritten` settles once its answer was written (or dropped). */
  onRequest(method: string, params: unknown, answerWritten: Promise<void>): Promise<unknown>;
  note(text: string): void;
  /** Writes one message to the agent's stdin (dropped once the connection ended). */
  write(message: object): void;
}

/**
 * The request id a response names. The bridge's ids are whole numbers; an agent that echoes one
 * as a string (`"3"` for `3`, seen in public ACP threads) still answers that request, so a string
 * holding exactly a whole number's decimal form matches it. Anything else matches nothing.
 */
export function responseId(id: unknown): number | undefined {
  if (typeof id === "number") return id;
  if (typeof id === "string" && /^(0|[1-9][0-9]{0,15})$/.test(id)) return Number(id);
  return undefined;
}

/** Serves an agent→client request; the handler's throw becomes the one error answer. */
function serveAgentRequest(target: AgentMessageTarget, id: string | number, method: string, params: unknown): void {
  let written!: () => void;
  const answerWritten = new Promise<void>((resolve) => (written = resolve));
  answerRequestOnce(
    id,
    () => target.onRequest(method, params, answerWritten),
    (response) => target.write(response),
    (error) =>
      error instanceof AcpClientReplyError
        ? { code: error.code, message: error.message, data: error.data }
        : { code: BRIDGE_JSON_RPC_ERRORS.internalError, message: error instanceof Error ? error.message : String(error) },
  ).then(written, written);
}

/** Settles the bridge's pending request a response names, or notes why it cannot. */
function acceptResponse(target: AgentMessageTarget, message: AgentResponse): void {
  const { label, note } = target;
  const id = responseId(message.id);
  if (id === undefined || !target.pending.has(id)) {
    note(`ACP agent "${label}" answered request ${JSON.stringify(message.id)}, which is not pending (answered twice or never sent); ignored`);
    return;
  }
  if (typeof message.id === "string") note(`ACP agent "${label}" answered request ${id} with the string id ${JSON.stringify(message.id)}; matched it to the request`);
  target.pending.answer(id, message);
}

/** Handles one stdout line of the agent. */
export function handleAgentLine(target: AgentMessageTarget, line: string): void {
  const { label, note } = target;
  if (line.trim() === "") return;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    note(`ACP agent "${label}" wrote a non-JSON stdout line (ignored): ${line.slice(0, 200)}`);
    return;
  }
  if (!isRecord(message)) {
    note(`ACP agent "${label}" wrote a non-object JSON line (ignored)`);
    return;
  }
  const hasId = typeof message.id === "string" || typeof message.id === "number";
  if (typeof message.method === "string") {
    if (hasId) serveAgentRequest(target, message.id as string | number, message.method, message.params);
    else target.onNotification(message.method, message.params);
    return;
  }
  if (!hasId) {
    note(`ACP agent "${label}" wrote a message with neither method nor id (ignored)`);
    return;
  }
  acceptResponse(target, message as unknown as AgentResponse);
}
