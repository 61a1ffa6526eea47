import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClaudeCodeBridge } from "../../stack/claude-code/bridge.js";
import type { FixtureScript } from "../../stack/claude-code/fixture-agent/script.js";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient, type JsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { parseThreadDeltaParams, type ThreadDelta } from "../../stack/protocol/thread-delta.js";

/** The compiled fixture CLI (the suite builds before it runs). */
const FIXTURE_MAIN = path.resolve(__dirname, "../../dist/stack/claude-code/fixture-agent/main.js");

type Seen = { deltas: ThreadDelta[] } | { method: string; params: unknown } | { answer: number };

const open: JsonRpcClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.channel.close()));
});

/** A bridge in-process whose sessions run the fixture CLI with `script`; `decisions` answer approvals in order. */
function start(script: FixtureScript, decisions: Array<string | Promise<string>> = []) {
  const client = createJsonRpcClient(openInProcessBridge(createClaudeCodeBridge({ entropy: (n) => new Uint8Array(n).fill(7) }), { providerId: "claude-code" }));
  open.push(client);
  const seen: Seen[] = [];
  const approvals: unknown[] = [];
  client.onLine((line, direction) => {
    if (direction !== "bridge→runtime") return;
    const message = JSON.parse(line) as { id?: number; method?: string; params?: unknown };
    if (message.method === "thread/delta") seen.push({ deltas: parseThreadDeltaParams(message.params).deltas });
    else if (message.method) seen.push({ method: message.method, params: message.params });
    else seen.push({ answer: message.id! });
  });
  client.onRequest((method, params) => {
    approvals.push(params);
    return Promise.resolve(decisions.shift() ?? "deny").then((decision) => ({ decision, grantedPermissions: null }));
  });
  const launch = { command: process.execPath, args: [FIXTURE_MAIN, "--script-json", JSON.stringify(script)], env: {} };
  const options = (permissionMode: string) => ({ permissionMode, providerOptions: { claudeCodeLaunch: launch } });
  const boundary = () =>
    new Promise<ThreadDelta>((resolve) =>
      client.onNotification((n) => {
        if (n.method !== "thread/delta") return;
        const found = parseThreadDeltaParams(n.params).deltas.find((d) => d.kind === "turn.boundary");
        if (found) resolve(found);
      }),
    );
  const deltas = () => seen.flatMap((s) => ("deltas" in s ? s.deltas : []));
  return { client, seen, approvals, options, boundary, deltas };
}

const text = (value: string) => [{ type: "text", text: value, mentions: [] }];

describe("claude-code bridge against the fixture CLI", () => {
  it("a denied can_use_tool asks the runtime, answers deny, and closes the call failed with approvalStatus denied", async () => {
    const script: FixtureScript = {
      prompts: [{ steps: [{ tool: { name: "Bash", input: { command: "rm -rf build" } }, ask: true, result: { content: "", isError: false } }, { text: "Understood." }] }],
    };
    const b = start(script, ["deny"]);
    await b.client.request("thread/start", { threadId: "thr_1", cwd: process.cwd(), options: b.options("accept-edits") });
    const ended = b.boundary();
    await b.client.request("turn/start", { threadId: "thr_1", input: text("clean up"), clientRequestId: "creq_2222222223", options: b.options("accept-edits") });
    expect(await ended).toEqual({ kind: "turn.boundary", status: "completed" });
    expect(b.approvals).toMatchObject([{ threadId: "thr_1", payload: { kind: "approval", subject: { kind: "command", command: "rm -rf build" } } }]);
    const close = b.deltas().find((d) => d.kind === "item.close");
    expect(close).toMatchObject({ status: "failed", approvalStatus: "denied", item: { type: "command", command: "rm -rf build" } });
    expect(
      b
        .deltas()
        .filter((d) => d.kind === "item.textClose")
        .map((d) => (d as { text?: string }).text),
    ).toEqual(["Understood."]);
  });

  it("thread/stop interrupt: the interrupted boundary is on the wire before the stop's answer", async () => {
    const b = start({ prompts: [{ steps: [{ hold: true }] }] });
    await b.client.request("thread/start", { threadId: "thr_2", cwd: process.cwd(), options: b.options("full") });
    const firstDelta = new Promise<void>((resolve) => b.client.onNotification((n) => n.method === "thread/delta" && JSON.stringify(n.params).includes("item.textDelta") && resolve()));
    await b.client.request("turn/start", { threadId: "thr_2", input: text("long"), clientRequestId: "creq_2222222224", options: b.options("full") });
    await firstDelta;
    const before = b.seen.length;
    await b.client.request("thread/stop", { threadId: "thr_2", intent: "interrupt" });
    const after = b.seen.slice(before);
    const boundaryAt = after.findIndex((s) => "deltas" in s && s.deltas.some((d) => d.kind === "turn.boundary" && d.status === "interrupted"));
    const answerAt = after.findIndex((s) => "answer" in s);
    expect(boundaryAt).toBeGreaterThanOrEqual(0);
    expect(boundaryAt).toBeLessThan(answerAt);
    expect(b.deltas().filter((d) => d.kind === "item.textClose")).toMatchObject([{ text: "holding" }]);
  });

  it("an API error 401 fails the turn with its error and an authRequired recovery, and no agent text", async () => {
    const b = start({ prompts: [{ steps: [{ apiError: { status: 401, message: "Invalid API key" } }] }] });
    await b.client.request("thread/start", { threadId: "thr_3", cwd: process.cwd(), options: b.options("full") });
    const ended = b.boundary();
    await b.client.request("turn/start", { threadId: "thr_3", input: text("hi"), clientRequestId: "creq_2222222225", options: b.options("full") });
    expect(await ended).toEqual({ kind: "turn.boundary", status: "failed", error: { message: "API Error: 401 Invalid API key" } });
    expect(b.seen).toContainEqual({ method: "provider/recovery", params: { threadId: "thr_3", kind: "authRequired", message: "API Error: 401 Invalid API key", retryable: false } });
    expect(b.deltas().some((d) => d.kind === "item.textDelta")).toBe(false);
  });

  it("resume starts a new CLI under the same session id, and a steer mid-turn is taken in with the next tool result in the same turn", async () => {
    const script: FixtureScript = {
      prompts: [
        { when: "slow", steps: [{ tool: { name: "Bash", input: { command: "make" } }, ask: true, result: { content: "built", isError: false } }, { text: "Built." }] },
        { steps: [{ text: "ready" }] },
      ],
    };
    let allow = (_decision: string) => undefined as void;
    const b = start(script, [new Promise<string>((resolve) => (allow = resolve))]);
    const started = (await b.client.request("thread/start", { threadId: "thr_4", cwd: process.cwd(), options: b.options("accept-edits") })) as { providerThreadId: string };
    expect(started.providerThreadId).toBe("07070707-0707-4707-8707-070707070707");
    await b.client.request("thread/stop", { threadId: "thr_4", intent: "release" });
    const resumed = await b.client.request("thread/resume", { threadId: "thr_4", cwd: process.cwd(), providerThreadId: started.providerThreadId, options: b.options("accept-edits") });
    expect(resumed).toEqual({ providerThreadId: started.providerThreadId, sessionRestorable: true });
    const asked = new Promise<void>((resolve) => b.client.onLine((line) => line.includes('"interaction/request"') && resolve()));
    const ended = b.boundary();
    await b.client.request("turn/start", { threadId: "thr_4", input: text("slow build"), clientRequestId: "creq_2222222226", options: b.options("accept-edits") });
    await asked;
    await b.client.request("turn/steer", { threadId: "thr_4", input: text("also lint"), clientRequestId: "creq_2222222227" });
    // The approval is answered only once the steer was accepted: the steer is provably mid-turn.
    allow("allow_once");
    expect(await ended).toEqual({ kind: "turn.boundary", status: "completed" });
    const accepted = b
      .deltas()
      .filter((d) => d.kind === "input.accepted")
      .map((d) => (d as { clientRequestId: string }).clientRequestId);
    expect(accepted).toEqual(["creq_2222222226", "creq_2222222227"]);
    expect(b.deltas().filter((d) => d.kind === "turn.boundary")).toHaveLength(1);
    // The runtime allowed the call the CLI asked about: its close says so.
    expect(b.deltas().find((d) => d.kind === "item.close")).toMatchObject({
      status: "completed",
      approvalStatus: "approved",
      item: { type: "command", aggregatedOutput: expect.stringContaining("also lint") },
    });
  });

  it("a call the CLI runs without asking (full mode) asks the runtime nothing and closes with no approvalStatus", async () => {
    const script: FixtureScript = { prompts: [{ steps: [{ tool: { name: "Bash", input: { command: "make" } }, ask: true, result: { content: "built", isError: false } }, { text: "Built." }] }] };
    const b = start(script, ["allow_once"]);
    await b.client.request("thread/start", { threadId: "thr_5", cwd: process.cwd(), options: b.options("full") });
    const ended = b.boundary();
    await b.client.request("turn/start", { threadId: "thr_5", input: text("build"), clientRequestId: "creq_2222222228", options: b.options("full") });
    expect(await ended).toEqual({ kind: "turn.boundary", status: "completed" });
    expect(b.approvals).toEqual([]);
    const close = b.deltas().find((d) => d.kind === "item.close");
    expect(close).toMatchObject({ status: "completed", item: { type: "command", command: "make" } });
    expect(close).not.toHaveProperty("approvalStatus");
  });
});
