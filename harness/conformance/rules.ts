/**
 * The scripted conformance rules (spec 10 §7, plus two of this product's own) and their
 * results. The order of {@link CONFORMANCE_RULES} is the order of a report.
 */

/** Outcome of one rule (spec 10 §7: `pass|fail|skipped`). */
export type ConformanceStatus = "pass" | "fail" | "skipped";

/** One rule's result: `{id, title, status, detail}` (spec 10 §7). `detail` is "" on a plain pass. */
export interface ConformanceResult {
  id: ConformanceRuleId;
  title: string;
  status: ConformanceStatus;
  detail: string;
}

/** Every rule id with its one-line title. */
export const CONFORMANCE_RULES = {
  "rpc/unknown-method": "an unknown method is answered with -32601",
  "rpc/invalid-params": "thread/stop {} is answered with -32602",
  "rpc/non-json-ignored": "a non-JSON line is ignored and the bridge still answers",
  "rpc/response-not-request": "an unsolicited response is not treated as a request",
  "handshake/initialize": "initialize answers protocol 2 and a grammar range that negotiates with [3,3]",
  "session/start-identity": "thread/start returns a providerThreadId",
  "turn/lifecycle": "turn/start yields turn/started, then turn/completed",
  "events/schema-valid": "every thread/delta and every assembled event is schema-valid",
  "item/opens-before-delta": "no item delta or progress before its item opened",
  "stop/release-not-interrupted": "a release stop answers without interrupting anything",
  "session/resume-id-uniqueness": "after thread/resume a new turn completes and no turn or item id repeats",
  "turn/settles-without-activity": "a zero-work prompt still yields turn/completed",
  "stop/interrupt-settles-before-answer": "an interrupt stop settles the turn before it is answered",
  "session/provider-thread-id-not-counter": "two bridge processes never hand out the same providerThreadId",
} as const;

/** A conformance rule id. */
export type ConformanceRuleId = keyof typeof CONFORMANCE_RULES;

/** Rule ids in report order. */
export const CONFORMANCE_RULE_IDS = Object.keys(CONFORMANCE_RULES) as ConformanceRuleId[];

/** Builds a result for `id` with its title. */
export function result(id: ConformanceRuleId, status: ConformanceStatus, detail = ""): ConformanceResult {
  return { id, title: CONFORMANCE_RULES[id], status, detail };
}

/** A finished conformance run: passes only when every result passes (spec 10 §7). */
export interface ConformanceReport {
  /** Name of the bridge (transport) that was checked. */
  bridge: string;
  /** True when every result is `pass`. */
  passed: boolean;
  /** Results in {@link CONFORMANCE_RULE_IDS} order; rules that do not apply are absent. */
  results: ConformanceResult[];
  /**
   * Rules that were not run because the fixture gave them no input (status `skipped`, detail
   * the reason), in {@link CONFORMANCE_RULE_IDS} order. Spec 10 §7 gives such a rule "no result
   * at all", so they are not in `results` and never fail the report; they are listed so a
   * summary can count them as skipped instead of hiding them.
   */
  notRun: ConformanceResult[];
}

const byRuleOrder = (a: ConformanceResult, b: ConformanceResult) => CONFORMANCE_RULE_IDS.indexOf(a.id) - CONFORMANCE_RULE_IDS.indexOf(b.id);

/** Orders results (and the rules not run) by {@link CONFORMANCE_RULE_IDS} and computes `passed` from `results` only. */
export function buildReport(bridge: string, results: ConformanceResult[], notRun: ConformanceResult[] = []): ConformanceReport {
  const ordered = [...results].sort(byRuleOrder);
  return { bridge, passed: ordered.length > 0 && ordered.every((r) => r.status === "pass"), results: ordered, notRun: [...notRun].sort(byRuleOrder) };
}
