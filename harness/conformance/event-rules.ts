import * as z from "zod";
import { ThreadEventSchema } from "../../stack/protocol/thread-events.js";
import type { RunContext } from "./context.js";
import { result } from "./rules.js";

/** One `conformance/assembledEvent` params: `{threadId ≥ 1 char, event: ThreadEvent}` (spec 10 §7). */
export const AssembledEventParamsSchema = z.object({ threadId: z.string().min(1), event: ThreadEventSchema });

/**
 * `events/schema-valid` and `item/opens-before-delta` (spec 10 §7), judged on everything the
 * run collected: every `thread/delta` must be valid grammar v3 and every re-emitted
 * assembled event must parse (skipped when none arrived: no vacuous pass); the host grammar must
 * have seen no `item/opens-before-delta` violation in the run's thread (skipped when the thread had no events).
 */
export function checkEventRules(ctx: RunContext): void {
  const { collector } = ctx;
  const firstDeltaError = collector.deltaErrors[0];
  if (firstDeltaError !== undefined) {
    ctx.results.push(result("events/schema-valid", "fail", `${collector.deltaErrors.length} invalid thread/delta notification(s); first: ${firstDeltaError.slice(0, 300)}`));
  } else {
    const invalid = collector.assembledNotifications
      .map((notification, index) => ({ index, parsed: AssembledEventParamsSchema.safeParse(notification.params) }))
      .find((entry) => !entry.parsed.success);
    if (invalid && !invalid.parsed.success) {
      const issue = invalid.parsed.error.issues[0];
      ctx.results.push(result("events/schema-valid", "fail", `assembled event #${invalid.index + 1} does not parse: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`));
    } else if (collector.assembledNotifications.length === 0) {
      // Nothing arrived to validate: no verdict, never a vacuous pass (a bridge that answers nothing
      // used to score "1 passed" here).
      ctx.results.push(result("events/schema-valid", "skipped", "no thread/delta arrived: nothing to validate"));
    } else {
      ctx.results.push(result("events/schema-valid", "pass", `${collector.assembledNotifications.length} events`));
    }
  }

  const threadEvents = collector.events.filter((r) => r.threadId === ctx.session.threadId);
  if (threadEvents.length === 0) {
    ctx.results.push(result("item/opens-before-delta", "skipped", "the thread had no events"));
    return;
  }
  const violation = collector.grammarViolations.find((v) => v.threadId === ctx.session.threadId && v.rule === "item/opens-before-delta");
  ctx.results.push(violation ? result("item/opens-before-delta", "fail", `${violation.eventType}: ${violation.reason}`) : result("item/opens-before-delta", "pass"));
}
