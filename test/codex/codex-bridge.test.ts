import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient, type JsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { createCodexBridge } from "../../stack/codex/bridge.js";
import { codexFixtureLaunch } from "../../stack/codex/fixture/conformance.js";
import type { FixtureScriptInput } from "../../stack/codex/fixture/script.js";
import { parseThreadDeltaParams, type ThreadDelta } from "../../stack/protocol/thread-delta.js";

// The Codex bridge against the scripted fixture app-server (dist/stack/codex/fixture/main.js,
// built by `npm test`): approvals, interrupt, model error, resume, steer, a dying app-server.
// Every wait is for a line the bridge must write; none is a time window.

const FIXTURE = path.resolve(import.meta.dirname, "../../dist/stack/codex/fixture/main.js");
const open: JsonRpcClient[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.channel.close()));
});

type Seen = { deltas: ThreadDelta[] } | { method: string; params: unknown } | { answer: unknown };

function start(script: FixtureScriptInput, answers: unknown[] = []) {
  const client = createJsonRpcClient(openInProcessBridge(createCodexBridge(), { providerId: "codex", env: { PATH: process.env.PATH } }));
  open.push(client);
  const seen: Seen[] = [];
  const waiters: Array<{ test: (s: Seen) => boolean; resolve: () => void }> = [];
  client.onLine((line, direction) => {
    if (direction !== "bridge→runtime") return;
    const m = JSON.parse(line) as { method?: string; params?: unknown; result?: unknown };
    const s: Seen = m.method === "thread/delta" ? { deltas: parseThreadDeltaParams(m.params).deltas } : m.method ? { method: m.method, params: m.params } : { answer: m.result };
    seen.push(s);
    for (const w of [...waiters]) {
      if (!w.test(s)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const asked: unknown[] = [];
  client.onRequest((method, params) => {
    asked.push({ method, params });
    return answers.shift() ?? { decision: "deny" };
  });
  const until = (test: (s: Seen) => boolean) => (seen.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve })));
  const boundary = (status: string) => (s: Seen) => "deltas" in s && s.deltas.some((d) => d.kind === "turn.boundary" && d.status === status);
  const options = { permissionMode: "accept-edits", providerOptions: { codexAppServer: codexFixtureLaunch(FIXTURE, script) } };
  const deltas = () => seen.flatMap((s) => ("deltas" in s ? s.deltas : []));
  return { client, seen, asked, until, boundary, options, deltas };
}

const text = (value: string) => [{ type: "text", text: value }];
const CREQ_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz";
let creq = 0;
const turn = (threadId: string, value: string, options: unknown) => {
  creq += 1;
  return { threadId, input: text(value), clientRequestId: `creq_22222222${CREQ_ALPHABET[Math.floor(creq / 32)]}${CREQ_ALPHABET[creq % 32]}`, options };
};

describe("codex bridge against the fixture app-server", () => {
  it("a turn of tool work: fileRead, fileChange with its unified diff, command with output and exit code, usage, in Codex's order", async () => {
    const b = start({
      prompts: [
        {
          steps: [
            { command: "cat notes.txt", output: "status: draft\n", actions: [{ type: "read", command: "cat notes.txt", name: "notes.txt", path: "/tmp/notes.txt" }] },
            { fileChange: { path: "/tmp/notes.txt", diff: "@@ -1 +1 @@\n-status: draft\n+status: final\n" } },
            { command: "sh -c 'exit 3'", output: "oops\n", exitCode: 3 },
            { usage: { input: 10, output: 2 } },
            { message: "Done." },
          ],
        },
      ],
    });
    const { providerThreadId } = (await b.client.request("thread/start", { threadId: "thr_1", cwd: "/tmp", options: b.options })) as { providerThreadId: string };
    expect(providerThreadId).toMatch(/^[0-9a-f-]{36}$/);
    await b.client.request("turn/start", turn("thr_1", "go", b.options));
    await b.until(b.boundary("completed"));
    const closes = b.deltas().filter((d) => d.kind === "item.close");
    expect(closes.map((d) => d.item.type)).toEqual(["fileRead", "fileChange", "command", "agentMessage"]);
    expect(closes[1]).toMatchObject({ item: { changes: [{ path: "/tmp/notes.txt", kind: "update", diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-status: draft\n+status: final\n" }] } });
    expect(closes[2]).toMatchObject({ status: "failed", exitCode: 3, aggregatedOutput: "oops\n", item: { command: "sh -c 'exit 3'", exitCode: 3 } });
    const kinds = b.deltas().map((d) => d.kind);
    expect(kinds.slice(0, 3)).toEqual(["session.reset", "input.accepted", "turn.open"]);
    expect(kinds).toContain("usage");
    expect(kinds.at(-1)).toBe("turn.boundary");
  });

  it("approvals: allow runs the command and closes it approved; deny closes it failed with approvalStatus denied, and Codex got decline", async () => {
    const b = start(
      {
        prompts: [
          {
            steps: [
              { command: "touch a", approval: true },
              { command: "touch b", approval: true },
            ],
          },
        ],
      },
      [{ decision: "allow_once" }, { decision: "deny" }],
    );
    await b.client.request("thread/start", { threadId: "thr_2", cwd: "/tmp", options: b.options });
    await b.client.request("turn/start", turn("thr_2", "go", b.options));
    await b.until(b.boundary("completed"));
    expect(b.asked).toHaveLength(2);
    expect(b.asked[0]).toMatchObject({ method: "interaction/request", params: { threadId: "thr_2", payload: { kind: "approval", subject: { kind: "command", command: "touch a" } } } });
    const closes = b.deltas().filter((d) => d.kind === "item.close");
    expect(closes[0]).toMatchObject({ status: "completed", approvalStatus: "approved", item: { command: "touch a" } });
    expect(closes[1]).toMatchObject({ status: "failed", approvalStatus: "denied", item: { command: "touch b" } });
  });

  it("thread/stop interrupt: the interrupted boundary (with the open message closed) is on the wire before the answer", async () => {
    const b = start({ prompts: [{ steps: [{ hold: "Thinking…" }] }, { steps: [{ message: "4" }] }] });
    await b.client.request("thread/start", { threadId: "thr_3", cwd: "/tmp", options: b.options });
    await b.client.request("turn/start", turn("thr_3", "long", b.options));
    await b.until((s) => "deltas" in s && s.deltas.some((d) => d.kind === "item.textDelta"));
    await b.client.request("thread/stop", { threadId: "thr_3", intent: "interrupt" });
    const boundaryAt = b.seen.findIndex(b.boundary("interrupted"));
    const answerAt = b.seen.findIndex((s, i) => i > boundaryAt && "answer" in s && JSON.stringify(s.answer) === '{"ok":true}');
    expect(boundaryAt).toBeGreaterThan(0);
    expect(answerAt).toBeGreaterThan(boundaryAt);
    expect(b.deltas().find((d) => d.kind === "item.close")).toMatchObject({ item: { type: "agentMessage", text: "Thinking…" } });
    // The session is still there: the next turn runs in the same app-server.
    await b.client.request("turn/start", turn("thr_3", "2+2", b.options));
    await b.until(b.boundary("completed"));
  });

  it("a model error (401) fails the turn with provider.error and an authRequired recovery; it never hangs", async () => {
    const b = start({ prompts: [{ steps: [{ error: { message: "unexpected status 401 Unauthorized", codexErrorInfo: { responseStreamConnectionFailed: { httpStatusCode: 401 } } } }] }] });
    await b.client.request("thread/start", { threadId: "thr_4", cwd: "/tmp", options: b.options });
    await b.client.request("turn/start", turn("thr_4", "hello", b.options));
    await b.until(b.boundary("failed"));
    expect(b.deltas().find((d) => d.kind === "provider.error")).toMatchObject({ message: "unexpected status 401 Unauthorized", errorInfo: { category: "unauthorized", httpStatusCode: 401 } });
    expect(b.seen.find((s) => "method" in s && s.method === "provider/recovery")).toMatchObject({ params: { threadId: "thr_4", kind: "authRequired", retryable: false } });
    expect(b.deltas().find((d) => d.kind === "turn.boundary")).toMatchObject({ status: "failed", error: { message: "unexpected status 401 Unauthorized" } });
  });

  it("resume in a new process keeps the provider thread id and runs a turn; steer joins the running turn", async () => {
    const b = start({
      prompts: [
        { when: "first", steps: [{ message: "one" }] },
        { when: "hold", steps: [{ hold: "Drafting…" }] },
        { when: "steer", steps: [{ message: "mountains" }] },
      ],
    });
    const { providerThreadId } = (await b.client.request("thread/start", { threadId: "thr_5", cwd: "/tmp", options: b.options })) as { providerThreadId: string };
    await b.client.request("turn/start", turn("thr_5", "first", b.options));
    await b.until(b.boundary("completed"));
    await b.client.request("thread/stop", { threadId: "thr_5", intent: "release" });
    const resumed = (await b.client.request("thread/resume", { threadId: "thr_5", cwd: "/tmp", providerThreadId, options: b.options })) as { providerThreadId: string };
    expect(resumed.providerThreadId).toBe(providerThreadId);
    b.seen.length = 0;
    await b.client.request("turn/start", turn("thr_5", "hold", b.options));
    await b.until((s) => "deltas" in s && s.deltas.some((d) => d.kind === "item.textDelta"));
    await b.client.request("turn/steer", turn("thr_5", "steer", b.options));
    await b.until(b.boundary("completed"));
    const kinds = b.deltas().map((d) => d.kind);
    expect(kinds.filter((k) => k === "input.accepted")).toHaveLength(2);
    expect(kinds.filter((k) => k === "turn.open")).toHaveLength(1);
    expect(
      b
        .deltas()
        .filter((d) => d.kind === "item.close")
        .map((d) => (d.item as { text?: string }).text),
    ).toContain("mountains");
  });

  it("an app-server that exits mid-turn fails the turn (provider.error, failed boundary)", async () => {
    const b = start({ prompts: [{ steps: [{ message: "partial" }, { exit: 1 }] }] });
    await b.client.request("thread/start", { threadId: "thr_6", cwd: "/tmp", options: b.options });
    await b.client.request("turn/start", turn("thr_6", "go", b.options));
    await b.until(b.boundary("failed"));
    expect(b.deltas().find((d) => d.kind === "provider.error")).toMatchObject({ message: expect.stringContaining("codex app-server exited (code 1)") });
  });
});
