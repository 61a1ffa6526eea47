import { afterEach, describe, expect, it } from "vitest";
import { parseJsonObjectLine, startAgentProcess, stderrTailLines, type AgentExit, type AgentFraming, type AgentProcess } from "../../stack/bridge-kit/agent-process.js";
import { createFakeScheduler, type FakeScheduler } from "../helpers/fake-scheduler.js";

// The native bridges' agent process against a real child (node -e): a tiny line protocol whose
// requests are {q, m} and answers {a, v}. Every wait is for something the child must do; the
// kill grace runs on a fake clock the test advances.

const AGENT = String.raw`
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let i;
  while ((i = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    const { q, m } = JSON.parse(line);
    if (m === "exit") { process.stderr.write("one\ntwo\nthree\nfour\n"); process.exit(3); }
    if (m === "hang") { setInterval(() => undefined, 1000); process.stdout.write(JSON.stringify({ a: q, v: "hanging" }) + "\n"); continue; }
    if (m === "env") { process.stdout.write(JSON.stringify({ a: q, v: [process.env.BB_SECRET ?? null, process.env.FROM_LAUNCH ?? null] }) + "\n"); continue; }
    // One write: a message, the answer, a message and noise, so the pipe hands them over in one read.
    process.stdout.write(JSON.stringify({ n: "before " + m }) + "\n" + JSON.stringify({ a: q, v: m.toUpperCase() }) + "\n" + JSON.stringify({ n: "after " + m }) + "\nnot json\n\n");
  }
});
`;

type Message = Record<string, unknown>;

const FRAMING: AgentFraming<Message> = {
  firstId: 1,
  requestId: (n) => `q-${n}`,
  requestLine: (id, method) => JSON.stringify({ q: id, m: method }),
  parse: parseJsonObjectLine,
  answerId: (message) => (typeof message.a === "string" ? message.a : undefined),
  settle: (answer, method) => (answer.v === "REFUSE" ? { error: new Error(`${method} refused`) } : { value: answer.v }),
  exitedError: (method, exit) => new Error(`exited (${String(exit.code)}) before ${method}`),
  notRunningError: (method) => new Error(`not running: ${method}`),
};

const running: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.close(0)));
});

function start(scheduler: FakeScheduler, seen: string[], exits: AgentExit[] = []): AgentProcess {
  const agent = startAgentProcess<Message>({
    launch: { command: process.execPath, args: ["-e", AGENT], env: { FROM_LAUNCH: "launch" } },
    inheritedEnv: { ...process.env, BB_SECRET: "runtime-private" },
    threadId: "t1",
    framing: FRAMING,
    scheduler,
    log: (text) => seen.push(`log ${text}`),
    onMessage: (message) => seen.push(`message ${String(message.n)}`),
    onNoise: (line) => seen.push(`noise ${line}`),
    onExit: (exit) => exits.push(exit),
    recordChild: () => undefined,
  });
  running.push(agent);
  return agent;
}

describe("agent process", () => {
  it("matches an answer to its request by the framing's id; every other line reaches the bridge in order, the answer's callback in its place", async () => {
    const seen: string[] = [];
    const agent = start(createFakeScheduler(), seen);
    const value = await agent.request<string>("ping", undefined, (v) => seen.push(`answer ${v}`));
    expect(value).toBe("PING");
    await agent.request("pong");
    expect(seen.slice(0, 4)).toEqual(["message before ping", "answer PING", "message after ping", "noise not json"]);
    expect(seen).toContain("message after pong");
  });

  it("inherits the sanitized environment with the launch's env over it", async () => {
    const agent = start(createFakeScheduler(), []);
    expect(await agent.request("env")).toEqual([null, "launch"]);
  });

  it("rejects a pending request with the framing's exit error when the agent exits, tells the exit with its stderr tail, and refuses requests after", async () => {
    const exits: AgentExit[] = [];
    const agent = start(createFakeScheduler(), [], exits);
    await expect(agent.request("exit")).rejects.toThrow("exited (3) before exit");
    const exit = await agent.exit;
    expect(exits).toEqual([exit]);
    expect(exit).toMatchObject({ code: 3, signal: null });
    expect(stderrTailLines(exit)).toBe("two | three | four");
    expect(agent.exited).toBe(true);
    await expect(agent.request("ping")).rejects.toThrow("not running: ping");
  });

  it("close ends stdin and, when the agent stays, kills it once the grace has passed on the scheduler", async () => {
    const scheduler = createFakeScheduler();
    const agent = start(scheduler, []);
    expect(await agent.request("hang")).toBe("hanging");
    const closed = agent.close(5_000);
    const grace = await scheduler.whenPending((timer) => timer.delayMs === 5_000);
    expect(agent.exited).toBe(false);
    scheduler.advance(grace.delayMs);
    expect(await closed).toMatchObject({ code: null, signal: "SIGKILL" });
  });

  it("a command that cannot run is an exit with its error, not a throw", async () => {
    const exits: AgentExit[] = [];
    const agent = startAgentProcess<Message>({
      launch: { command: "/nonexistent/agent-binary", args: [] },
      inheritedEnv: {},
      threadId: null,
      framing: FRAMING,
      scheduler: createFakeScheduler(),
      log: () => undefined,
      onMessage: () => undefined,
      onExit: (exit) => exits.push(exit),
      recordChild: () => undefined,
    });
    const pending = agent.request("ping");
    const exit = await agent.exit;
    expect(exit.error?.message).toMatch(/ENOENT/);
    expect(exits).toHaveLength(1);
    await expect(pending).rejects.toThrow(/exited \(null\) before ping|not running: ping/);
  });
});
