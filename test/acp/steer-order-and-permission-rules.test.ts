/**
 * The subtle behaviours of spec 20 §8 that the existing bridge tests only touched in passing,
 * each checked at the bridge boundary (in-process bridge + fixture agent) or, where the behaviour
 * lives in the translator alone, on the translator. Items 3, 5, 6 and 10 are checked as spec 30
 * changed them. Rows in stack/acp/SPEC-COVERAGE.md point here.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import {
  agentReceived,
  fixtureLaunchSpec,
  isBoundary,
  startInProcessBridge,
  threadStartParams,
  turnStartParams,
  type InProcessBridge,
  chunk,
  type AnyRecord,
  pastSettleWait,
} from "./bridge-harness.js";
import { genericAcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const thought = (text: string) => ({ update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text } } });
const PERMISSION_OPTIONS = [
  { optionId: "yes", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];
const boundaryOf = (threadId: string) => (m: AnyRecord) => isBoundary(m) && m.params.threadId === threadId;
const indexOfDelta = (b: InProcessBridge, predicate: (d: AnyRecord) => boolean) => b.out.findIndex((m) => m.method === "thread/delta" && m.params.deltas.some(predicate));

describe("spec 20 §8.1 acceptance timing", () => {
  it("a steer is answered at once but accepted only after its re-prompt is written, i.e. after the cancelled prompt answered", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "first", steps: [chunk("working"), { waitForCancel: true }] },
        { when: "second", steps: [chunk("steered"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_81", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_81", "first", "creq_810000000a"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "working"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_81", "second", "creq_810000000b"));
    expect(steer.result).toEqual({ threadId: "thr_81" });
    await bridge.waitFor(boundaryOf("thr_81"));
    const steerReply = bridge.out.indexOf(steer);
    const steerAccepted = indexOfDelta(bridge, (d) => d.kind === "input.accepted" && d.clientRequestId === "creq_810000000b");
    expect(steerAccepted).toBeGreaterThan(steerReply);
    // The re-prompt went out after the agent answered the first prompt `cancelled` (the fixture only answers after the cancel).
    const received = agentReceived(log).map((m) => m.method ?? `reply:${m.id}`);
    expect(received.slice(2)).toEqual(["session/prompt", "session/cancel", "session/prompt"]);
  });

  it("a dropped steer is never accepted: the stop drops it and only the turn's own input is accepted", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 100, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { cancel: "ignore", prompts: [{ steps: [chunk("busy"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_81d", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_81d", "go", "creq_81d000000a"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "busy"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_81d", "never mind", "creq_81d000000b"));
    expect(steer.result).toEqual({ threadId: "thr_81d" });
    const stop = await pastSettleWait(clock, 100, () => bridge!.request("thread/stop", { threadId: "thr_81d", intent: "interrupt" }));
    expect(stop.result).toEqual({ ok: true });
    const accepted = bridge
      .deltas("thr_81d")
      .filter((d) => d.kind === "input.accepted")
      .map((d) => d.clientRequestId);
    expect(accepted).toEqual(["creq_81d000000a"]);
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);
    expect(bridge.deltas("thr_81d").filter((d) => d.kind === "turn.boundary")).toEqual([{ kind: "turn.boundary", status: "interrupted", claimIfIdle: true }]);
  });
});

describe("spec 20 §8.2 steer = cancel + re-prompt in the same turn", () => {
  it("one turn.open, the cancelled answer discarded, no instructions in the re-prompt, an orphaned tool drains at the end with the turn's status", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "start", steps: [{ update: { sessionUpdate: "tool_call", toolCallId: "orphan", kind: "other", title: "Long job", status: "in_progress" } }, { waitForCancel: true }] },
        { when: "instead", steps: [chunk("switched"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_82", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_82", "start", "creq_8200000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.kind === "item.open"));
    await bridge.request("turn/steer", turnStartParams("thr_82", "instead", "creq_8200000001"));
    await bridge.waitFor(boundaryOf("thr_82"));
    const deltas = bridge.deltas("thr_82");
    expect(deltas.filter((d) => d.kind === "turn.open")).toHaveLength(1);
    expect(deltas.filter((d) => d.kind === "turn.boundary")).toEqual([{ kind: "turn.boundary", status: "completed", claimIfIdle: true }]);
    // The orphan stays open through the steer and closes with the turn's status, just before the boundary.
    const closes = deltas.filter((d) => d.kind === "item.close");
    expect(closes).toHaveLength(1);
    expect(closes[0]).toMatchObject({ key: { providerItemId: "orphan" }, status: "completed" });
    expect(deltas.indexOf(closes[0])).toBeGreaterThan(deltas.findIndex((d) => d.kind === "item.textDelta" && d.text === "switched"));
    const prompts = agentReceived(log).filter((m) => m.method === "session/prompt");
    expect(prompts[0]!.params.prompt[0].text).toMatch(/^<system_instructions>/);
    expect(prompts[1]!.params.prompt).toEqual([{ type: "text", text: "instead" }]);
  });

  it("two steers queued behind one cancel are prompted in order, each accepted when written", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "base", steps: [chunk("base"), { waitForCancel: true }] },
        { when: "steer one", steps: [{ waitForCancel: true }] },
        { when: "steer two", steps: [chunk("two"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_82b", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_82b", "base", "creq_82b0000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "base"));
    await bridge.request("turn/steer", turnStartParams("thr_82b", "steer one", "creq_82b0000001"));
    await bridge.request("turn/steer", turnStartParams("thr_82b", "steer two", "creq_82b0000002"));
    await bridge.waitFor(boundaryOf("thr_82b"));
    const deltas = bridge.deltas("thr_82b");
    expect(deltas.filter((d) => d.kind === "input.accepted").map((d) => d.clientRequestId)).toEqual(["creq_82b0000000", "creq_82b0000001", "creq_82b0000002"]);
    expect(deltas.filter((d) => d.kind === "turn.open")).toHaveLength(1);
    expect(deltas.find((d) => d.kind === "turn.boundary").status).toBe("completed");
    const texts = agentReceived(log)
      .filter((m) => m.method === "session/prompt")
      .map((m) => m.params.prompt.at(-1).text);
    expect(texts).toEqual(["base", "steer one", "steer two"]);
  });
});

describe("spec 20 §8.4 construction order", () => {
  it("resume: identity → session.reset → thread state → the LAST replayed usage_update → result; the replayed text never reaches the timeline", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      load: {
        replay: [
          { sessionUpdate: "usage_update", used: 100, size: 1000 },
          { sessionUpdate: "user_message_chunk", content: { type: "text", text: "old question" } },
          { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old answer" } },
          { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] },
          { sessionUpdate: "usage_update", used: 300, size: 1000 },
        ],
      },
    });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_84", spec, bridge.dir), providerThreadId: "kept-84" });
    expect(resumed.result).toEqual({ providerThreadId: "kept-84", sessionRestorable: true });
    const identity = bridge.out.findIndex((m) => m.method === "thread/identity");
    const reset = indexOfDelta(bridge, (d) => d.kind === "session.reset");
    const state = indexOfDelta(bridge, (d) => d.kind === "extension.state");
    const usage = indexOfDelta(bridge, (d) => d.kind === "contextWindow");
    const result = bridge.out.indexOf(resumed);
    expect([identity, reset, state, usage, result].every((index) => index >= 0)).toBe(true);
    expect(identity).toBeLessThan(reset);
    expect(reset).toBeLessThan(state);
    expect(state).toBeLessThan(usage);
    expect(usage).toBeLessThan(result);
    const deltas = bridge.deltas("thr_84");
    expect(deltas.filter((d) => d.kind === "contextWindow")).toEqual([{ kind: "contextWindow", used: 300, size: 1000, estimated: false, attach: "open" }]);
    expect(deltas.some((d) => d.kind === "item.textDelta" || d.kind === "turn.open")).toBe(false);
  });

  it("a fresh-session fallback: identity → session.reset → the deferred warning → result", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { load: { replay: [], error: "unknown session" } });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_84w", spec, bridge.dir), providerThreadId: "gone-84" });
    const identity = bridge.out.findIndex((m) => m.method === "thread/identity");
    const reset = indexOfDelta(bridge, (d) => d.kind === "session.reset");
    const warning = indexOfDelta(bridge, (d) => d.kind === "provider.warning");
    expect(identity).toBeLessThan(reset);
    expect(reset).toBeLessThan(warning);
    expect(warning).toBeLessThan(bridge.out.indexOf(resumed));
    // The fallback changed the providerThreadId, and still no session/replaced or provider/recovery (spec 20 §8.10).
    expect(resumed.result.providerThreadId).toBe("fixture-session-1");
    expect(bridge.out.some((m) => m.method === "session/replaced" || m.method === "provider/recovery")).toBe(false);
  });
});

describe("spec 20 §8.6 (as changed by spec 30 §1.1) results", () => {
  const make = () => createAcpTranslator({ threadId: "thr_86", dialect: genericAcpDialect, now: () => 0 });
  const open = (t: ReturnType<typeof make>, id: string, kind: string) =>
    t.update({ sessionUpdate: "tool_call", toolCallId: id, kind, title: "T", status: "pending", rawInput: kind === "execute" ? { command: "c" } : {} });
  const close = (t: ReturnType<typeof make>, id: string, fields: AnyRecord) => t.update({ sessionUpdate: "tool_call_update", toolCallId: id, ...fields }).at(-1) as AnyRecord;

  it("an object rawOutput without an array content is the JSON text of the object; with one, the content's text", () => {
    const t = make();
    open(t, "a", "other");
    expect(close(t, "a", { status: "completed", rawOutput: { files: 3, ok: true } }).resultText).toBe(JSON.stringify({ files: 3, ok: true }));
    open(t, "b", "other");
    expect(close(t, "b", { status: "completed", rawOutput: { content: [{ type: "text", text: "from content" }], other: 1 } }).resultText).toBe("from content");
  });

  it("exit codes: rawOutput.exitCode is read even on a completed call (the older 'ACP status only' rule is gone); completed without one has none; failed without one is 1", () => {
    const t = make();
    open(t, "x", "execute");
    expect(close(t, "x", { status: "completed", rawOutput: { exitCode: 7, stdout: "" } }).exitCode).toBe(7);
    open(t, "y", "execute");
    expect("exitCode" in close(t, "y", { status: "completed", rawOutput: { stdout: "fine" } })).toBe(false);
    open(t, "z", "execute");
    expect(close(t, "z", { status: "failed", rawOutput: { stdout: "bad" } }).exitCode).toBe(1);
  });
});

describe("spec 20 §8.8 stream flushes", () => {
  it("a tool_call_update closes neither stream; turn end closes thought, then assistant, then drains tools in insertion order", () => {
    const t = createAcpTranslator({ threadId: "thr_88", dialect: genericAcpDialect, now: () => 0 });
    t.turnStarted();
    t.update({ sessionUpdate: "tool_call", toolCallId: "first", kind: "other", title: "First", status: "pending" });
    t.update({ sessionUpdate: "tool_call", toolCallId: "second", kind: "other", title: "Second", status: "pending" });
    t.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } });
    t.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } });
    t.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "more" } });
    const mid = t.update({ sessionUpdate: "tool_call_update", toolCallId: "first", status: "in_progress", content: [{ type: "content", content: { type: "text", text: "half" } }] });
    expect(mid.some((d: AnyRecord) => d.kind === "item.textClose")).toBe(false);
    const end = t.turnCompleted("end_turn") as AnyRecord[];
    expect(end.map((d) => (d.kind === "item.textClose" ? `close:${d.channel}` : d.kind === "item.close" ? `tool:${d.key.providerItemId}` : d.kind))).toEqual([
      "close:reasoningText",
      "close:agentMessage",
      "tool:first",
      "tool:second",
      "turn.boundary",
    ]);
  });
});

describe("spec 20 §8.9 permissions", () => {
  it("a steer's cancel answers a pending permission `cancelled` before the runtime decided", async () => {
    bridge = startInProcessBridge();
    let answer: ((value: unknown) => void) | undefined;
    bridge.onRuntimeRequest(() => new Promise((resolve) => (answer = resolve)));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "edit", steps: [{ permission: { toolCall: { toolCallId: "p1", kind: "execute", title: "`rm -rf build`" }, options: PERMISSION_OPTIONS } }, { waitForCancel: true }] },
        { when: "stop that", steps: [chunk("ok"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_89", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_89", "edit", "creq_8900000000"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    await bridge.request("turn/steer", turnStartParams("thr_89", "stop that", "creq_8900000001"));
    await bridge.waitFor(boundaryOf("thr_89"));
    answer?.({ decision: "allow_once" });
    const replies = agentReceived(log).filter((m) => m.id === 0 && m.method === undefined);
    expect(replies.map((m) => m.result)).toEqual([{ outcome: { outcome: "cancelled" } }]);
  });

  it("once↔always fallback: allow_once picks allow_always when that is all the agent offers; full mode too", async () => {
    const always = [
      { optionId: "always", name: "Always", kind: "allow_always" },
      { optionId: "never", name: "Never", kind: "reject_always" },
    ];
    const script = { prompts: [{ reuse: true, steps: [{ permission: { toolCall: { toolCallId: "p2", kind: "edit", title: "Edit a.txt" }, options: always } }, { end: "end_turn" }] }] };
    for (const [mode, decision, expected] of [
      ["accept-edits", "allow_once", "always"],
      ["accept-edits", "deny", "never"],
      ["full", null, "always"],
    ] as const) {
      bridge = startInProcessBridge();
      const asked: AnyRecord[] = [];
      bridge.onRuntimeRequest((_m, params) => (asked.push(params), { decision }));
      const { spec, log } = fixtureLaunchSpec(bridge.dir, script);
      await bridge.request("thread/start", threadStartParams("thr_89b", spec, bridge.dir, { permissionMode: mode }));
      await bridge.request("turn/start", turnStartParams("thr_89b", "go", "creq_89b0000000"));
      await bridge.waitFor(boundaryOf("thr_89b"));
      expect(agentReceived(log).find((m) => m.id === 0 && m.method === undefined)?.result).toEqual({ outcome: { outcome: "selected", optionId: expected } });
      expect(asked).toHaveLength(mode === "full" ? 0 : 1);
      if (mode !== "full") expect(asked[0]!.payload.availableDecisions).toEqual(["allow_for_session", "deny"]);
      await bridge.close();
      bridge = undefined;
    }
  });

  it("accept-edits forwards a file-edit approval too (the runtime decides), with the write scope as subject", async () => {
    bridge = startInProcessBridge();
    const asked: AnyRecord[] = [];
    bridge.onRuntimeRequest((_m, params) => (asked.push(params), { decision: "allow_once" }));
    const target = `${bridge.dir}/src/a.ts`;
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ steps: [{ permission: { toolCall: { toolCallId: "e1", kind: "edit", title: "Edit a.ts", locations: [{ path: target }] }, options: PERMISSION_OPTIONS } }, { end: "end_turn" }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_89c", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_89c", "go", "creq_89c0000000"));
    await bridge.waitFor(boundaryOf("thr_89c"));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.payload.subject).toEqual({ kind: "file_change", itemId: "e1", writeScope: target, sessionGrant: null });
  });
});

describe("spec 20 §8.10 (as changed by spec 30) error asymmetries", () => {
  it("no reply to a request whose jsonrpc is not 2.0, nor to an id-less message; the next good request is answered", async () => {
    bridge = startInProcessBridge();
    await bridge.sendLine(JSON.stringify({ jsonrpc: "1.0", id: 41, method: "initialize", params: { protocolVersion: 2, client: { name: "t", version: "1" } } }));
    await bridge.sendLine(JSON.stringify({ id: 42, method: "initialize", params: {} }));
    await bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "thread/stop", params: { threadId: "x", intent: "interrupt" } }));
    expect(bridge.out).toEqual([]);
    const ok = await bridge.request("thread/stop", { threadId: "x", intent: "interrupt" });
    expect(ok.result).toEqual({ ok: true });
    expect(bridge.out).toHaveLength(1);
  });

  it("a session needs a launch spec: thread/start without one is -32602 naming acpLaunchSpec and spawns nothing", async () => {
    bridge = startInProcessBridge();
    const start = await bridge.request("thread/start", { threadId: "thr_ns", cwd: bridge.dir, options: { providerOptions: {} } });
    expect(start.error.code).toBe(-32602);
    expect(start.error.message).toContain("acpLaunchSpec");
    expect(bridge.out.some((m) => m.method === "thread/identity")).toBe(false);
  });

  it("an agent exit mid-turn settles the turn ONLY through provider.error {settlesTurn:true}: no turn.boundary, no provider/recovery", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [thought("hmm"), chunk("partial"), { exit: 4 }] }] });
    await bridge.request("thread/start", threadStartParams("thr_810", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_810", "go", "creq_8100000000"));
    await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_810");
    const deltas = bridge.deltas("thr_810");
    expect(deltas.filter((d) => d.kind === "provider.error")).toEqual([expect.objectContaining({ settlesTurn: true })]);
    expect(deltas.some((d) => d.kind === "turn.boundary")).toBe(false);
    expect(bridge.out.some((m) => m.method === "provider/recovery")).toBe(false);
    const notification = bridge.out.find((m) => m.method === "error")!;
    expect(notification.params.data?.recovery).toBeUndefined();
  });
});
