/**
 * Bad agent behaviour (spec 20 §2.2, §3.5; spec 30 §6.3): each fault gives the runtime a clear
 * error and a settled turn, while the bridge keeps serving another thread.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk } from "./bridge-harness.js";

const isBoundaryOrError = (threadId: string) => (m: any) =>
  m.method === "thread/delta" && m.params.threadId === threadId && m.params.deltas.some((d: any) => d.kind === "turn.boundary" || (d.kind === "provider.error" && d.settlesTurn));

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** Starts a healthy thread beside the faulty one and checks it still completes a turn. */
async function healthyThreadStillServes(b: InProcessBridge, threadId: string): Promise<void> {
  const { spec } = fixtureLaunchSpec(b.dir, { prompts: [{ steps: [chunk("still here"), { end: "end_turn" }] }] }, `healthy-${threadId}`);
  const start = await b.request("thread/start", threadStartParams(threadId, spec, b.dir));
  expect(start.error).toBeUndefined();
  expect(start.result?.providerThreadId).toBe("fixture-session-1");
  const from = b.out.length;
  await b.request("turn/start", turnStartParams(threadId, "ping", "creq_2222222222"));
  const done = await b.waitFor(isBoundaryOrError(threadId), from);
  expect(done.params.deltas.find((d: any) => d.kind === "turn.boundary")?.status).toBe("completed");
}

describe("ACP bridge: bad agents", () => {
  it("an agent exiting mid-turn: provider.error settles the turn, an error notification names the exit and stderr, the next turn rebuilds with session/replaced", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "crash", steps: [chunk("about to crash"), { stderr: "fatal: out of cheese" }, { exit: 7 }] },
        { when: "recover", steps: [chunk("back"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_x", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_x", "crash now", "creq_aaaaaaaaa2"));
    const settled = await bridge.waitFor(isBoundaryOrError("thr_x"));
    const error = settled.params.deltas.find((d: any) => d.kind === "provider.error");
    expect(error.settlesTurn).toBe(true);
    const notification = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_x");
    expect(notification.params.providerThreadId).toBe("fixture-session-1");
    expect(notification.params.message).toMatch(/^ACP agent ".*" exited unexpectedly \(code 7\): fatal: out of cheese$/);

    await healthyThreadStillServes(bridge, "thr_x_ok");

    const from = bridge.out.length;
    const next = await bridge.request("turn/start", turnStartParams("thr_x", "recover please", "creq_aaaaaaaaa3"));
    expect(next.result).toEqual({ threadId: "thr_x" });
    const replaced = bridge.out.slice(from).find((m) => m.method === "session/replaced");
    expect(replaced?.params).toEqual({ threadId: "thr_x", providerThreadId: "fixture-session-1", reason: "The agent exited unexpectedly", contextLost: false });
    await bridge.waitFor((m) => isBoundaryOrError("thr_x")(m) && m.params.deltas.some((d: any) => d.kind === "turn.boundary"), from);
    expect(agentReceived(log).filter((m) => m.method === "session/load")).toHaveLength(1);
  });

  it("non-JSON stdout lines are ignored (and logged); the turn completes", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ raw: "Debugger listening on ws://127.0.0.1" }, chunk("fine"), { raw: "{not json" }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_nj", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_nj", "go", "creq_aaaaaaaaa4"));
    const done = await bridge.waitFor(isBoundaryOrError("thr_nj"));
    expect(done.params.deltas.find((d: any) => d.kind === "turn.boundary").status).toBe("completed");
    expect(bridge.logs.filter((l) => l.includes("non-JSON stdout line"))).toHaveLength(2);
  });

  it("an agent answering a prompt twice: the second answer is ignored and logged, one boundary", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("twice"), { end: "end_turn", answerTwice: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_tw", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_tw", "go", "creq_aaaaaaaaa5"));
    await bridge.waitFor(isBoundaryOrError("thr_tw"));
    await healthyThreadStillServes(bridge, "thr_tw_ok");
    expect(bridge.deltas("thr_tw").filter((d) => d.kind === "turn.boundary")).toHaveLength(1);
    expect(bridge.logs.some((l) => l.includes("which is not pending (answered twice or never sent)"))).toBe(true);
  });

  it("an agent that never answers initialize: thread/start fails with a clear -32000 after the initialize timeout", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ initializeTimeoutMs: 2000, scheduler: clock });
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "never" });
    const starting = bridge.request("thread/start", threadStartParams("thr_ni", spec, bridge.dir));
    await clock.whenPending((t) => t.delayMs === 2000);
    clock.advance(2000);
    const start = await starting;
    expect(start.error.code).toBe(-32000);
    expect(start.error.message).toMatch(/^ACP agent ".*" did not answer initialize within 2000ms$/);
    expect(bridge.out.some((m) => m.method === "thread/identity")).toBe(false);
    await healthyThreadStillServes(bridge, "thr_ni_ok");
  });

  it("an agent that exits before answering initialize: thread/start fails naming the exit", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "exit" });
    const start = await bridge.request("thread/start", threadStartParams("thr_ie", spec, bridge.dir));
    expect(start.error.code).toBe(-32000);
    expect(start.error.message).toMatch(/exited unexpectedly \(code 3\)/);
  });

  it("a launch command that does not exist: thread/start fails with Failed to launch", async () => {
    bridge = startInProcessBridge();
    const spec = { displayName: "Missing", command: "definitely-not-an-acp-agent-xyz", args: ["acp"], env: {} };
    const start = await bridge.request("thread/start", threadStartParams("thr_mi", spec, bridge.dir));
    expect(start.error).toMatchObject({ code: -32000 });
    expect(start.error.message).toMatch(/^Failed to launch ACP agent "definitely-not-an-acp-agent-xyz": /);
  });

  it("a 20 MB stdout line over the line cap: the agent is stopped, the turn settles with a clear error, other threads go on", async () => {
    bridge = startInProcessBridge({ maxAgentLineBytes: 16 * 1024 * 1024 });
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("before"), { bigLine: 20 * 1024 * 1024 }, { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_big", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_big", "go", "creq_aaaaaaaaa6"));
    const settled = await bridge.waitFor(isBoundaryOrError("thr_big"));
    expect(settled.params.deltas.some((d: any) => d.kind === "provider.error" && d.settlesTurn)).toBe(true);
    const notification = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_big");
    expect(notification.params.message).toMatch(/wrote a stdout line over 16777216 bytes; the bridge stopped it/);
    await healthyThreadStillServes(bridge, "thr_big_ok");
  });

  it("an agent that rejects the prompt: session error, the turn fails with the agent's error, the session stays usable", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "bad", steps: [{ fail: { code: -32000, message: "model overloaded", data: { details: "try later" } } }] },
        { when: "good", steps: [chunk("ok"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_pf", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_pf", "bad", "creq_aaaaaaaaa7"));
    const settled = await bridge.waitFor(isBoundaryOrError("thr_pf"));
    expect(settled.params.deltas.find((d: any) => d.kind === "provider.error").settlesTurn).toBeUndefined();
    expect(settled.params.deltas.find((d: any) => d.kind === "turn.boundary")).toMatchObject({ status: "failed", error: { message: "model overloaded: try later" } });
    const notification = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_pf");
    expect(notification.params.message).toBe("model overloaded: try later");
    const from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_pf", "good", "creq_aaaaaaaaa8"));
    const done = await bridge.waitFor(isBoundaryOrError("thr_pf"), from);
    expect(done.params.deltas.find((d: any) => d.kind === "turn.boundary").status).toBe("completed");
    expect(bridge.out.some((m) => m.method === "session/replaced")).toBe(false);
  });

  it("an unsupported agent→client method gets -32601 Unsupported ACP client method", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ request: { method: "terminal/create", params: { command: "ls" } } }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_um", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_um", "go", "creq_aaaaaaaaa9"));
    await bridge.waitFor(isBoundaryOrError("thr_um"));
    const reply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(reply?.error).toEqual({ code: -32601, message: 'Unsupported ACP client method "terminal/create"' });
  });
});

describe("ACP bridge: execution settings that need a new agent process", () => {
  it("a changed launch-flag permission mode rebuilds the session and announces session/replaced", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ reuse: true, steps: [chunk("ok"), { end: "end_turn" }] }] });
    const withCli = { ...spec, permissionCli: { full: ["--yolo"], insertAfterArgs: 3 } };
    await bridge.request("thread/start", threadStartParams("thr_ps", withCli, bridge.dir));
    const from = bridge.out.length;
    const turn = await bridge.request("turn/start", turnStartParams("thr_ps", "go", "creq_ps00000000", { permissionMode: "full" }));
    expect(turn.error).toBeUndefined();
    expect(turn.result).toEqual({ threadId: "thr_ps" });
    await bridge.waitFor(isBoundaryOrError("thr_ps"), from);
    const replaced = bridge.out.slice(from).find((m) => m.method === "session/replaced");
    expect(replaced?.params).toEqual({ threadId: "thr_ps", providerThreadId: "fixture-session-1", reason: "Execution settings changed", contextLost: false });
    const methods = agentReceived(log).map((m) => m.method);
    expect(methods.filter((m) => m === "initialize")).toHaveLength(2);
    expect(methods).toContain("session/load");
  });
});

describe("ACP bridge: busy retry (spec 30 §6.2)", () => {
  it("re-sends a prompt the agent rejected as session_busy once the agent is quiet", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ busyRetryPollMs: 20, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "work", steps: [{ fail: { code: -32003, message: "busy", data: { reason: "session_busy" } } }] },
        { when: "work", steps: [chunk("done at last"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_bz", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_bz", "work", "creq_bz00000000"));
    // Rejected busy: nothing is re-sent until a poll finds the agent quiet.
    await clock.whenPending((t) => t.delayMs === 20);
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);
    clock.advance(20);
    const done = await bridge.waitFor(isBoundaryOrError("thr_bz"));
    expect(done.params.deltas.find((d: any) => d.kind === "turn.boundary")?.status).toBe("completed");
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(2);
    expect(bridge.out.some((m) => m.method === "error")).toBe(false);
  });

  it("gives up after three busy retries with the session error", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ busyRetryPollMs: 20, scheduler: clock });
    const busy = { when: "work", steps: [{ fail: { code: -32003, message: "still busy", data: { reason: "session_busy" } } }] };
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [busy, busy, busy, busy] });
    await bridge.request("thread/start", threadStartParams("thr_bz2", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_bz2", "work", "creq_bz00000001"));
    for (let retry = 1; retry <= 3; retry += 1) {
      await clock.whenPending((t) => t.delayMs === 20);
      clock.advance(20);
    }
    const error = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_bz2");
    expect(error.params.message).toBe('still busy: {"reason":"session_busy"}');
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(4);
  });
});

describe("ACP bridge: recovery hints (spec 30 §4)", () => {
  it("an auth failure during setup rejects thread/start with authRequired + sign-in guidance, and sends no provider/recovery", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      newSessionError: "Authentication required.",
      authMethods: [{ id: "fixture-login", name: "Fixture login", type: "terminal", args: ["login"] }],
    });
    const start = await bridge.request("thread/start", threadStartParams("thr_auth", spec, bridge.dir));
    expect(start.error.code).toBe(-32000);
    expect(start.error.message).toMatch(/^Authentication required\. Run `.* login` in a terminal on this machine to sign in$/);
    expect(start.error.data).toEqual({ recovery: { kind: "authRequired", message: start.error.message, retryable: false } });
    expect(bridge.out.some((m) => m.method === "provider/recovery")).toBe(false);
  });
});
