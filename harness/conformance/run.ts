import { CONFORMANCE_TIMEOUT_MS } from "../defaults.js";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import type { BridgeChannel } from "../runtime/channel.js";
import { createJsonRpcClient } from "../runtime/json-rpc-client.js";
import { patientScheduler, processTreeProgress } from "../runtime/patient-scheduler.js";
import { createEventCollector } from "./collector.js";
import { conformanceClientRequestId, type RunContext } from "./context.js";
import { checkEventRules } from "./event-rules.js";
import { runHandshakePhase, runHygienePhase } from "./hygiene.js";
import { runLifecyclePhase } from "./lifecycle.js";
import { buildReport, result, type ConformanceReport, type ConformanceResult } from "./rules.js";
import { CONFORMANCE_OPTIONS, ConformanceSessionSchema, type ConformanceSession, type ConformanceSessionInput } from "./session.js";
import { checkInterruptSettlesBeforeAnswer, checkProviderThreadIdNotCounter } from "./stop-rules.js";
import type { ConformanceTransport } from "./transport.js";

/** Default longest wait for one answer or event, in ms (spec 10 §7 `timeoutMs=5000`; harness/defaults.ts). */
export const DEFAULT_CONFORMANCE_TIMEOUT_MS = CONFORMANCE_TIMEOUT_MS;

/**
 * The timers of the waits on `channel`: the real ones, put off while the bridge's process tree
 * (from `/proc`, Linux) still runs ({@link patientScheduler}); plain real timers for a bridge
 * with no process of its own (in-process) or where `/proc` says nothing.
 */
export function waitSchedulerFor(channel: BridgeChannel): Scheduler {
  const real = createRealScheduler();
  const pid = (channel as { pid?: number }).pid;
  return pid === undefined ? real : patientScheduler(real, () => processTreeProgress(pid));
}

/**
 * The optional rules `session` gives no prompt for (spec 10 §7: zero-work without
 * `zeroWorkPromptInput`, this product's interrupt rule without `holdPromptInput`), as
 * `skipped` results whose detail says why and how to run them.
 */
export function rulesNotRun(session: Pick<ConformanceSession, "zeroWorkPromptInput" | "holdPromptInput">): ConformanceResult[] {
  const notRun: ConformanceResult[] = [];
  if (!session.zeroWorkPromptInput) {
    notRun.push(result("turn/settles-without-activity", "skipped", "not run: the fixture has no zeroWorkPromptInput (give one with --session)"));
  }
  if (!session.holdPromptInput) {
    notRun.push(result("stop/interrupt-settles-before-answer", "skipped", "not run: the fixture has no holdPromptInput, a prompt whose turn stays open until stopped (give one with --session)"));
  }
  return notRun;
}

/** Options of {@link runBridgeConformance}. */
export interface RunBridgeConformanceOptions {
  /** How to reach the bridge; `open()` is called once, and once more for the counter rule. */
  transport: ConformanceTransport;
  /** The fixture: cwd, prompts, extra options (see `ConformanceSessionSchema`). */
  session: ConformanceSessionInput;
  /**
   * Longest wait for any one answer or event, in ms; default
   * {@link DEFAULT_CONFORMANCE_TIMEOUT_MS}. Only a misbehaving bridge ever waits this long:
   * every wait ends as soon as what it waits for arrives.
   */
  timeoutMs?: number;
  /** Clock of the assembler's throttles, in ms; defaults to `Date.now`. */
  now?: () => number;
  /**
   * Timers of every wait. Absent: the real timers, made patient ({@link waitSchedulerFor}) for a
   * bridge that runs as a process, so a slow but working bridge is never failed by the clock.
   */
  scheduler?: Scheduler;
  /**
   * Receives each assembled event as the `conformance/assembledEvent {threadId, event}`
   * notification (spec 10 §7 Transport), as it is assembled.
   */
  onAssembledEvent?: (notification: { method: string; params: { threadId: string; event: unknown } }) => void;
}

/**
 * Runs the scripted conformance scenarios against a bridge (spec 10 §7) and returns one
 * result per rule, in `CONFORMANCE_RULE_IDS` order: phase 1 hygiene (before any
 * `initialize`), phase 2 handshake, phase 3 lifecycle (start, turn, release stop, resume,
 * zero-work), then this product's two rules (interrupt settles before the answer; a second
 * bridge instance hands out a different `providerThreadId`), then the event rules over
 * everything collected. The report passes only when every result passes; the optional rules
 * the fixture gives no prompt for are listed in `notRun` (see {@link rulesNotRun}).
 *
 * @throws ZodError-derived `Error` when `session` is malformed (before anything is spawned).
 */
export async function runBridgeConformance(options: RunBridgeConformanceOptions): Promise<ConformanceReport> {
  const session = ConformanceSessionSchema.parse(options.session);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONFORMANCE_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const channel = await options.transport.open();
  const schedulerFor = (opened: BridgeChannel) => options.scheduler ?? waitSchedulerFor(opened);
  const scheduler = schedulerFor(channel);
  const client = createJsonRpcClient(channel, scheduler);
  const collector = createEventCollector({ providerId: options.transport.providerId, now, scheduler });
  const bridgeLines: string[] = [];
  client.onLine((line, direction) => {
    if (direction === "bridge→runtime") bridgeLines.push(line);
  });
  client.onNotification((notification) => {
    const before = collector.assembledNotifications.length;
    collector.accept(notification);
    for (const assembled of collector.assembledNotifications.slice(before)) options.onAssembledEvent?.(assembled);
  });
  let prompts = 0;
  const ctx: RunContext = {
    transport: options.transport,
    client,
    collector,
    session,
    sessionOptions: { ...CONFORMANCE_OPTIONS, ...session.options },
    timeoutMs,
    scheduler,
    schedulerFor,
    results: [],
    bridgeLines,
    answering: { answersUnknownMethods: false, answersInvalidParams: false },
    nextClientRequestId: () => conformanceClientRequestId(++prompts),
  };
  // A bridge that dies mid-run fails the remaining rules at once instead of at each timeout.
  channel.onClose((reason) => {
    ctx.endReason = reason;
    collector.end();
  });
  try {
    await runHygienePhase(ctx);
    await runHandshakePhase(ctx);
    const providerThreadId = await runLifecyclePhase(ctx);
    if (providerThreadId !== undefined) {
      await checkInterruptSettlesBeforeAnswer(ctx, providerThreadId);
      await checkProviderThreadIdNotCounter(ctx, providerThreadId);
    }
    checkEventRules(ctx);
  } finally {
    await channel.close();
  }
  return buildReport(options.transport.name, ctx.results, rulesNotRun(session));
}
