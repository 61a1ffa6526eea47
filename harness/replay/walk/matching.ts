import type { ReplayStep } from "../plan/plan.js";
import type { WireShape } from "../plan/wire.js";

/**
 * How closely a live line fits a recorded expectation (docs/design/00-product.md flow 2: matched by
 * method for requests and notifications, by id for responses, never by bytes):
 * 2 = same kind and method (a `thread/delta` also with the same delta kinds, spec 10 §1.3),
 * or same id for a response, or the same bytes for a line that is not JSON-RPC;
 * 1 = a `thread/delta` sharing at least one delta kind; 0 = no fit.
 */
export function fitOf(step: ReplayStep, shape: WireShape, line: string): 0 | 1 | 2 {
  if (step.shape.kind !== shape.kind) return 0;
  if (shape.kind === "request") return step.shape.method === shape.method ? 2 : 0;
  if (shape.kind === "response") return step.shape.idKey === shape.idKey ? 2 : 0;
  if (shape.kind === "invalid") return step.entry.line === line ? 2 : 0;
  if (step.shape.method !== shape.method) return 0;
  const want = step.shape.deltaKinds;
  const got = shape.deltaKinds;
  if (!want || !got) return 2;
  if (want.length === got.length && want.every((k, i) => k === got[i])) return 2;
  return got.some((k) => want.includes(k)) ? 1 : 0;
}
