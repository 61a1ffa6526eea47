/**
 * Approvals (spec 20 §3.8) and thread/stop (spec 30 §5) against the fixture agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk, pastSettleWait } from "./bridge-harness.js";

const OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Allow always", kind: "allow_always" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
];
const TOOL_CALL = { toolCallId: "call_touch", title: "`touch approved.txt`", kind: "execute", status: "pending" };
const permissionScript = {
  prompts: [
    {
      steps: [
        { update: { sessionUpdate: "tool_call", ...TOOL_CALL } },
        {
          permission: { toolCall: TOOL_CALL, options: OPTIONS },
          outcomes: {
            "allow-once": [chunk("allowed"), { update: { sessionUpdate: "tool_call_update", toolCallId: "call_touch", status: "completed" } }],
            "reject-once": [chunk("denied"), { update: { sessionUpdate: "tool_call_update", toolCallId: "call_touch", status: "failed" } }],
            cancelled: [chunk("cancelled")],
          },
        },
        { end: "end_turn" },
      ],
    },
  ],
};

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("ACP bridge: approvals", () => {
  it("accept-edits forwards a command approval and maps allow_once back to the agent's allow-once option", async () => {
    bridge = startInProcessBridge();
    const asked: any[] = [];
    bridge.onRuntimeRequest((method, params) => {
      asked.push({ method, params });
      return { decision: "allow_once", grantedPermissions: null };
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, permissionScript);
    await bridge.request("thread/start", threadStartParams("thr_ap", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_ap", "touch it", "creq_kkkkkkkkkk"));
    await bridge.waitFor(isBoundary);
    expect(asked).toHaveLength(1);
    expect(asked[0].method).toBe("interaction/request");
    expect(asked[0].params).toEqual({
      providerThreadId: "fixture-session-1",
      threadId: "thr_ap",
      turnId: null,
      payload: {
        kind: "approval",
        subject: {
          kind: "command",
          itemId: "call_touch",
          command: "`touch approved.txt`",
          cwd: null,
          actions: [{ type: "unknown", command: "`touch approved.txt`" }],
          sessionGrant: null,
        },
        reason: null,
        availableDecisions: ["allow_once", "allow_for_session", "deny"],
      },
    });
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.result).toEqual({ outcome: { outcome: "selected", optionId: "allow-once" } });
    expect(bridge.deltas("thr_ap").some((d) => d.text === "allowed")).toBe(true);
  });

  it("maps deny to reject-once", async () => {
    bridge = startInProcessBridge();
    bridge.onRuntimeRequest(() => ({ decision: "deny" }));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, permissionScript);
    await bridge.request("thread/start", threadStartParams("thr_dn", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_dn", "touch it", "creq_llllllllll"));
    await bridge.waitFor(isBoundary);
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.result).toEqual({ outcome: { outcome: "selected", optionId: "reject-once" } });
    expect(bridge.deltas("thr_dn").some((d) => d.text === "denied")).toBe(true);
  });

  it("answers cancelled when the runtime rejects the interaction request", async () => {
    bridge = startInProcessBridge();
    bridge.onRuntimeRequest(() => {
      throw new Error("runtime gone");
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, permissionScript);
    await bridge.request("thread/start", threadStartParams("thr_rj", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_rj", "touch it", "creq_mmmmmmmmmm"));
    await bridge.waitFor(isBoundary);
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.result).toEqual({ outcome: { outcome: "cancelled" } });
  });

  it("full mode decides locally without asking the runtime", async () => {
    bridge = startInProcessBridge();
    const asked: string[] = [];
    bridge.onRuntimeRequest((method) => {
      asked.push(method);
      return { decision: "deny" };
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, permissionScript);
    await bridge.request("thread/start", threadStartParams("thr_fu", spec, bridge.dir, { permissionMode: "full" }));
    await bridge.request("turn/start", turnStartParams("thr_fu", "touch it", "creq_nnnnnnnnnn"));
    await bridge.waitFor(isBoundary);
    expect(asked).toEqual([]);
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.result).toEqual({ outcome: { outcome: "selected", optionId: "allow-once" } });
  });

  it("refuses permission mode auto", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {});
    const start = await bridge.request("thread/start", threadStartParams("thr_au", spec, bridge.dir, { permissionMode: "auto" }));
    expect(start.error).toMatchObject({ code: -32000, message: 'ACP does not support permission mode "auto".' });
  });
});

describe("ACP bridge: thread/stop interrupt", () => {
  it("settles the turn interrupted BEFORE the reply even when the agent ignores session/cancel", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 200, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      cancel: "ignore",
      prompts: [
        {
          steps: [
            { update: { sessionUpdate: "tool_call", toolCallId: "call_sleep", title: "`sleep 120`", kind: "execute", status: "in_progress", rawInput: { command: "sleep 120" } } },
            { waitForCancel: true },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_i", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_i", "sleep", "creq_oooooooooo"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "item.open"));
    const stop = await pastSettleWait(clock, 200, () => bridge!.request("thread/stop", { threadId: "thr_i", intent: "interrupt", activeTurnId: "t1" }));
    expect(stop.result).toEqual({ ok: true });
    const boundaryIndex = bridge.out.findIndex(isBoundary);
    expect(boundaryIndex).toBeGreaterThanOrEqual(0);
    expect(boundaryIndex).toBeLessThan(bridge.out.indexOf(stop));
    const deltas = bridge.deltas("thr_i");
    expect(deltas.find((d) => d.kind === "turn.boundary")).toMatchObject({ status: "interrupted", claimIfIdle: true });
    expect(deltas.find((d) => d.kind === "item.close" && d.key.providerItemId === "call_sleep")).toMatchObject({ status: "interrupted" });
    expect(agentReceived(log).map((m) => m.method)).toContain("session/cancel");
    // The session is gone: the next turn needs a resume.
    const next = await bridge.request("turn/start", turnStartParams("thr_i", "again", "creq_pppppppppp"));
    expect(next.error.message).toBe("No active ACP session");
  });

  it("uses the agent's own cancelled answer when it honours session/cancel (one boundary only)", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("partial"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_h", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_h", "go", "creq_qqqqqqqqqq"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "partial"));
    const stop = await bridge.request("thread/stop", { threadId: "thr_h", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const boundaries = bridge.deltas("thr_h").filter((d) => d.kind === "turn.boundary");
    expect(boundaries).toEqual([{ kind: "turn.boundary", status: "interrupted", claimIfIdle: true }]);
    expect(bridge.out.findIndex(isBoundary)).toBeLessThan(bridge.out.indexOf(stop));
  });

  it("cancels a pending approval and ignores the runtime's late answer", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 200, scheduler: clock });
    let answer!: (value: unknown) => void;
    bridge.onRuntimeRequest(() => new Promise((resolve) => (answer = resolve)));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, permissionScript);
    await bridge.request("thread/start", threadStartParams("thr_pc", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_pc", "touch it", "creq_rrrrrrrrrr"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    const stop = await pastSettleWait(clock, 200, () => bridge!.request("thread/stop", { threadId: "thr_pc", intent: "interrupt" }));
    expect(stop.result).toEqual({ ok: true });
    answer({ decision: "allow_once" });
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.result).toEqual({ outcome: { outcome: "cancelled" } });
    expect(bridge.deltas("thr_pc").filter((d) => d.kind === "turn.boundary")).toHaveLength(1);
  });

  it("release sends no session/cancel and no deltas, and kills the agent", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("busy"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_rl", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_rl", "go", "creq_ssssssssss"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "busy"));
    const before = bridge.out.length;
    const stop = await bridge.request("thread/stop", { threadId: "thr_rl", intent: "release", activeTurnId: null });
    expect(stop.result).toEqual({ ok: true });
    expect(bridge.out.slice(before).filter((m) => m.method !== undefined)).toEqual([]);
    expect(agentReceived(log).map((m) => m.method)).not.toContain("session/cancel");
  });

  it("answers ok for a thread with no session", async () => {
    bridge = startInProcessBridge();
    const stop = await bridge.request("thread/stop", { threadId: "thr_none", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
  });
});

describe("ACP bridge: thread/stop during setup", () => {
  it("aborts a thread/start whose agent never answers initialize; the start fails naming the stop", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "never" });
    const start = bridge.request("thread/start", threadStartParams("thr_su", spec, bridge.dir));
    // One turn of the event loop: the start handler has spawned the agent and is awaiting initialize.
    await new Promise((resolve) => setImmediate(resolve));
    const stop = await bridge.request("thread/stop", { threadId: "thr_su", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const failed = await start;
    expect(failed.error).toMatchObject({ code: -32000, message: "ACP session of thread thr_su was stopped while it was being set up" });
    expect(bridge.out.some((m) => m.method === "thread/identity")).toBe(false);
  });
});
