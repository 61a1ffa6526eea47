/**
 * The pi bridge against the pi fixture agent (stack/pi/fixture-agent): every item kept, the
 * approval gate both ways, stop, steer, model errors with recovery, resume by `--session`, other
 * extension dialogs as user questions, a refused prompt without a phantom turn.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isBoundary, startPiTestBridge, turnParams, type PiTestBridge } from "./pi-harness.js";

let bridge: PiTestBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const T = "thr_pi_test";
const settled = (b: PiTestBridge) => b.waitFor(isBoundary);
const kinds = (deltas: any[]) => deltas.map((d) => d.kind);

describe("pi bridge: a turn of tool work", () => {
  it("keeps read, edit, bash (with pi's exit trailer), write and another tool as their items, then usage and the boundary", async () => {
    bridge = startPiTestBridge();
    const start = await bridge.request(
      "thread/start",
      bridge.startParams(T, {
        prompts: [
          {
            calls: [
              { text: "Reading.", tools: [{ name: "read", args: { path: `/w/notes.txt` }, result: "a\nb\n" }] },
              { tools: [{ name: "edit", args: { path: "/w/notes.txt", edits: [] }, result: "ok", details: { diff: " 1 a\n-2 b\n+2 c" } }] },
              { tools: [{ name: "bash", args: { command: "false" }, result: "out\n\n\nCommand exited with code 3", isError: true, updates: ["out\n"] }] },
              {
                tools: [
                  { name: "write", args: { path: "/w/new.txt", content: "x\n" }, result: "wrote" },
                  { name: "grep", args: { pattern: "a" }, result: "a" },
                ],
              },
              { thinking: "All done.", text: "Done." },
            ],
          },
        ],
      }),
    );
    expect(start.result).toEqual({ providerThreadId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), sessionRestorable: true });
    const reply = await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    expect(reply.result).toEqual({ threadId: T });
    await settled(bridge);
    const deltas = bridge.deltas(T);
    const closes = deltas.filter((d) => d.kind === "item.close");
    expect(closes.map((d) => [d.item.type, d.status])).toEqual([
      ["fileRead", "completed"],
      ["fileChange", "completed"],
      ["command", "failed"],
      ["fileChange", "completed"],
      ["tool", "completed"],
    ]);
    expect(closes[1].item.changes).toEqual([{ path: "/w/notes.txt", kind: "update", diff: "--- a//w/notes.txt\n+++ b//w/notes.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n".replace(/\/\/w/g, "/w") }]);
    expect(closes[2]).toMatchObject({ exitCode: 3, aggregatedOutput: "out\n" });
    expect(closes[3].item.changes).toEqual([{ path: "/w/new.txt", kind: "add", diff: "--- /dev/null\n+++ b/w/new.txt\n@@ -0,0 +1,1 @@\n+x\n" }]);
    expect(deltas.find((d) => d.kind === "command.outputSnapshot")).toMatchObject({ text: "out\n" });
    const texts = deltas.filter((d) => d.kind === "item.textClose").map((d) => [d.channel, d.text]);
    expect(texts).toEqual([
      ["agentMessage", "Reading."],
      ["reasoningText", "All done."],
      ["agentMessage", "Done."],
    ]);
    expect(kinds(deltas).slice(-2)).toEqual(["usage", "turn.boundary"]);
    expect(deltas.at(-1)).toEqual({ kind: "turn.boundary", status: "completed" });
    expect(deltas.find((d) => d.kind === "usage").last.totalTokens).toBe(75);
    // One turn.open per user-level turn: pi's five model calls are not turns.
    expect(kinds(deltas).filter((k) => k === "turn.open")).toHaveLength(1);
    expect(bridge.launches[0]).toEqual(expect.arrayContaining(["--mode", "rpc", "--no-skills", "--no-prompt-templates", "--no-themes", "--no-context-files"]));
    expect(bridge.launches[0]).not.toContain("-e");
  });

  it("answers the gate's confirm from the runtime: allow runs the call and closes it approved, deny closes it denied with no output", async () => {
    bridge = startPiTestBridge();
    const asked: any[] = [];
    bridge.onInteraction((params) => {
      asked.push(params.payload);
      return { decision: asked.length === 1 ? "allow_once" : "deny" };
    });
    await bridge.request(
      "thread/start",
      bridge.startParams(
        T,
        {
          prompts: [
            {
              calls: [
                {
                  tools: [
                    { name: "bash", args: { command: "touch a" }, result: "(no output)", gate: true },
                    { name: "bash", args: { command: "touch b" }, result: "never", gate: true },
                  ],
                },
                { text: "ok" },
              ],
            },
          ],
        },
        "accept-edits",
      ),
    );
    expect(bridge.launches[0]).toContain("-e");
    await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    await settled(bridge);
    expect(asked.map((p) => [p.kind, p.subject.kind, p.subject.command, p.subject.itemId])).toEqual([
      ["approval", "command", "touch a", "call_fixture_1_1"],
      ["approval", "command", "touch b", "call_fixture_1_2"],
    ]);
    const closes = bridge.deltas(T).filter((d) => d.kind === "item.close");
    expect(closes[0]).toMatchObject({ status: "completed", aggregatedOutput: "", approvalStatus: "approved" });
    expect(closes[1]).toEqual({
      kind: "item.close",
      key: { providerItemId: "call_fixture_1_2" },
      status: "failed",
      approvalStatus: "denied",
      item: { type: "command", command: "touch b", cwd: bridge.dir },
    });
  });
});

describe("pi bridge: stop, steer, errors, resume", () => {
  it("thread/stop interrupt: the interrupted boundary is on the wire before the stop's answer, then pi ends", async () => {
    bridge = startPiTestBridge();
    await bridge.request("thread/start", bridge.startParams(T, { prompts: [{ calls: [{ text: "Thinking", hold: true }] }] }));
    await bridge.request("turn/start", turnParams(T, "long", "creq_2222222222"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "item.textDelta"));
    const stop = await bridge.request("thread/stop", { threadId: T, intent: "interrupt" });
    expect(stop.result).toEqual({ ok: true });
    const boundaryAt = bridge.out.findIndex(isBoundary);
    expect(boundaryAt).toBeGreaterThan(-1);
    expect(boundaryAt).toBeLessThan(bridge.out.indexOf(stop));
    const deltas = bridge.deltas(T);
    expect(deltas.find((d) => d.kind === "item.textClose")).toMatchObject({ text: "Thinking" });
    expect(deltas.at(-1)).toEqual({ kind: "turn.boundary", status: "interrupted" });
    // The thread has no session until it is resumed.
    expect((await bridge.request("turn/start", turnParams(T, "again", "creq_2222222223"))).error.code).toBe(-32000);
  });

  it("turn/steer is pi's steer: accepted in the running turn, delivered before its next model call, one boundary", async () => {
    bridge = startPiTestBridge();
    await bridge.request("thread/start", bridge.startParams(T, { prompts: [{ calls: [{ text: "Drafting", hold: true }, { text: "Mountains." }] }] }));
    await bridge.request("turn/start", turnParams(T, "sea", "creq_2222222222"));
    await bridge.waitFor((m) => m.method === "thread/delta" && m.params.deltas.some((d: any) => d.kind === "item.textDelta"));
    const steer = await bridge.request("turn/steer", turnParams(T, "mountains", "creq_2222222223"));
    expect(steer.result).toEqual({ threadId: T });
    await settled(bridge);
    const deltas = bridge.deltas(T);
    expect(deltas.filter((d) => d.kind === "input.accepted").map((d) => d.clientRequestId)).toEqual(["creq_2222222222", "creq_2222222223"]);
    expect(deltas.filter((d) => d.kind === "item.textClose").map((d) => d.text)).toEqual(["Drafting", "Mountains."]);
    expect(kinds(deltas).filter((k) => k === "turn.boundary")).toHaveLength(1);
    expect((await bridge.request("turn/steer", turnParams(T, "late", "creq_2222222224"))).error.code).toBe(-32001);
  });

  it.each([
    [401, "unauthorized", { kind: "authRequired", retryable: false }],
    [429, "rate-limit", { kind: "rateLimited", retryable: true }],
    [400, "bad-request", undefined],
  ])("a model error %i fails the turn with its category and typed recovery", async (status, category, recovery) => {
    bridge = startPiTestBridge();
    const message = `${status} scripted failure`;
    await bridge.request("thread/start", bridge.startParams(T, { prompts: [{ calls: [{ error: message, retries: status === 429 ? 2 : 0 }] }] }));
    await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    await settled(bridge);
    const deltas = bridge.deltas(T);
    const errors = deltas.filter((d) => d.kind === "provider.error");
    expect(errors.at(-1)).toEqual({ kind: "provider.error", message, category, errorInfo: { category, providerCode: null, httpStatusCode: status } });
    expect(errors.slice(0, -1).every((e) => e.willRetry === true)).toBe(true);
    expect(errors).toHaveLength(status === 429 ? 3 : 1);
    expect(deltas.at(-1)).toEqual({ kind: "turn.boundary", status: "failed", error: { message } });
    expect(kinds(deltas)).not.toContain("item.open");
    const sent = bridge.out.find((m) => m.method === "provider/recovery");
    expect(sent?.params).toEqual(recovery ? { threadId: T, ...recovery, message } : undefined);
  });

  it("thread/resume starts a new pi with --session <file> and keeps the session id", async () => {
    bridge = startPiTestBridge();
    const start = await bridge.request("thread/start", bridge.startParams(T, { prompts: [{ calls: [{ text: "one" }] }] }));
    await bridge.request("thread/stop", { threadId: T, intent: "release" });
    const resumed = await bridge.request("thread/resume", { ...bridge.startParams(T, { sessionId: "not-this-one" }), providerThreadId: start.result.providerThreadId });
    expect(resumed.result.providerThreadId).toBe(start.result.providerThreadId);
    expect(bridge.launches[1]!.slice(-2)).toEqual(["--session", `/fixture/sessions/1970-01-01T00-00-00-000Z_${start.result.providerThreadId}.jsonl`]);
  });
});

describe("pi bridge: other extension dialogs and refusals", () => {
  it("a select becomes a user question and the picked option goes back as its value", async () => {
    bridge = startPiTestBridge();
    const asked: any[] = [];
    bridge.onInteraction((params) => {
      asked.push(params.payload);
      return { kind: "user_answer", answers: { answer: { selected: ["blue"] } } };
    });
    await bridge.request(
      "thread/start",
      bridge.startParams(T, {
        prompts: [
          {
            calls: [
              {
                dialogs: [
                  { method: "notify", title: "fyi" },
                  { method: "select", title: "Colour?", options: ["red", "blue"] },
                ],
                text: "ok",
              },
            ],
          },
        ],
      }),
    );
    await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    await settled(bridge);
    expect(asked).toEqual([
      {
        kind: "user_question",
        questions: [
          {
            id: "answer",
            prompt: "Colour?",
            multiSelect: false,
            options: [
              { value: "red", label: "red" },
              { value: "blue", label: "blue" },
            ],
            allowFreeText: false,
          },
        ],
      },
    ]);
  });

  it("a prompt pi refuses is an error answer and opens no turn", async () => {
    bridge = startPiTestBridge();
    await bridge.request("thread/start", bridge.startParams(T, { refusePrompts: true }));
    const reply = await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    expect(reply.error.message).toContain("pi refused the prompt");
    expect(kinds(bridge.deltas(T))).toEqual(["session.reset"]);
  });

  it("a bad launch spec is −32602 naming the option", async () => {
    bridge = startPiTestBridge();
    const reply = await bridge.request("thread/start", { threadId: T, cwd: bridge.dir, options: { providerOptions: { piLaunchSpec: { args: [] } } } });
    expect(reply.error).toMatchObject({ code: -32602, message: expect.stringContaining("options.providerOptions.piLaunchSpec.command") });
  });
});

describe("pi bridge: models (get_available_models, set_model)", () => {
  const MODELS = [
    { id: "scripted", provider: "fixture", name: "Scripted model" },
    { id: "other", provider: "fixture", name: "Other model", contextWindow: 64000 },
    { id: "other", provider: "second" },
  ];

  it("model/list runs a throwaway pi --no-session: <provider>/<id> per model, the session's model the default", async () => {
    bridge = startPiTestBridge();
    const { options } = bridge.startParams(T, { models: MODELS }) as { options: { providerOptions: Record<string, unknown> } };
    const reply = await bridge.request("model/list", { cwd: bridge.dir, providerOptions: options.providerOptions });
    expect(reply.result).toEqual({
      models: [
        { id: "fixture/scripted", model: "scripted", displayName: "Scripted model", isDefault: true },
        { id: "fixture/other", model: "other", displayName: "Other model", isDefault: false },
        { id: "second/other", model: "other", displayName: "other", isDefault: false },
      ],
      selectedOnlyModels: [],
    });
    expect(bridge.launches).toHaveLength(1);
    expect(bridge.launches[0]).toContain("--no-session");
    expect(kinds(bridge.deltas())).toEqual([]);
  });

  it("thread/start's model is pi's set_model; its context window reaches the usage", async () => {
    bridge = startPiTestBridge();
    const params = bridge.startParams(T, { models: MODELS, prompts: [{ calls: [{ text: "Hi." }] }] }) as { options: Record<string, unknown> };
    params.options.model = "fixture/other";
    expect((await bridge.request("thread/start", params)).result).toMatchObject({ sessionRestorable: true });
    await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"));
    await settled(bridge);
    expect(bridge.deltas(T).find((d) => d.kind === "usage").modelContextWindow).toBe(64000);
  });

  it("a turn's model switches from that turn on; a bare id must name one model; an unknown model is −32602 and no turn", async () => {
    bridge = startPiTestBridge();
    await bridge.request("thread/start", bridge.startParams(T, { models: MODELS, contextWindow: 1000, prompts: [{ calls: [{ text: "Hi." }] }] }));
    const ambiguous = await bridge.request("turn/start", { ...turnParams(T, "go", "creq_2222222222"), options: { model: "other" } });
    expect(ambiguous.error).toMatchObject({ code: -32602, message: 'options.model "other": ambiguous: fixture/other, second/other' });
    const unknown = await bridge.request("turn/start", { ...turnParams(T, "go", "creq_2222222222"), options: { model: "fixture/nope" } });
    expect(unknown.error).toMatchObject({ code: -32602, message: 'options.model "fixture/nope": pi refused it (Model not found: fixture/nope)' });
    expect(kinds(bridge.deltas(T))).toEqual(["session.reset"]);
    await bridge.request("turn/start", { ...turnParams(T, "go", "creq_2222222223"), options: { model: "second/other" } });
    await settled(bridge);
    // second/other names no window of its own: the script's.
    expect(bridge.deltas(T).find((d) => d.kind === "usage").modelContextWindow).toBe(1000);
  });

  it("a thread/start with a model pi does not have is −32602 and keeps no session", async () => {
    bridge = startPiTestBridge();
    const params = bridge.startParams(T, { models: MODELS }) as { options: Record<string, unknown> };
    params.options.model = "missing";
    const reply = await bridge.request("thread/start", params);
    expect(reply.error).toMatchObject({ code: -32602, message: 'options.model "missing": pi offers no model with that id' });
    expect((await bridge.request("turn/start", turnParams(T, "go", "creq_2222222222"))).error.message).toContain("No active pi session");
  });
});
