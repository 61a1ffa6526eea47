/**
 * Turn behaviour of spec 30 §6.2 not yet pinned by the older bridge tests: agent-initiated work
 * (output or a permission request while idle), a runtime turn cancelling an agent turn with open
 * work, dropped pre-prompt output, the zero-output warning, busy retry giving up on stop, a prompt
 * failing during a steer's cancel, per-turn env vars, and `auto` on `turn/start`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk, type AnyRecord } from "./bridge-harness.js";
import { fixtureAgentMain } from "./fixture-agent-build.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const boundaries = (b: InProcessBridge, threadId: string) => b.deltas(threadId).filter((d) => d.kind === "turn.boundary");
const nthBoundary = (b: InProcessBridge, threadId: string, n: number) => () => boundaries(b, threadId).length >= n;

/**
 * A tiny ACP agent written for this test (the fixture agent cannot send a request after it
 * answered a prompt): after the FIRST prompt it answers `end_turn`, then asks for a permission
 * while idle; when the permission is answered it reports the outcome as a message chunk.
 */
const IDLE_PERMISSION_AGENT = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
let prompts = 0;
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false } } });
  else if (m.method === "session/new") send({ id: m.id, result: { sessionId: "idle-1" } });
  else if (m.method === "session/prompt") {
    prompts += 1;
    send({ method: "session/update", params: { sessionId: "idle-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "turn " + prompts } } } });
    send({ id: m.id, result: { stopReason: "end_turn" } });
    if (prompts === 1) send({ id: 0, method: "session/request_permission", params: { sessionId: "idle-1", toolCall: { toolCallId: "bg1", kind: "execute", title: "\`make\`" }, options: [{ optionId: "y", name: "Yes", kind: "allow_once" }, { optionId: "n", name: "No", kind: "reject_once" }] } });
  } else if (m.id === 0 && m.method === undefined) {
    send({ method: "session/update", params: { sessionId: "idle-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "permission " + JSON.stringify(m.result) } } } });
  }
});
`;
const idleAgentSpec = { displayName: "Idle asker", command: process.execPath, args: ["-e", IDLE_PERMISSION_AGENT], env: {} };

describe("agent-initiated turns (spec 30 §6.2)", () => {
  it("a permission request while idle opens an agent turn and is forwarded (no auto-cancel); it ends end_turn once quiet", async () => {
    // The quiet period runs on a fake clock: it passes only when the test advances it, after the
    // agent's last output, so a slow agent under load cannot split the agent turn in two.
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ agentTurnQuietMs: 30, scheduler: clock });
    const asked: AnyRecord[] = [];
    bridge.onRuntimeRequest((_m, params) => (asked.push(params), { decision: "allow_once" }));
    await bridge.request("thread/start", threadStartParams("thr_ip", idleAgentSpec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_ip", "hello", "creq_ip00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => typeof d.text === "string" && d.text.startsWith("permission ")));
    // Quiet time has not passed: the agent turn is still open.
    expect(boundaries(bridge, "thr_ip")).toHaveLength(1);
    await clock.whenPending((t) => t.delayMs === 30);
    clock.advance(30);
    await bridge.waitFor(nthBoundary(bridge, "thr_ip", 2));
    const deltas = bridge.deltas("thr_ip");
    const kinds = deltas.map((d) => d.kind).filter((k) => k === "turn.open" || k === "turn.boundary");
    expect(kinds).toEqual(["turn.open", "turn.boundary", "turn.open", "turn.boundary"]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.payload.subject).toMatchObject({ kind: "command", itemId: "bg1" });
    // The request was sent after the agent turn opened.
    const secondOpen = bridge.out.findIndex(
      (m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.kind === "turn.open") && bridge!.out.slice(0, bridge!.out.indexOf(m)).some(isBoundary),
    );
    expect(secondOpen).toBeLessThan(bridge.out.findIndex((m) => m.method === "interaction/request"));
    const texts = deltas.filter((d) => d.kind === "item.textDelta").map((d) => d.text);
    expect(texts).toEqual(["turn 1", 'permission {"outcome":{"outcome":"selected","optionId":"y"}}']);
    expect(boundaries(bridge, "thr_ip").map((d) => d.status)).toEqual(["completed", "completed"]);
  });

  it("turn/start cancels the pending permission of an agent turn before prompting", async () => {
    bridge = startInProcessBridge({ agentTurnQuietMs: 60_000 });
    bridge.onRuntimeRequest(() => new Promise(() => undefined));
    await bridge.request("thread/start", threadStartParams("thr_ipc", idleAgentSpec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_ipc", "hello", "creq_ipc0000000"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    const started = await bridge.request("turn/start", turnStartParams("thr_ipc", "again", "creq_ipc0000001"));
    expect(started.result).toEqual({ threadId: "thr_ipc" });
    await bridge.waitFor(nthBoundary(bridge, "thr_ipc", 3));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => typeof d.text === "string" && d.text.startsWith("permission ")));
    const texts = bridge
      .deltas("thr_ipc")
      .filter((d) => d.kind === "item.textDelta")
      .map((d) => d.text);
    expect(texts).toContain('permission {"outcome":{"outcome":"cancelled"}}');
  });

  it("turn/start finishes an agent turn that still has open work `cancelled`: tools close interrupted, boundary interrupted, then the new turn", async () => {
    bridge = startInProcessBridge({ agentTurnQuietMs: 60_000 });
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        { when: "first", steps: [chunk("done"), { end: "end_turn", after: [{ sessionUpdate: "tool_call", toolCallId: "bg_work", kind: "other", title: "Background", status: "in_progress" }] }] },
        { when: "second", steps: [chunk("two"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_ac", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_ac", "first", "creq_ac00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.key?.providerItemId === "bg_work"));
    await bridge.request("turn/start", turnStartParams("thr_ac", "second", "creq_ac00000001"));
    await bridge.waitFor(nthBoundary(bridge, "thr_ac", 3));
    expect(boundaries(bridge, "thr_ac").map((d) => d.status)).toEqual(["completed", "interrupted", "completed"]);
    const deltas = bridge.deltas("thr_ac");
    const close = deltas.find((d) => d.kind === "item.close" && d.key.providerItemId === "bg_work");
    expect(close.status).toBe("interrupted");
    expect(deltas.indexOf(close)).toBeLessThan(deltas.findLastIndex((d) => d.kind === "turn.open"));
  });
});

describe("turn output rules (spec 30 §6.2)", () => {
  it("output an agent streams after session/new, before any prompt, is kept in an agent turn of its own that settles before the first turn (spec 30 §6.2 dropped it)", async () => {
    // A fake clock that never moves: the pre-prompt agent turn is settled by turn/start, not by quiet time.
    bridge = startInProcessBridge({ agentTurnQuietMs: 30, scheduler: createFakeScheduler() });
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      afterNew: [
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "replayed history" } },
        { sessionUpdate: "tool_call", toolCallId: "old_call", kind: "other", title: "Old", status: "completed" },
        { sessionUpdate: "available_commands_update", availableCommands: [{ name: "compact", description: "c" }] },
      ],
      prompts: [{ steps: [chunk("live"), { end: "end_turn" }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_pre", spec, bridge.dir));
    // Thread state is not turn output, so it still arrives; it is the last line the agent wrote before the prompt.
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.kind === "extension.state" && d.extensionKind === "bb/provider-commands"));
    await bridge.request("turn/start", turnStartParams("thr_pre", "go", "creq_pre0000000"));
    const accepted = bridge.out.findIndex((m) => m.method === "thread/delta" && m.params.threadId === "thr_pre" && m.params.deltas.some((d: AnyRecord) => d.kind === "input.accepted"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_pre", accepted + 1);
    const deltas = bridge.deltas("thr_pre");
    expect(deltas.filter((d) => d.kind === "item.textDelta").map((d) => d.text)).toEqual(["replayed history", "live"]);
    const opens = deltas.flatMap((d, i) => (d.kind === "turn.open" ? [i] : []));
    expect(opens).toHaveLength(2);
    const firstBoundary = deltas.findIndex((d) => d.kind === "turn.boundary");
    expect(firstBoundary).toBeLessThan(opens[1]!);
    expect(deltas.findIndex((d) => d.key?.providerItemId === "old_call")).toBeLessThan(firstBoundary);
  });

  it("regression: pre-prompt output already read when turn/start arrives goes to its own agent turn, not the turn's output", async () => {
    // This agent writes its session/new answer and two updates in ONE write, so the bridge has read
    // all three lines before the runtime's turn/start (sent as soon as thread/start answers) arrives.
    const agent = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const line = (m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n";
const update = (u) => line({ method: "session/update", params: { sessionId: "pre-1", update: u } });
rl.on("line", (text) => {
  const m = JSON.parse(text);
  if (m.method === "initialize") process.stdout.write(line({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } }));
  else if (m.method === "session/new") process.stdout.write(line({ id: m.id, result: { sessionId: "pre-1" } }) + update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "history" } }) + update({ sessionUpdate: "tool_call", toolCallId: "old", kind: "other", title: "Old", status: "pending" }));
  else if (m.method === "session/prompt") process.stdout.write(update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "live" } }) + line({ id: m.id, result: { stopReason: "end_turn" } }));
});
`;
    bridge = startInProcessBridge();
    const spec = { displayName: "Chatty", command: process.execPath, args: ["-e", agent], env: {} };
    await bridge.request("thread/start", threadStartParams("thr_pre2", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_pre2", "go", "creq_pre2000000"));
    const accepted = bridge.out.findIndex((m) => m.method === "thread/delta" && m.params.threadId === "thr_pre2" && m.params.deltas.some((d: AnyRecord) => d.kind === "input.accepted"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_pre2", accepted + 1);
    const deltas = bridge.deltas("thr_pre2");
    expect(deltas.filter((d) => d.kind === "item.textDelta").map((d) => d.text)).toEqual(["history", "live"]);
    // The agent's own turn (its call still open: interrupted) settles before the runtime's turn opens.
    const boundaries = deltas.filter((d) => d.kind === "turn.boundary").map((d) => d.status);
    expect(boundaries).toEqual(["interrupted", "completed"]);
    const secondOpen = deltas.findIndex((d, i) => d.kind === "turn.open" && i > deltas.findIndex((e) => e.kind === "turn.boundary"));
    expect(deltas.findIndex((d) => d.kind === "item.textDelta" && d.text === "history")).toBeLessThan(secondOpen);
    expect(deltas.findIndex((d) => d.kind === "item.textDelta" && d.text === "live")).toBeGreaterThan(secondOpen);
  });

  it("a turn that ends end_turn with no output gets the warning before its boundary", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ update: { sessionUpdate: "usage_update", used: 1, size: 10 } }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_zo", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_zo", "go", "creq_zo00000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_zo");
    const deltas = bridge.deltas("thr_zo");
    const warning = deltas.findIndex((d) => d.kind === "provider.warning" && d.summary === "The agent ended the turn without replying");
    expect(warning).toBeGreaterThan(deltas.findIndex((d) => d.kind === "turn.open"));
    expect(warning).toBeLessThan(deltas.findIndex((d) => d.kind === "turn.boundary"));
    expect(deltas.find((d) => d.kind === "turn.boundary").status).toBe("completed");
  });
});

describe("busy retry and prompt failure (spec 30 §6.2)", () => {
  it("busy retry gives up on stop: the prompt is not re-sent and the turn settles interrupted before the stop's reply", async () => {
    // A long cancel wait: if the retry wait ignored the stop, the stop would hang past the guard.
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ busyRetryPollMs: 20, cancelSettleTimeoutMs: 60_000, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          when: "work",
          steps: [
            // An unfinished tool keeps the agent from counting as quiet, so no retry can start on its own.
            { update: { sessionUpdate: "tool_call", toolCallId: "busy_tool", kind: "other", title: "Busy", status: "in_progress" } },
            { fail: { code: -32003, message: "busy", data: { reason: "session_busy" } } },
          ],
        },
        { when: "work", steps: [chunk("retried"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_bs", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_bs", "work", "creq_bs00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.key?.providerItemId === "busy_tool"));
    const stopped = bridge.request("thread/stop", { threadId: "thr_bs", intent: "interrupt" });
    // The stop is waiting for the turn to settle (its settle timer is armed): only now does the
    // busy wait poll again, and it must give up rather than re-send.
    await clock.whenPending((t) => t.delayMs === 60_000);
    await clock.whenPending((t) => t.delayMs === 20);
    clock.advance(20);
    const stop = await stopped;
    expect(stop.result).toEqual({ ok: true });
    expect(boundaries(bridge, "thr_bs")).toEqual([{ kind: "turn.boundary", status: "interrupted", claimIfIdle: true }]);
    expect(bridge.out.findIndex(isBoundary)).toBeLessThan(bridge.out.indexOf(stop));
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);
    expect(bridge.out.some((m) => m.method === "error")).toBe(false);
  });

  it("busy retry gives up on a steer's cancel: no re-send, the steer is dropped with the failed prompt, session error", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ busyRetryPollMs: 20, scheduler: clock });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          when: "work",
          steps: [
            { update: { sessionUpdate: "tool_call", toolCallId: "busy_tool2", kind: "other", title: "Busy", status: "in_progress" } },
            { fail: { code: -32003, message: "busy", data: { reason: "session_busy" } } },
          ],
        },
        { steps: [chunk("should not run"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_bc", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_bc", "work", "creq_bc00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.key?.providerItemId === "busy_tool2"));
    await bridge.request("turn/steer", turnStartParams("thr_bc", "instead", "creq_bc00000001"));
    // The steer's cancel is out (answered at once); the next busy poll must give up.
    await clock.whenPending((t) => t.delayMs === 20);
    clock.advance(20);
    const error = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_bc");
    expect(error.params.message).toBe('busy: {"reason":"session_busy"}');
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);
    expect(
      bridge
        .deltas("thr_bc")
        .filter((d) => d.kind === "input.accepted")
        .map((d) => d.clientRequestId),
    ).toEqual(["creq_bc00000000"]);
    // The failed turn ends with the agent's error (issue 39), never completed or interrupted.
    expect(bridge.deltas("thr_bc").filter((d) => d.kind === "turn.boundary")).toEqual([expect.objectContaining({ status: "failed", error: { message: 'busy: {"reason":"session_busy"}' } })]);
  });

  it("a prompt failing while a steer's cancel is out: the steer is dropped (never accepted), session error, the turn fails with it; the next turn rebuilds", async () => {
    bridge = startInProcessBridge();
    bridge.onRuntimeRequest(() => new Promise(() => undefined));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      cancel: "ignore",
      prompts: [
        {
          when: "first",
          steps: [
            {
              permission: { toolCall: { toolCallId: "p", kind: "execute", title: "`make`" }, options: [{ optionId: "y", name: "Y", kind: "allow_once" }] },
              outcomes: { cancelled: [{ fail: { code: -32000, message: "agent fell over" } }] },
            },
          ],
        },
        { when: "later", steps: [chunk("fine again"), { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_fc", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_fc", "first", "creq_fc00000000"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    const steer = await bridge.request("turn/steer", turnStartParams("thr_fc", "steer me", "creq_fc00000001"));
    expect(steer.result).toEqual({ threadId: "thr_fc" });
    const error = await bridge.waitFor((m) => m.method === "error" && m.params.threadId === "thr_fc");
    expect(error.params.message).toBe("agent fell over");
    const deltas = bridge.deltas("thr_fc");
    expect(deltas.filter((d) => d.kind === "input.accepted").map((d) => d.clientRequestId)).toEqual(["creq_fc00000000"]);
    expect(deltas.filter((d) => d.kind === "turn.boundary")).toEqual([{ kind: "turn.boundary", status: "failed", error: { message: "agent fell over" }, claimIfIdle: true }]);
    expect(deltas.filter((d) => d.kind === "provider.error")).toEqual([expect.not.objectContaining({ settlesTurn: true })]);
    expect(agentReceived(log).filter((m) => m.method === "session/prompt")).toHaveLength(1);

    const from = bridge.out.length;
    const next = await bridge.request("turn/start", turnStartParams("thr_fc", "later", "creq_fc00000002"));
    expect(next.result).toEqual({ threadId: "thr_fc" });
    expect(bridge.out.slice(from).find((m) => m.method === "session/replaced")?.params).toEqual({
      threadId: "thr_fc",
      providerThreadId: "fixture-session-1",
      reason: "The agent failed during cancellation",
      contextLost: false,
    });
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_fc", from);
  });
});

describe("per-turn execution settings (spec 30 §6.2)", () => {
  it("a changed env var rebuilds the agent with it (session/replaced); an empty envVars changes nothing", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ reuse: true, steps: [{ echoEnv: ["SPEC_AUDIT_FLAVOUR"] }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_ev", spec, bridge.dir, { envVars: { SPEC_AUDIT_FLAVOUR: "plain" } }));
    const texts = () =>
      bridge!
        .deltas("thr_ev")
        .filter((d) => d.kind === "item.textDelta")
        .map((d) => JSON.parse(d.text).SPEC_AUDIT_FLAVOUR);

    let from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_ev", "one", "creq_ev00000000", { envVars: {} }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_ev", from);
    expect(bridge.out.slice(from).some((m) => m.method === "session/replaced")).toBe(false);

    from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_ev", "two", "creq_ev00000001", { envVars: { SPEC_AUDIT_FLAVOUR: "spicy" } }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_ev", from);
    expect(bridge.out.slice(from).find((m) => m.method === "session/replaced")?.params).toMatchObject({ reason: "Execution settings changed", contextLost: false });
    expect(texts()).toEqual(["plain", "spicy"]);
    expect(agentReceived(log).filter((m) => m.method === "initialize")).toHaveLength(2);
  });

  it("a changed reasoning level of a launch-flag agent (reasoningCli) rebuilds it with the new flag", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ reuse: true, steps: [chunk("ok"), { end: "end_turn" }] }] });
    // An executable wrapper records its argv, then runs the fixture agent (which ignores flags it does not know).
    const argvLog = join(bridge.dir, "argv.ndjson");
    const wrapper = join(bridge.dir, "reasoning-agent.mjs");
    writeFileSync(
      wrapper,
      `#!${process.execPath}\nimport { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.argv.slice(2)) + "\\n");\nawait import(${JSON.stringify(pathToFileURL(fixtureAgentMain()).href)});\n`,
    );
    chmodSync(wrapper, 0o755);
    const reasoningSpec = { ...spec, command: wrapper, args: (spec.args as string[]).slice(1), reasoningCli: { flag: "--effort", supportedLevels: ["low", "high"] } };
    await bridge.request("thread/start", threadStartParams("thr_rz", reasoningSpec, bridge.dir, { reasoningLevel: "low" }));
    let from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_rz", "same", "creq_rz00000000", { reasoningLevel: "low" }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_rz", from);
    expect(bridge.out.slice(from).some((m) => m.method === "session/replaced")).toBe(false);
    from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_rz", "deeper", "creq_rz00000001", { reasoningLevel: "high" }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_rz", from);
    expect(bridge.out.slice(from).find((m) => m.method === "session/replaced")?.params).toMatchObject({ reason: "Execution settings changed", contextLost: false });
    const launches = readFileSync(argvLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    expect(launches.map((argv) => argv.slice(0, 2))).toEqual([
      ["--effort", "low"],
      ["--effort", "high"],
    ]);
    expect(agentReceived(log).filter((m) => m.method === "session/load")).toHaveLength(1);
  });

  it("permission mode auto on turn/start is refused with the reference's message and prompts nothing", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {});
    await bridge.request("thread/start", threadStartParams("thr_pa", spec, bridge.dir));
    const turn = await bridge.request("turn/start", turnStartParams("thr_pa", "go", "creq_pa00000000", { permissionMode: "auto" }));
    expect(turn.error).toEqual({ code: -32000, message: 'ACP does not support permission mode "auto".' });
    expect(agentReceived(log).some((m) => m.method === "session/prompt")).toBe(false);
    expect(bridge.deltas("thr_pa").some((d) => d.kind === "turn.open")).toBe(false);
  });
});

describe("steer re-prompts reconcile execution settings (spec 30 §6.2)", () => {
  const options = [
    { optionId: "yes", name: "Yes", kind: "allow_once" },
    { optionId: "no", name: "No", kind: "reject_once" },
  ];

  it("a steer's permission mode and session options apply before its re-prompt: set_config_option first, then a permission answered locally in full mode", async () => {
    bridge = startInProcessBridge();
    const asked: string[] = [];
    bridge.onRuntimeRequest((method) => (asked.push(method), { decision: "deny" }));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      sessionResult: { configOptions: [{ id: "fast", name: "Fast", type: "boolean", currentValue: false }] },
      prompts: [
        { when: "slow", steps: [chunk("slow"), { waitForCancel: true }] },
        { when: "quick", steps: [{ permission: { toolCall: { toolCallId: "q1", kind: "execute", title: "`make`" }, options } }, { end: "end_turn" }] },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_sr", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_sr", "slow", "creq_sr00000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "slow"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_sr", "quick", "creq_sr00000001", { permissionMode: "full", sessionOptions: { fast: true } }));
    expect(steer.result).toEqual({ threadId: "thr_sr" });
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_sr");
    const received = agentReceived(log);
    expect(received.map((m) => m.method ?? "reply").slice(2)).toEqual(["session/prompt", "session/cancel", "session/set_config_option", "session/prompt", "reply"]);
    expect(received.find((m) => m.method === "session/set_config_option")!.params).toMatchObject({ configId: "fast", value: true });
    expect(received.at(-1)!.result).toEqual({ outcome: { outcome: "selected", optionId: "yes" } });
    expect(asked).toEqual([]);
  });

  it("a steer asking for permission mode auto is refused before anything is cancelled; the turn goes on", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [chunk("working"), { waitForCancel: true }] }] });
    await bridge.request("thread/start", threadStartParams("thr_sa2", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_sa2", "go", "creq_sa20000000"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "working"));
    const steer = await bridge.request("turn/steer", turnStartParams("thr_sa2", "more", "creq_sa20000001", { permissionMode: "auto" }));
    expect(steer.error).toEqual({ code: -32000, message: 'ACP does not support permission mode "auto".' });
    const stop = await bridge.request("thread/stop", { threadId: "thr_sa2", intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    // The only cancel the agent saw is the stop's, and only the turn's own input was accepted.
    expect(agentReceived(log).filter((m) => m.method === "session/cancel")).toHaveLength(1);
    expect(
      bridge
        .deltas("thr_sa2")
        .filter((d) => d.kind === "input.accepted")
        .map((d) => d.clientRequestId),
    ).toEqual(["creq_sa20000000"]);
  });
});

describe("questions while nothing could use the answer (spec 30 §6.2)", () => {
  const form = { sessionId: "fixture-session-1", message: "Go on?", requestedSchema: { type: "object", properties: { go: { type: "boolean", title: "Go on?" } } } };

  it("regression: an elicitation during /compact is answered cancel without asking the runtime (it used to be forwarded)", async () => {
    bridge = startInProcessBridge();
    const asked: string[] = [];
    bridge.onRuntimeRequest((method) => (asked.push(method), { answers: { go: { selected: ["true"] } } }));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ when: "/compact", steps: [{ request: { method: "elicitation/create", params: form } }, chunk("summary"), { end: "end_turn" }] }],
    });
    await bridge.request("thread/start", threadStartParams("thr_qc", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_qc", "/compact", "creq_qc00000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_qc");
    expect(asked).toEqual([]);
    expect(agentReceived(log).find((m) => m.id === 0 && m.method === undefined)?.result).toEqual({ action: "cancel" });
  });

  it("regression: an elicitation arriving while a steer's cancel is out is answered cancel without asking the runtime", async () => {
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ cancelSettleTimeoutMs: 100, scheduler: clock });
    const asked: string[] = [];
    bridge.onRuntimeRequest((method) => (asked.push(method), new Promise(() => undefined)));
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      cancel: "ignore",
      prompts: [
        {
          steps: [
            {
              permission: { toolCall: { toolCallId: "p", kind: "execute", title: "`make`" }, options: [{ optionId: "y", name: "Y", kind: "allow_once" }] },
              outcomes: { cancelled: [{ request: { method: "elicitation/create", params: form } }, chunk("asked after the cancel")] },
            },
            { waitForCancel: true },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_qs", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_qs", "go", "creq_qs00000000"));
    await bridge.waitFor((m) => m.method === "interaction/request");
    await bridge.request("turn/steer", turnStartParams("thr_qs", "change", "creq_qs00000001"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: AnyRecord) => d.text === "asked after the cancel"));
    expect(asked).toEqual(["interaction/request"]);
    const replies = agentReceived(log).filter((m) => m.method === undefined);
    expect(replies.map((m) => [m.id, m.result])).toEqual([
      [0, { outcome: { outcome: "cancelled" } }],
      [1, { action: "cancel" }],
    ]);
    // The agent ignores session/cancel: the stop settles the turn once the settle wait passes.
    const stopped = bridge.request("thread/stop", { threadId: "thr_qs", intent: "interrupt" });
    await clock.whenPending((t) => t.delayMs === 100);
    clock.advance(100);
    expect((await stopped).result).toEqual({ ok: true });
  });
});
