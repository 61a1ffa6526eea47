/**
 * `thread/stop` as spec 30 §5 has it, beyond bridge-approvals-stop.test.ts: every kind of active
 * prompt (agent-initiated turn, compaction) settles `interrupted` before the reply, pending
 * elicitations are cancelled, stdin close interrupts, release emits nothing even for an agent
 * turn, and the documented waits.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import {
  agentReceived,
  fixtureLaunchSpec,
  isBoundary,
  pastSettleWait,
  startInProcessBridge,
  threadStartParams,
  turnStartParams,
  type InProcessBridge,
  chunk,
  type AnyRecord,
} from "./bridge-harness.js";
import { ACP_BRIDGE_DEFAULTS } from "../../stack/acp/bridge-runtime.js";
import { AGENT_KILL_GRACE_MS } from "../../stack/acp/connection/connection.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const note = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "background note" } };
const sawText = (text: string) => (m: AnyRecord) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === text);

describe("thread/stop interrupt settles every prompt kind before the reply (spec 30 §5 step 4)", () => {
  it("an agent-initiated turn: session/cancel is sent, the turn settles interrupted, then {ok:true}", async () => {
    bridge = startInProcessBridge({ agentTurnQuietMs: 60_000, cancelSettleTimeoutMs: 60_000 });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ steps: [chunk("done"), { end: "end_turn", after: [note, { sessionUpdate: "tool_call", toolCallId: "bg_tool", kind: "other", title: "Background", status: "in_progress" }] }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_sa", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_sa", "go", "creq_sa00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.key?.providerItemId === "bg_tool"));
    const stop = await bridge.request("thread/stop", { threadId: "thr_sa", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const deltas = bridge.deltas("thr_sa");
    const boundaries = deltas.filter((d) => d.kind === "turn.boundary");
    expect(boundaries.map((d) => d.status)).toEqual(["completed", "interrupted"]);
    expect(deltas.find((d) => d.kind === "item.close" && d.key.providerItemId === "bg_tool")).toMatchObject({ status: "interrupted" });
    const lastBoundary = bridge.out.findLastIndex(isBoundary);
    expect(lastBoundary).toBeLessThan(bridge.out.indexOf(stop));
    expect(agentReceived(log).map((m) => m.method)).toContain("session/cancel");
  });

  it("a compaction the agent will not cancel settles interrupted (no context.compacted, no claimIfIdle) before the reply", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 100, scheduler: clock });
    const { spec } = fixtureLaunchSpec(bridge.dir, { cancel: "ignore", prompts: [{ when: "/compact", steps: [chunk("compacting"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_sc", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_sc", "/compact", "creq_sc00000000"));
    await bridge.waitFor(sawText("compacting"));
    const stop = await pastSettleWait(clock, 100, () => bridge!.request("thread/stop", { threadId: "thr_sc", intent: "interrupt" }));
    expect(stop.result).toEqual({ ok: true });
    const deltas = bridge.deltas("thr_sc");
    expect(deltas.filter((d) => d.kind === "turn.boundary")).toEqual([{ kind: "turn.boundary", status: "interrupted" }]);
    expect(deltas.some((d) => d.kind === "context.compacted")).toBe(false);
    expect(bridge.out.findIndex(isBoundary)).toBeLessThan(bridge.out.indexOf(stop));
  });

  it("a pending elicitation is answered {action:'cancel'} (spec 30 §5 step 2)", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 100, scheduler: clock });
    bridge.onRuntimeRequest(() => new Promise(() => undefined));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      cancel: "ignore",
      prompts: [
        {
          steps: [
            {
              request: {
                method: "elicitation/create",
                params: { sessionId: "fixture-session-1", message: "Pick", requestedSchema: { type: "object", properties: { c: { type: "string", enum: ["a", "b"] } } } },
              },
            },
            { waitForCancel: true },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_se", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_se", "ask", "creq_se00000000"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    const stop = await pastSettleWait(clock, 100, () => bridge!.request("thread/stop", { threadId: "thr_se", intent: "interrupt" }));
    expect(stop.result).toEqual({ ok: true });
    expect(agentReceived(log).find((m) => m.id === 0 && m.method === undefined)?.result).toEqual({ action: "cancel" });
    expect(
      bridge
        .deltas("thr_se")
        .filter((d) => d.kind === "turn.boundary")
        .map((d) => d.status),
    ).toEqual(["interrupted"]);
  });

  it("stdin close (onClose) interrupts an active turn: it settles interrupted even though the agent ignores the cancel", async () => {
    const clock = createFakeScheduler();
    const local = startInProcessBridge({ cancelSettleTimeoutMs: 100, scheduler: clock });
    const { spec } = fixtureLaunchSpec(local.dir, { cancel: "ignore", prompts: [{ steps: [chunk("running"), { waitForCancel: true }] }] });
    await local.request("thread/start", threadStartParams("thr_sx", spec, local.dir));
    await local.request("turn/start", turnStartParams("thr_sx", "go", "creq_sx00000000"));
    await local.waitFor(sawText("running"));
    await pastSettleWait(clock, 100, () => local.close());
    expect(local.deltas("thr_sx").filter((d) => d.kind === "turn.boundary")).toEqual([{ kind: "turn.boundary", status: "interrupted", claimIfIdle: true }]);
  });
});

describe("thread/stop release (spec 30 §5)", () => {
  it("during an agent-initiated turn: no deltas at all, not even when its quiet period has passed", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ agentTurnQuietMs: 30, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ steps: [chunk("done"), { end: "end_turn", after: [note, { sessionUpdate: "tool_call", toolCallId: "bg", kind: "other", title: "Bg", status: "in_progress" }] }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_rla", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_rla", "go", "creq_rla0000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.key?.providerItemId === "bg"));
    const before = bridge.deltas("thr_rla").length;
    const stop = await bridge.request("thread/stop", { threadId: "thr_rla", intent: "release" });
    expect(stop.result).toEqual({ ok: true });
    // Ten quiet periods pass on the clock, and a whole other thread's turn runs before we look again.
    clock.advance(300);
    const other = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("x"), { end: "end_turn" }] }] }, "other");
    await bridge.request("thread/start", threadStartParams("thr_rlb", other.spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_rlb", "go", "creq_rlb0000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_rlb");
    expect(bridge.deltas("thr_rla")).toHaveLength(before);
    expect(agentReceived(log).map((m) => m.method)).not.toContain("session/cancel");
  });

  it("drops a queued steer: it is never accepted or prompted, and nothing is emitted", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { cancel: "ignore", prompts: [{ steps: [chunk("busy"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_rq", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_rq", "go", "creq_rq00000000"));
    await bridge.waitFor(sawText("busy"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_rq", "later", "creq_rq00000001"));
    expect(steer.result).toEqual({ threadId: "thr_rq" });
    const before = bridge.out.length;
    const stop = await bridge.request("thread/stop", { threadId: "thr_rq", intent: "release" });
    expect(stop.result).toEqual({ ok: true });
    expect(bridge.out.slice(before).filter((m) => m.method !== undefined)).toEqual([]);
    expect(
      bridge
        .deltas("thr_rq")
        .filter((d) => d.kind === "input.accepted")
        .map((d) => d.clientRequestId),
    ).toEqual(["creq_rq00000000"]);
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);
  });

  it("with no session answers {ok:true}", async () => {
    bridge = startInProcessBridge();
    const stop = await bridge.request("thread/stop", { threadId: "thr_nobody", intent: "release" });
    expect(stop.result).toEqual({ ok: true });
    expect(bridge.out).toHaveLength(1);
  });
});

describe("documented waits (spec 30 §5 steps 3 and 5)", () => {
  it("the default cancel wait (4 000 ms) and kill grace (1 s) are the figures spec 30 §5 names (a constant check)", () => {
    expect(ACP_BRIDGE_DEFAULTS.cancelSettleTimeoutMs).toBe(4_000);
    expect(AGENT_KILL_GRACE_MS).toBe(1_000);
  });
});
