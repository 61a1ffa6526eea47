/**
 * Where a recorded line goes (spec 10 §4 "Routing"): the thread scope of its
 * `params.threadId`, the scope its request had for a response, else `_process`.
 */
import { jsonRpcIdKey } from "../protocol/json-rpc.js";

/** The four lanes of a recording, in the order spec 10 §4 lists them; also the file names. */
export const RECORD_DIRECTIONS = ["runtime→bridge", "bridge→runtime", "provider→bridge", "bridge→provider"] as const;
/** One lane direction. */
export type RecordDirection = (typeof RECORD_DIRECTIONS)[number];

/** The scope of lines that belong to no thread (initialize, model/list, their children). */
export const PROCESS_SCOPE = "_process";

const OPPOSITE: Readonly<Record<RecordDirection, RecordDirection>> = {
  "runtime→bridge": "bridge→runtime",
  "bridge→runtime": "runtime→bridge",
  "provider→bridge": "bridge→provider",
  "bridge→provider": "provider→bridge",
};

/**
 * The scope directory of a thread id (spec 10 §4): every run of characters outside
 * `[A-Za-z0-9_.-]` becomes `-`; an empty result or one starting with `_` gets a `t-` prefix
 * (so no thread can land in `_process`).
 */
export function scopeForThreadId(threadId: string): string {
  const cleaned = threadId.replace(/[^A-Za-z0-9_.-]+/g, "-");
  return cleaned === "" || cleaned.startsWith("_") ? `t-${cleaned}` : cleaned;
}

/** Routes runtime-wire lines to scopes, remembering request scopes per direction. */
export interface ScopeRouter {
  /** The scope of one raw line crossing in `direction`. Non-JSON lines go to `_process`. */
  route(direction: RecordDirection, line: string): string;
}

/**
 * Creates a router (one per recorder). A request (id and method) remembers its scope under
 * its direction keyed by `typeof(id):id`; a response (id, no method) takes, and forgets, the
 * scope of the matching request of the opposite direction. That is why the runtime's answer
 * to an `interaction/request` lands in the thread's `runtime→bridge` lane.
 */
export function createScopeRouter(): ScopeRouter {
  const requestScopes: Record<RecordDirection, Map<string, string>> = {
    "runtime→bridge": new Map(),
    "bridge→runtime": new Map(),
    "provider→bridge": new Map(),
    "bridge→provider": new Map(),
  };
  return {
    route(direction, line) {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return PROCESS_SCOPE;
      }
      if (typeof message !== "object" || message === null || Array.isArray(message)) return PROCESS_SCOPE;
      const record = message as Record<string, unknown>;
      const params = record.params;
      const threadId = typeof params === "object" && params !== null && typeof (params as { threadId?: unknown }).threadId === "string" ? (params as { threadId: string }).threadId : undefined;
      const id = record.id;
      const hasId = typeof id === "string" || typeof id === "number";
      const scope = threadId !== undefined ? scopeForThreadId(threadId) : undefined;
      if (typeof record.method === "string") {
        const resolved = scope ?? PROCESS_SCOPE;
        if (hasId) requestScopes[direction].set(jsonRpcIdKey(id), resolved);
        return resolved;
      }
      if (hasId) {
        const requests = requestScopes[OPPOSITE[direction]];
        const key = jsonRpcIdKey(id);
        const inherited = requests.get(key);
        if (inherited !== undefined) {
          requests.delete(key);
          return inherited;
        }
      }
      return scope ?? PROCESS_SCOPE;
    },
  };
}
