/**
 * The ACP bridge against the fixture agent: handshake, a full turn, resume, steer queue
 * (spec 20 §1.3, §2.3–2.4, §3.5, §3.7, §3.10; spec 30 §6.1, §6.3).
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("ACP bridge: handshake", () => {
  it("answers initialize with protocol 2, grammar [3,3], queue steering, tip forks, runtime approvals", async () => {
    bridge = startInProcessBridge();
    const response = await bridge.request("initialize", { protocolVersion: 2, client: { name: "test", version: "1" }, grammarVersions: [3, 3] });
    expect(response.result.protocolVersion).toBe(2);
    expect(response.result.capabilities).toMatchObject({
      grammarVersions: [3, 3],
      steerMode: "queue",
      fork: "tip",
      approvalEnforcedBy: "runtime",
      sessionRestore: false,
      skills: { configure: true },
    });
  });

  it("answers an unknown method -32601 and ignores a notification", async () => {
    bridge = startInProcessBridge();
    await bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "turn/start", params: {} }));
    expect(bridge.out).toHaveLength(0);
    const response = await bridge.request("thread/archive", { threadId: "t" });
    expect(response.error.code).toBe(-32601);
  });
});

describe("ACP bridge: a full turn", () => {
  it("orders identity → session.reset → result, then turn.open → prompt written → input.accepted → reply → deltas → boundary", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ steps: [{ update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } } }, chunk("Hello"), chunk(" world"), { end: "end_turn" }] }],
    });
    const start = await bridge.request("thread/start", threadStartParams("thr_a", spec, bridge.dir));
    expect(start.result).toEqual({ providerThreadId: "fixture-session-1", sessionRestorable: true });
    const startIndex = bridge.out.indexOf(start);
    const identityIndex = bridge.out.findIndex((m) => m.method === "thread/identity");
    expect(identityIndex).toBeGreaterThanOrEqual(0);
    expect(identityIndex).toBeLessThan(startIndex);
    expect(bridge.out[identityIndex]!.params).toEqual({ threadId: "thr_a", providerThreadId: "fixture-session-1", sessionRestorable: true });
    expect(bridge.deltas("thr_a")[0]).toEqual({ kind: "session.reset" });

    const turn = await bridge.request("turn/start", turnStartParams("thr_a", "Say hello", "creq_aaaaaaaaaa"));
    expect(turn.result).toEqual({ threadId: "thr_a" });
    const boundary = await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const kinds = bridge.deltas("thr_a").map((d) => d.kind);
    const open = kinds.indexOf("turn.open");
    const accepted = kinds.indexOf("input.accepted");
    expect(open).toBeGreaterThan(0);
    expect(accepted).toBe(open + 1);
    // The reply follows input.accepted on the wire.
    const acceptedMessage = bridge.out.findIndex((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "input.accepted"));
    expect(acceptedMessage).toBeLessThan(bridge.out.indexOf(turn));
    const text = bridge
      .deltas("thr_a")
      .filter((d) => d.kind === "item.textDelta" && d.channel === "agentMessage")
      .map((d) => d.text)
      .join("");
    expect(text).toBe("Hello world");
    expect(boundary.params.deltas.find((d: any) => d.kind === "turn.boundary")).toMatchObject({ status: "completed", claimIfIdle: true });

    // The agent saw initialize, session/new and one prompt that starts with the instructions block.
    const received = agentReceived(log);
    expect(received.map((m) => m.method)).toEqual(["initialize", "session/new", "session/prompt"]);
    expect(received[0]!.params).toMatchObject({
      protocolVersion: 1,
      clientInfo: { name: "bb", version: "1.0.0" },
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    });
    const prompt = received[2]!.params.prompt;
    expect(prompt[0].text).toBe("<system_instructions>\nBe brief.\n</system_instructions>");
    expect(prompt[1]).toEqual({ type: "text", text: "Say hello" });
  });

  it("rejects a second turn while one is active and a turn on an unknown thread", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_b", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_b", "wait", "creq_bbbbbbbbbb"));
    const second = await bridge.request("turn/start", turnStartParams("thr_b", "again", "creq_cccccccccc"));
    expect(second.error).toMatchObject({ code: -32000, message: "A turn is already active" });
    const unknown = await bridge.request("turn/start", turnStartParams("thr_nope", "hi", "creq_dddddddddd"));
    expect(unknown.error).toMatchObject({ code: -32000, message: "No active ACP session" });
  });
});

describe("ACP bridge: release and resume", () => {
  it("release answers ok with no deltas; resume loads the same session, swallows the replay and does not re-inject instructions", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      load: { replay: [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old history" } }] },
      prompts: [
        { when: "first", steps: [chunk("ready"), { end: "end_turn" }] },
        { when: "second", steps: [chunk("again"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_r", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_r", "first", "creq_eeeeeeeeee"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const before = bridge.out.length;
    const stop = await bridge.request("thread/stop", { threadId: "thr_r", intent: "release", activeTurnId: null });
    expect(stop.result).toEqual({ ok: true });
    expect(bridge.out.slice(before).filter((m) => m.method === "thread/delta")).toEqual([]);

    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_r", spec, bridge.dir), providerThreadId: "fixture-session-1" });
    expect(resumed.result).toEqual({ providerThreadId: "fixture-session-1", sessionRestorable: true });
    const afterResume = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_r", "second", "creq_ffffffffff"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"), afterResume);
    const texts = bridge
      .deltas("thr_r")
      .filter((d) => d.kind === "item.textDelta")
      .map((d) => d.text);
    expect(texts).toEqual(["ready", "again"]);
    const prompts = agentReceived(log).filter((m) => m.method === "session/prompt");
    expect(prompts).toHaveLength(2);
    expect(prompts[1]!.params.prompt).toEqual([{ type: "text", text: "second" }]);
    expect(agentReceived(log).map((m) => m.method)).toContain("session/load");
  });

  it("falls back to a fresh session with a warning when session/load fails", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { load: { replay: [], error: "no such session" } });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_f", spec, bridge.dir), providerThreadId: "gone-1" });
    expect(resumed.result).toEqual({ providerThreadId: "fixture-session-1", sessionRestorable: true });
    const warning = bridge.deltas("thr_f").find((d) => d.kind === "provider.warning");
    expect(warning.summary).toMatch(/could not restore the previous session; continuing in a fresh session without in-agent history\.$/);
  });

  it("refuses a fork checkpoint (-32003) and an agent without fork support (-32000)", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {});
    const base = threadStartParams("thr_k", spec, bridge.dir);
    const checkpoint = await bridge.request("thread/fork", { ...base, sourceProviderThreadId: "s-1", sourceProviderCheckpointId: "cp" });
    expect(checkpoint.error.code).toBe(-32003);
    const noFork = await bridge.request("thread/fork", { ...base, sourceProviderThreadId: "s-1" });
    expect(noFork.error.code).toBe(-32000);
    expect(noFork.error.message).toMatch(/does not advertise session\/fork support\.$/);
    expect(bridge.out.some((m) => m.method === "thread/identity")).toBe(false);
  });

  it("forks a session when the agent supports it, without instructions on the first prompt", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { fork: true });
    const forked = await bridge.request("thread/fork", { ...threadStartParams("thr_fk", spec, bridge.dir), sourceProviderThreadId: "src-9" });
    expect(forked.result.providerThreadId).toBe("fixture-session-1");
    await bridge.request("turn/start", turnStartParams("thr_fk", "go", "creq_gggggggggg"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const prompt = agentReceived(log).find((m) => m.method === "session/prompt")!;
    expect(prompt.params.prompt).toEqual([{ type: "text", text: "go" }]);
  });
});

describe("ACP bridge: steer queue", () => {
  it("cancels the outstanding prompt, re-prompts with the steer in the same turn, accepts it only when written", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "long task", steps: [chunk("working"), { waitForCancel: true }] },
        { when: "change of plan", steps: [chunk("steered"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_s", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_s", "long task", "creq_hhhhhhhhhh"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.text === "working"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_s", "change of plan", "creq_iiiiiiiiii"));
    expect(steer.result).toEqual({ threadId: "thr_s" });
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const deltas = bridge.deltas("thr_s");
    expect(deltas.filter((d) => d.kind === "turn.open")).toHaveLength(1);
    const accepted = deltas.filter((d) => d.kind === "input.accepted").map((d) => d.clientRequestId);
    expect(accepted).toEqual(["creq_hhhhhhhhhh", "creq_iiiiiiiiii"]);
    expect(deltas.find((d) => d.kind === "turn.boundary").status).toBe("completed");
    const methods = agentReceived(log).map((m) => m.method);
    expect(methods).toEqual(["initialize", "session/new", "session/prompt", "session/cancel", "session/prompt"]);
  });

  it("answers a steer with nothing to steer -32001 carrying a staleTurn hint", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {});
    await bridge.request("thread/start", threadStartParams("thr_st", spec, bridge.dir));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_st", "hi", "creq_jjjjjjjjjj"));
    expect(steer.error).toEqual({
      code: -32001,
      message: "No active turn to steer",
      data: { recovery: { kind: "staleTurn", message: "No active turn to steer", retryable: false } },
    });
    expect(bridge.out.some((m) => m.method === "provider/recovery")).toBe(false);
  });
});

describe("ACP bridge: compaction and re-construction", () => {
  it("runs /compact as a compaction prompt: compaction item, context.compacted, permissions cancelled, steers refused", async () => {
    bridge = startInProcessBridge();
    const asked: string[] = [];
    bridge.onRuntimeRequest((method) => {
      asked.push(method);
      return { decision: "allow_once" };
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          when: "/compact",
          steps: [{ permission: { options: [{ optionId: "ok", kind: "allow_once" }] }, outcomes: { cancelled: [chunk("summary written")] } }, { end: "end_turn" }],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_c", spec, bridge.dir));
    const started = await bridge.request("turn/start", turnStartParams("thr_c", "/compact", "creq_cmpct00000"));
    expect(started.result).toEqual({ threadId: "thr_c" });
    const steer = await bridge.request("turn/steer", turnStartParams("thr_c", "more", "creq_cmpct00001"));
    expect(steer.error.code).toBe(-32001);
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const deltas = bridge.deltas("thr_c");
    expect(deltas.find((d) => d.kind === "item.open")?.item).toEqual({ type: "compaction" });
    expect(deltas.some((d) => d.kind === "context.compacted")).toBe(true);
    expect(deltas.find((d) => d.kind === "turn.boundary")).toEqual({ kind: "turn.boundary", status: "completed" });
    expect(asked).toEqual([]);
    const prompt = agentReceived(log).find((m) => m.method === "session/prompt")!;
    expect(prompt.params.prompt).toEqual([{ type: "text", text: "/compact" }]);
    const permissionReply = agentReceived(log).find((m) => m.id === 0 && m.method === undefined);
    expect(permissionReply?.result).toEqual({ outcome: { outcome: "cancelled" } });
  });

  it("a second thread/start for a live thread stops the old agent first and starts a fresh session", async () => {
    bridge = startInProcessBridge();
    const first = fixtureLaunchSpec(bridge.dir, {}, "first");
    const second = fixtureLaunchSpec(bridge.dir, { sessionIdPrefix: "second-" }, "second");
    await bridge.request("thread/start", threadStartParams("thr_tw2", first.spec, bridge.dir));
    const again = await bridge.request("thread/start", threadStartParams("thr_tw2", second.spec, bridge.dir));
    expect(again.result.providerThreadId).toBe("second-1");
    expect(bridge.out.filter((m) => m.method === "session/replaced")).toEqual([]);
    const identities = bridge.out.filter((m) => m.method === "thread/identity").map((m) => m.params.providerThreadId);
    expect(identities).toEqual(["fixture-session-1", "second-1"]);
  });
});

describe("ACP bridge: skills", () => {
  it("injects the configured skills into the instructions and rewrites a /skill the agent does not advertise", async () => {
    bridge = startInProcessBridge();
    const skills = await bridge.request("skills/configure", { roots: [{ id: "r1", path: "/skills", skills: [{ name: "review", description: "Review  <the>  diff" }] }] });
    expect(skills.result).toEqual({ ok: true });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      afterNew: [{ sessionUpdate: "available_commands_update", availableCommands: [{ name: "compact-now", description: "x" }] }],
      prompts: [{ reuse: true, steps: [{ end: "end_turn" }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_sk", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_sk", "/review the diff", "creq_sk00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "turn.boundary"));
    const prompt = agentReceived(log).find((m) => m.method === "session/prompt")!.params.prompt;
    expect(prompt[0].text).toContain("Available bb skills:\n- review: Review the diff (SKILL.md: /skills/review/SKILL.md)");
    expect(prompt[1]).toEqual({ type: "text", text: 'Use the bb skill "review": the diff' });
  });
});

describe("ACP bridge: session/resume", () => {
  it("restores with session/resume when the agent advertises it (preferred over session/load)", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { resumeSession: true, loadSession: false });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_rs", spec, bridge.dir), providerThreadId: "kept-7" });
    expect(resumed.result).toEqual({ providerThreadId: "kept-7", sessionRestorable: true });
    const methods = agentReceived(log).map((m) => m.method);
    expect(methods).toEqual(["initialize", "session/resume"]);
    expect(bridge.deltas("thr_rs").some((d) => d.kind === "provider.warning")).toBe(false);
  });
});
