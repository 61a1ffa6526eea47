/**
 * Pure mapping between ACP permission options and bb approval decisions (spec 20 §3.8 steps 2–4).
 */
import * as z from "zod";

/** One ACP `PermissionOption`: `{optionId, name?, kind}`. */
export const AcpPermissionOptionSchema = z.looseObject({
  optionId: z.string().min(1),
  name: z.string().optional(),
  kind: z.string(),
});
/** One ACP permission option. */
export type AcpPermissionOption = z.infer<typeof AcpPermissionOptionSchema>;

/** Params of `session/request_permission`: `{sessionId, toolCall?, options[]}`. */
export const AcpPermissionRequestSchema = z.looseObject({
  sessionId: z.string(),
  toolCall: z.looseObject({ toolCallId: z.string().optional() }).nullish(),
  options: z.array(AcpPermissionOptionSchema),
});
/** Params of `session/request_permission`. */
export type AcpPermissionRequest = z.infer<typeof AcpPermissionRequestSchema>;

/** bb approval decisions. */
export type ApprovalDecision = "allow_once" | "allow_for_session" | "deny";

/** The ACP `RequestPermissionOutcome` the bridge answers with. */
export type AcpPermissionOutcome = { outcome: { outcome: "cancelled" } } | { outcome: { outcome: "selected"; optionId: string } };

/** The `cancelled` outcome. */
export const CANCELLED_PERMISSION: AcpPermissionOutcome = { outcome: { outcome: "cancelled" } };

const byKind = (options: ReadonlyArray<AcpPermissionOption>, kind: string): AcpPermissionOption | undefined => options.find((option) => option.kind === kind);

/**
 * `availableDecisions` (spec 20 §3.8 step 3): `allow_once` if an `allow_once` option exists,
 * `allow_for_session` if `allow_always` exists, `deny` if any `reject_*` exists; empty → `["deny"]`.
 */
export function availableDecisions(options: ReadonlyArray<AcpPermissionOption>): ApprovalDecision[] {
  const out: ApprovalDecision[] = [];
  if (byKind(options, "allow_once")) out.push("allow_once");
  if (byKind(options, "allow_always")) out.push("allow_for_session");
  if (options.some((option) => option.kind.startsWith("reject_"))) out.push("deny");
  return out.length ? out : ["deny"];
}

/**
 * The option a `full`-mode session picks locally: `allow_once`, else `allow_always`
 * (spec 20 §3.8 step 2); `undefined` when the agent offers neither.
 */
export function localFullModeOption(options: ReadonlyArray<AcpPermissionOption>): AcpPermissionOption | undefined {
  return byKind(options, "allow_once") ?? byKind(options, "allow_always");
}

/** Words of an option that ends the agent's turn as well as refusing the call ("No, and stop"). */
const STOPPING_OPTION = /\b(stop|abort|halt|end|quit|exit|interrupt)\b/i;

/**
 * The option of `kind` a runtime `deny` picks: a runtime deny refuses this one call and lets the
 * agent go on, so among several options of the kind the first whose name and id do not say it also
 * stops the agent wins (an agent offering "No, and stop" beside "No, continue"); else the first.
 */
function continuingReject(options: ReadonlyArray<AcpPermissionOption>, kind: string): AcpPermissionOption | undefined {
  const ofKind = options.filter((option) => option.kind === kind);
  return ofKind.find((option) => !STOPPING_OPTION.test(`${option.name ?? ""} ${option.optionId.replace(/[-_]/g, " ")}`)) ?? ofKind[0];
}

/**
 * Maps a runtime reply to an outcome (spec 20 §3.8 step 4): `allow_once` → `allow_once` else
 * `allow_always`; `allow_for_session` → `allow_always` else `allow_once`; `deny` → `reject_once`
 * else `reject_always` (the one that lets the agent continue when there are several); anything else, or no matching option → `cancelled`.
 */
export function outcomeForDecision(decision: unknown, options: ReadonlyArray<AcpPermissionOption>): AcpPermissionOutcome {
  let option: AcpPermissionOption | undefined;
  if (decision === "allow_once") option = byKind(options, "allow_once") ?? byKind(options, "allow_always");
  else if (decision === "allow_for_session") option = byKind(options, "allow_always") ?? byKind(options, "allow_once");
  else if (decision === "deny") option = continuingReject(options, "reject_once") ?? continuingReject(options, "reject_always");
  return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : CANCELLED_PERMISSION;
}
