/**
 * The fixture agent's side of the JSON-RPC wire: results and errors (with the script's choice of
 * string ids), `session/update` notifications, and its own requests to the client, whose answers
 * settle through the shared pending-request core. Outbound ids start at 0, as Cursor's do.
 */
import { PendingRequests } from "../../bridge-kit/json-rpc-endpoint.js";
import type { JsonRpcId } from "../../protocol/json-rpc.js";
import type { FixtureScript } from "./script.js";

/** The client's answer to one of the agent's requests, as it came. */
export interface ClientAnswer {
  result?: unknown;
  error?: unknown;
}

/** Writes the fixture agent's messages, one JSON line each. */
export class FixtureWire {
  private readonly outbound = new PendingRequests<ClientAnswer, never>({ firstId: 0 });

  constructor(
    private readonly script: FixtureScript,
    private readonly write: (line: string) => void,
  ) {}

  send(message: object): void {
    this.write(JSON.stringify(message));
  }

  private answerId(id: JsonRpcId): JsonRpcId {
    return this.script.stringResponseIds ? String(id) : id;
  }

  result(id: JsonRpcId, value: unknown): void {
    this.send({ jsonrpc: "2.0", id: this.answerId(id), result: value });
  }

  error(id: JsonRpcId, code: number, message: string, data?: unknown): void {
    this.send({ jsonrpc: "2.0", id: this.answerId(id), error: { code, message, ...(data !== undefined ? { data } : {}) } });
  }

  update(sessionId: string, value: Record<string, unknown>): void {
    this.send({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: value } });
  }

  /** Sends a request to the client; resolves with its answer (never rejects: the agent has no timeouts). */
  request(method: string, params: unknown): Promise<ClientAnswer> {
    const id = this.outbound.nextId();
    return new Promise((resolve) => {
      this.outbound.wait(id, { answered: resolve, closed: () => undefined, timedOut: () => undefined });
      this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  /** Hands the client's answer to the request it names; an unknown id is ignored. */
  acceptAnswer(id: JsonRpcId, answer: ClientAnswer): void {
    this.outbound.answer(id, answer);
  }
}
