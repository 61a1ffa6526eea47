import { jsonRpcIdKey, jsonRpcKindOf, type JsonRpcId } from "../../../stack/protocol/json-rpc.js";

/**
 * What the replay scheduler needs to know about one wire line (spec 10 §5.2, "Dialects",
 * json-rpc column): its JSON-RPC kind, the method (requests and notifications), the id
 * (requests and responses) and the id's key (`typeof(id):id`). A line that is not a valid
 * JSON-RPC message is `invalid`; it is written raw as an input and can only be matched
 * byte-for-byte as an expectation.
 */
export interface WireShape {
  kind: "request" | "notification" | "response" | "invalid";
  /** Method of a request or notification; `undefined` otherwise. */
  method: string | undefined;
  /** Id of a request or response; `undefined` otherwise. */
  id: JsonRpcId | undefined;
  /** `typeof(id):id` of {@link id}, or `undefined`. */
  idKey: string | undefined;
  /**
   * For a `thread/delta` notification, the `kind` of each delta in order (spec 10 §1.3);
   * `undefined` for every other line. Lets a replay tell a bridge's extra delta (say an
   * `extension.state` a newer bridge adds) from the one the recording expects, without
   * comparing bytes.
   */
  deltaKinds: readonly string[] | undefined;
}

function deltaKindsOf(params: unknown): string[] | undefined {
  const deltas = (params as { deltas?: unknown } | undefined)?.deltas;
  if (!Array.isArray(deltas)) return undefined;
  return deltas.map((d) => String((d as { kind?: unknown } | null)?.kind ?? "?"));
}

const INVALID: WireShape = { kind: "invalid", method: undefined, id: undefined, idKey: undefined, deltaKinds: undefined };

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || typeof value === "number";
}

/**
 * Classifies one line (spec 10 §1.1: told apart by `method` and `id`, never by result
 * shape). The same decision as `classifyJsonRpcMessage`, made on the parsed object without
 * building a validated copy: a replay classifies every line of a recording and every live
 * line, and only the shape matters here (the bridge's own code validates content). A line
 * without `jsonrpc` is classified the same way: `codex app-server` leaves the field out of every
 * line (spec 60 "Codex"); a `jsonrpc` other than "2.0" is invalid. Never throws.
 */
export function shapeOfLine(line: string): WireShape {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return INVALID;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return INVALID;
  const message = value as Record<string, unknown> & { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (message.jsonrpc !== "2.0" && message.jsonrpc !== undefined) return INVALID;
  const kind = jsonRpcKindOf(message);
  if (kind === "request" || kind === "notification") {
    if (typeof message.method !== "string") return INVALID;
    if (kind === "request") {
      if (!isId(message.id)) return INVALID;
      return { kind: "request", method: message.method, id: message.id, idKey: jsonRpcIdKey(message.id), deltaKinds: undefined };
    }
    const deltaKinds = message.method === "thread/delta" ? deltaKindsOf(message.params) : undefined;
    return { kind: "notification", method: message.method, id: undefined, idKey: undefined, deltaKinds };
  }
  if (!isId(message.id) || "result" in message === "error" in message) return INVALID;
  return { kind: "response", method: undefined, id: message.id, idKey: jsonRpcIdKey(message.id), deltaKinds: undefined };
}

/** A short human label of a line for divergence reports: `request session/new (id 2)`. */
export function describeShape(shape: WireShape): string {
  switch (shape.kind) {
    case "request":
      return `request ${shape.method} (id ${String(shape.id)})`;
    case "notification":
      return shape.deltaKinds ? `notification ${shape.method} [${shape.deltaKinds.join(", ")}]` : `notification ${shape.method}`;
    case "response":
      return `response (id ${String(shape.id)})`;
    default:
      return "a non-JSON-RPC line";
  }
}

/**
 * Replaces the `id` of a JSON-RPC line and re-serializes it. Used to give a recorded
 * response the live id of the request it answers, and to map live request ids back to
 * recorded ones (spec 10 §5.1–5.2, §6.6 step 3). Returns the line unchanged when it is not
 * a JSON object.
 */
export function withId(line: string, id: JsonRpcId): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return line;
  return JSON.stringify({ ...(value as Record<string, unknown>), id });
}

/**
 * The generic answer to a request nothing recorded can answer (spec 10 §5.2, "generic
 * answer", json-rpc): `{"jsonrpc":"2.0","id":<id>,"result":{}}`.
 */
export function genericAnswer(id: JsonRpcId): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: {} });
}
