/**
 * One Codex thread's notifications → grammar-v3 deltas (spec 60 "Mapping onto a thread";
 * spec 10 §1.3). The translator keeps what the wire leaves implicit: which items are open and
 * the text they streamed (an interrupted turn leaves its agentMessage open: the bridge closes
 * it), what the runtime answered to Codex's approval requests (the call's close says
 * `approvalStatus` "approved" or "denied"), and the turn's plan. No I/O, no clock.
 */
import { ApprovalLedger } from "../bridge-kit/approval-ledger.js";
import type { ThreadDelta, ThreadDeltaKey } from "../protocol/thread-delta.js";
import { isJsonValue, type ErrorCategory, type TurnStatus } from "../protocol/thread-delta-blocks.js";
import { itemShape, SKIPPED_ITEM_TYPES, terminalStatus, TEXT_ITEM_TYPES, textShape } from "./items.js";
import {
  ErrorNotificationSchema,
  ItemDeltaSchema,
  ItemNotificationSchema,
  ModelReroutedSchema,
  ThreadNameSchema,
  TokenUsageNotificationSchema,
  TurnDiffSchema,
  TurnNotificationSchema,
  TurnPlanSchema,
  WarningSchema,
  type ThreadItem,
  type TurnError,
} from "./wire.js";

/**
 * An open item: its wire item, the text streamed into it, and whether its `item.open` was sent
 * (an agentMessage opens on its first text: Codex starts one even when the model answers "").
 */
interface OpenItem {
  item: ThreadItem;
  text: string;
  summary: string;
  surfaced: boolean;
  /** An output delta of this item reached the thread (`item/commandExecution/outputDelta`). */
  streamed?: boolean;
  /** The output its deltas streamed, in order. */
  output?: string;
}

/**
 * True for an item whose `item.open` waits for its first text: Codex sends `item/started` and
 * `item/completed` for an agentMessage with empty text when the model answers "" (recordings/codex/
 * zero-work), and a bridge never surfaces an empty message (the rule stack/acp applies to empty chunks).
 */
const opensOnText = (item: ThreadItem): boolean => item.type === "agentMessage";

/** What the session learns from a notification besides its deltas. */
export interface Translated {
  deltas: ThreadDelta[];
  /** Set by `turn/started`: the Codex turn now running. */
  turnStarted?: string;
  /** Set by `turn/completed`: the Codex turn that ended and how. */
  turnCompleted?: { turnId: string; status: TurnStatus; error?: TurnError };
  /** Set by a non-retried `error`: the turn's error, for a recovery hint. */
  error?: TurnError;
}

/** The notifications the bridge reads on purpose and drops: session bookkeeping the thread has no event for (SPEC-COVERAGE.md). */
export const IGNORED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "thread/started",
  "thread/status/changed",
  "remoteControl/status/changed",
  "serverRequest/resolved",
  "account/rateLimits/updated",
  "mcpServer/startupStatus/updated",
  "item/reasoning/summaryPartAdded",
  "thread/settings/updated",
  "skills/changed",
  "rawResponseItem/completed",
  "rawResponse/completed",
]);

/**
 * What a read command returned (its item shaped as a `fileRead`): the completed item's
 * `aggregatedOutput` (recordings/codex/turn-tools: `cat notes.txt`'s bytes), else what its
 * output deltas streamed; undefined when Codex reported neither.
 */
function readResult(item: ThreadItem, open: OpenItem | undefined): string | undefined {
  return typeof item.aggregatedOutput === "string" ? item.aggregatedOutput : open?.output;
}

/** The extension kind of Codex's thread goal (spec 10 §1.5: `extension.state provider-codex/goal`). */
export const CODEX_GOAL_EXTENSION = "provider-codex/goal";

const key = (id: string): ThreadDeltaKey => ({ providerItemId: id });

/** Codex's `codexErrorInfo` → the grammar's error category and HTTP status (spec 10 §1.2). */
export function errorInfoOf(info: unknown): { category: ErrorCategory; httpStatusCode: number | null } {
  const name = typeof info === "string" ? info : info && typeof info === "object" ? (Object.keys(info)[0] ?? "other") : "other";
  const inner = info && typeof info === "object" ? (info as Record<string, { httpStatusCode?: unknown } | undefined>)[name] : undefined;
  const httpStatusCode = typeof inner?.httpStatusCode === "number" ? inner.httpStatusCode : null;
  const byName: Record<string, ErrorCategory> = {
    contextWindowExceeded: "context-window-exceeded",
    usageLimitExceeded: "rate-limit",
    rateLimitExceeded: "rate-limit",
    serverOverloaded: "overloaded",
    internalServerError: "internal",
    unauthorized: "unauthorized",
    badRequest: "bad-request",
    threadRollbackFailed: "thread-rollback-failed",
    sandboxError: "sandbox",
    httpConnectionFailed: "connection-failed",
    responseStreamConnectionFailed: "connection-failed",
    responseStreamDisconnected: "stream-disconnected",
    responseTooManyFailedAttempts: "too-many-failed-attempts",
    activeTurnNotSteerable: "active-turn-not-steerable",
    sessionBudgetExceeded: "budget-exceeded",
  };
  let category = byName[name] ?? "unknown";
  if (httpStatusCode === 401) category = "unauthorized";
  else if (httpStatusCode === 429) category = "rate-limit";
  return { category, httpStatusCode };
}

/** The per-thread translator (see the module doc). */
export class CodexTranslator {
  private readonly open = new Map<string, OpenItem>();
  private readonly approvals = new ApprovalLedger();
  private plan: { id: string; opened: boolean } | undefined;

  /** @param cwd the session's working directory (file-change paths are made relative to it) */
  constructor(private readonly cwd: string) {}

  /**
   * Records whether the call `itemId` Codex asked approval for was allowed: its close will carry
   * `approvalStatus` "approved" or "denied".
   */
  noteApproval(itemId: string, allowed: boolean): void {
    this.approvals.note(itemId, allowed);
  }

  /** One notification `method` with `params` → deltas; `unknown` lists what the bridge has no translation for. */
  translate(method: string, params: unknown): Translated | "ignored" | "unknown" {
    if (IGNORED_NOTIFICATIONS.has(method)) return "ignored";
    switch (method) {
      case "turn/started":
        return this.turnStarted(params);
      case "turn/completed":
        return this.turnCompleted(params);
      case "item/started":
        return this.itemStarted(params);
      case "item/completed":
        return this.itemCompleted(params);
      case "item/agentMessage/delta":
        return this.textDelta(params, "agentMessage");
      case "item/plan/delta":
        return this.textDelta(params, "plan");
      case "item/reasoning/summaryTextDelta":
        return this.textDelta(params, "reasoningSummary");
      case "item/reasoning/textDelta":
        return this.textDelta(params, "reasoningText");
      case "item/commandExecution/outputDelta":
        return this.outputDelta(params, "command");
      case "item/fileChange/outputDelta":
        return this.outputDelta(params, "fileChange");
      default:
        return this.threadNotification(method, params);
    }
  }

  private threadNotification(method: string, params: unknown): Translated | "unknown" {
    switch (method) {
      case "thread/tokenUsage/updated": {
        const { tokenUsage } = TokenUsageNotificationSchema.parse(params);
        const breakdown = (b: typeof tokenUsage.total) => ({
          totalTokens: b.totalTokens,
          inputTokens: b.inputTokens,
          cachedInputTokens: b.cachedInputTokens,
          outputTokens: b.outputTokens,
          reasoningOutputTokens: b.reasoningOutputTokens,
        });
        return { deltas: [{ kind: "usage", total: breakdown(tokenUsage.total), last: breakdown(tokenUsage.last), modelContextWindow: tokenUsage.modelContextWindow }] };
      }
      case "turn/diff/updated":
        return { deltas: [{ kind: "turn.diff", diff: TurnDiffSchema.parse(params).diff }] };
      case "turn/plan/updated":
        return { deltas: this.planUpdated(params) };
      case "error":
        return this.error(params);
      case "thread/name/updated": {
        const { threadName } = ThreadNameSchema.parse(params);
        return { deltas: threadName ? [{ kind: "thread.name", name: threadName }] : [] };
      }
      case "thread/goal/updated": {
        const goal = (params as { goal?: unknown } | undefined)?.goal;
        return { deltas: [{ kind: "extension.state", extensionKind: CODEX_GOAL_EXTENSION, payload: isJsonValue(goal) ? goal : null }] };
      }
      case "thread/goal/cleared":
        // The reference's v3 form of the v2 `thread.goalCleared` (spec 10 §1.5).
        return { deltas: [{ kind: "extension.state", extensionKind: CODEX_GOAL_EXTENSION, payload: null }] };
      case "thread/compacted":
        return { deltas: [{ kind: "context.compacted" }] };
      case "model/rerouted": {
        const { fromModel, toModel } = ModelReroutedSchema.parse(params);
        return { deltas: [{ kind: "provider.modelFallback", originalModel: fromModel, fallbackModel: toModel, reason: "provider", message: `Codex rerouted ${fromModel} to ${toModel}` }] };
      }
      case "warning":
      case "configWarning":
      case "deprecationNotice": {
        const w = WarningSchema.parse(params);
        const category = method === "configWarning" ? "config" : method === "deprecationNotice" ? "deprecation" : "general";
        const summary = w.summary ?? w.message;
        return { deltas: [{ kind: "provider.warning", category, ...(summary ? { summary } : {}), ...(w.details ? { details: w.details } : {}) }] };
      }
      default:
        return "unknown";
    }
  }

  private turnStarted(params: unknown): Translated {
    const { turn } = TurnNotificationSchema.parse(params);
    this.plan = undefined;
    return { deltas: [{ kind: "turn.open" }], turnStarted: turn.id };
  }

  /**
   * `turn/completed`: every item Codex left open is closed first (an interrupted turn's
   * agentMessage never gets `item/completed`, spec 60), then the plan, then the boundary with
   * the Codex turn id as its checkpoint (what `thread/fork` can fork through).
   */
  private turnCompleted(params: unknown): Translated {
    const { turn } = TurnNotificationSchema.parse(params);
    const status: TurnStatus = turn.status === "interrupted" ? "interrupted" : turn.status === "failed" ? "failed" : "completed";
    const deltas = this.closeOpenItems(status === "completed" ? "completed" : "interrupted");
    deltas.push(...this.closePlan());
    const error = turn.error ?? undefined;
    deltas.push({ kind: "turn.boundary", status, ...(error ? { error: { message: error.message } } : {}), providerCheckpointId: turn.id });
    return { deltas, turnCompleted: { turnId: turn.id, status, ...(error ? { error } : {}) } };
  }

  /** Closes every item still open (a process exit, an interrupted turn) with the text it streamed. */
  closeOpenItems(status: "completed" | "interrupted" | "failed"): ThreadDelta[] {
    const deltas: ThreadDelta[] = [];
    for (const [id, open] of this.open) {
      const shape = TEXT_ITEM_TYPES.has(open.item.type) ? textShape(open.item, open) : itemShape(open.item, this.cwd, true);
      if (!shape) continue;
      if (!open.surfaced) {
        if (shape.type !== "agentMessage" || shape.text === "") continue;
        deltas.push({ kind: "item.open", key: key(id), item: { type: "agentMessage", text: "" } });
      }
      deltas.push({ kind: "item.close", key: key(id), status, item: shape });
    }
    this.open.clear();
    return deltas;
  }

  private itemStarted(params: unknown): Translated | "unknown" {
    const { item } = ItemNotificationSchema.parse(params);
    if (SKIPPED_ITEM_TYPES.has(item.type)) return { deltas: [] };
    const shape = itemShape(item, this.cwd, false);
    if (!shape) return "unknown";
    const surfaced = !opensOnText(item);
    this.open.set(item.id, { item, text: "", summary: "", surfaced });
    return { deltas: surfaced ? [{ kind: "item.open", key: key(item.id), item: shape }] : [] };
  }

  private itemCompleted(params: unknown): Translated | "unknown" {
    const { item } = ItemNotificationSchema.parse(params);
    if (SKIPPED_ITEM_TYPES.has(item.type)) return { deltas: [] };
    const open = this.open.get(item.id);
    this.open.delete(item.id);
    const shape = TEXT_ITEM_TYPES.has(item.type) ? textShape(item, open ?? { text: "", summary: "" }) : itemShape(item, this.cwd, true);
    if (!shape) return "unknown";
    const opens: ThreadDelta[] = [];
    if (open && !open.surfaced) {
      // Never surfaced: an empty message is dropped; a text that came without deltas opens now.
      if (shape.type !== "agentMessage" || shape.text === "") return { deltas: [] };
      opens.push({ kind: "item.open", key: key(item.id), item: { type: "agentMessage", text: "" } });
    }
    const approval = this.approvals.take(item.id);
    const read = shape.type === "fileRead" ? readResult(item, open) : undefined;
    const close: ThreadDelta = {
      kind: "item.close",
      key: key(item.id),
      status: terminalStatus(item.status),
      ...(typeof item.exitCode === "number" ? { exitCode: item.exitCode } : {}),
      ...(typeof item.aggregatedOutput === "string" ? { aggregatedOutput: item.aggregatedOutput } : {}),
      ...(read !== undefined ? { resultText: read } : {}),
      ...(item.status === "declined" ? { approvalStatus: "denied" as const } : approval),
      item: shape,
    };
    // Whether Codex streams a short command's output as deltas before completing it depends on
    // timing (seen: a `cat` under load completed with its output and no delta). Its real output
    // then reaches the thread as one delta, as it does when streamed in one piece.
    const output: ThreadDelta[] =
      item.type === "commandExecution" && open?.streamed !== true && typeof item.aggregatedOutput === "string" && item.aggregatedOutput !== ""
        ? [{ kind: "item.outputDelta", key: key(item.id), channel: "command", text: item.aggregatedOutput }]
        : [];
    return { deltas: [...opens, ...output, close] };
  }

  private textDelta(params: unknown, channel: "agentMessage" | "plan" | "reasoningSummary" | "reasoningText"): Translated {
    const { itemId, delta } = ItemDeltaSchema.parse(params);
    const open = this.open.get(itemId);
    if (open) {
      if (channel === "reasoningSummary") open.summary += delta;
      else open.text += delta;
    }
    if (delta === "") return { deltas: [] };
    const deltas: ThreadDelta[] = [];
    if (open && !open.surfaced) {
      open.surfaced = true;
      deltas.push({ kind: "item.open", key: key(itemId), item: { type: "agentMessage", text: "" } });
    }
    deltas.push({ kind: "item.textDelta", key: key(itemId), channel, text: delta });
    return { deltas };
  }

  private outputDelta(params: unknown, channel: "command" | "fileChange"): Translated {
    const { itemId, delta } = ItemDeltaSchema.parse(params);
    const open = this.open.get(itemId);
    if (open && delta !== "") {
      open.streamed = true;
      open.output = (open.output ?? "") + delta;
    }
    return { deltas: delta === "" ? [] : [{ kind: "item.outputDelta", key: key(itemId), channel, text: delta }] };
  }

  /** `turn/plan/updated` → one `planSteps` item per turn, opened on the first update and closed with the last steps at turn end. */
  private planUpdated(params: unknown): ThreadDelta[] {
    const { turnId, plan, explanation } = TurnPlanSchema.parse(params);
    const steps = plan.map((p) => ({
      step: p.step,
      status: p.status === "inProgress" ? ("active" as const) : p.status === "completed" ? ("completed" as const) : ("pending" as const),
    }));
    const id = `plan:${turnId}`;
    const shape = { type: "planSteps" as const, steps, ...(explanation ? { explanation } : {}) };
    this.planShape = shape;
    if (this.plan?.opened) return [];
    this.plan = { id, opened: true };
    return [{ kind: "item.open", key: key(id), item: shape }];
  }

  private planShape: { type: "planSteps"; steps: Array<{ step: string; status: "pending" | "active" | "completed" }>; explanation?: string } | undefined;

  private closePlan(): ThreadDelta[] {
    const plan = this.plan;
    const shape = this.planShape;
    this.plan = undefined;
    this.planShape = undefined;
    return plan && shape ? [{ kind: "item.close", key: key(plan.id), status: "completed", item: shape }] : [];
  }

  private error(params: unknown): Translated {
    const { error, willRetry } = ErrorNotificationSchema.parse(params);
    const { category, httpStatusCode } = errorInfoOf(error.codexErrorInfo);
    const providerCode =
      typeof error.codexErrorInfo === "string" ? error.codexErrorInfo : error.codexErrorInfo && typeof error.codexErrorInfo === "object" ? (Object.keys(error.codexErrorInfo)[0] ?? null) : null;
    const delta: ThreadDelta = {
      kind: "provider.error",
      message: error.message,
      ...(error.additionalDetails ? { detail: error.additionalDetails } : {}),
      willRetry,
      errorInfo: { category, providerCode, httpStatusCode },
    };
    return { deltas: [delta], ...(willRetry ? {} : { error }) };
  }
}
