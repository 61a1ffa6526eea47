/**
 * The fixture ACP agent: script validation and its scripted behaviour, driven in-process through
 * its injected I/O (no child process), plus one run of the compiled entry point.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../stack/acp/fixture-agent/agent.js";
import { fixtureConformanceScript, fixtureLaunchSpec } from "../../stack/acp/fixture-agent/conformance.js";
import { parseFixtureScript, type FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { acpLaunchSpecSchema } from "../../stack/acp/agents/launch-spec.js";
import { fixtureAgentMain } from "./fixture-agent-build.js";

function drive(script: FixtureScriptInput) {
  const out: any[] = [];
  const stderr: string[] = [];
  const exits: number[] = [];
  let wake: (() => void) | undefined;
  const agent = createFixtureAgent(parseFixtureScript(script), {
    write: (line) => {
      try {
        out.push(JSON.parse(line));
      } catch {
        out.push(line);
      }
      wake?.();
    },
    writeStderr: (text) => stderr.push(text),
    exit: (code) => exits.push(code),
    env: { FIXTURE_VISIBLE: "yes" },
  });
  const send = (message: object) => agent.handleLine(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const until = (predicate: (m: any) => boolean): Promise<any> => {
    const found = out.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      wake = () => {
        const hit = out.find(predicate);
        if (hit) resolve(hit);
      };
    });
  };
  return { out, stderr, exits, send, until };
}

describe("fixture script", () => {
  it("fills defaults and rejects unknown keys naming the path", () => {
    const script = parseFixtureScript({});
    expect(script).toMatchObject({ initialize: "answer", protocolVersion: 1, loadSession: true, cancel: "honor", sessionIds: "counter", prompts: [] });
    expect(() => parseFixtureScript({ prompts: [{ steps: [{ bogus: 1 }] }] })).toThrowError(/prompts\.0\.steps\.0/);
    expect(() => parseFixtureScript({ cancle: "ignore" })).toThrowError(/cancle/);
  });

  it("builds a valid, self-contained launch spec for conformance", () => {
    const spec = fixtureLaunchSpec("/x/main.js");
    expect(acpLaunchSpecSchema.parse(spec)).toEqual(spec);
    expect(spec.args.slice(0, 2)).toEqual(["/x/main.js", "--script-json"]);
    expect(parseFixtureScript(JSON.parse(spec.args[2]!))).toMatchObject({ sessionIds: "uuid" });
  });
});

describe("fixture agent behaviour", () => {
  it("answers initialize with its capabilities and session/new with a counter id", () => {
    const a = drive({ fork: true, promptImage: true });
    a.send({ id: 1, method: "initialize", params: {} });
    a.send({ id: 2, method: "session/new", params: {} });
    expect(a.out[0].result.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: false },
      sessionCapabilities: { fork: {} },
    });
    expect(a.out[1]).toEqual({ jsonrpc: "2.0", id: 2, result: { sessionId: "fixture-session-1" } });
  });

  it("announces afterNew updates for a forked session as for a new one", () => {
    const commands = { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] };
    const a = drive({ fork: true, afterNew: [commands] });
    a.send({ id: 1, method: "session/new", params: {} });
    a.send({ id: 2, method: "session/fork", params: { sessionId: "fixture-session-1", cwd: "/w", mcpServers: [] } });
    expect(a.out.map((m) => [m.id, m.result?.sessionId ?? m.params?.sessionId, m.params?.update?.sessionUpdate])).toEqual([
      [1, "fixture-session-1", undefined],
      [undefined, "fixture-session-1", "available_commands_update"],
      [2, "fixture-session-2", undefined],
      [undefined, "fixture-session-2", "available_commands_update"],
    ]);
  });

  it("runs prompt steps, sends a permission request with id 0 and branches on the chosen option", async () => {
    const a = drive({
      prompts: [
        {
          steps: [{ permission: { options: [{ optionId: "yes", kind: "allow_once" }] }, outcomes: { yes: [{ update: { sessionUpdate: "plan", entries: [] } }] } }, { end: "end_turn" }],
        },
      ],
    });
    a.send({ id: 7, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    const permission = await a.until((m) => m.method === "session/request_permission");
    expect(permission.id).toBe(0);
    a.send({ id: 0, result: { outcome: { outcome: "selected", optionId: "yes" } } });
    const done = await a.until((m) => m.id === 7);
    expect(done.result).toEqual({ stopReason: "end_turn" });
    expect(a.out.some((m) => m.params?.update?.sessionUpdate === "plan")).toBe(true);
  });

  it("honours session/cancel by default and ignores it when told to", async () => {
    const honour = drive({ prompts: [{ steps: [{ waitForCancel: true }] }], onCancel: [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "bye" } }] });
    honour.send({ id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    honour.send({ method: "session/cancel", params: { sessionId: "s" } });
    expect((await honour.until((m) => m.id === 1)).result).toEqual({ stopReason: "cancelled" });
    expect(honour.out[0].params.update.content.text).toBe("bye");

    const ignore = drive({ cancel: "ignore", prompts: [{ steps: [{ waitForCancel: true }] }] });
    ignore.send({ id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    ignore.send({ method: "session/cancel", params: { sessionId: "s" } });
    expect(ignore.out).toEqual([]);
    expect(ignore.stderr.join("")).toMatch(/ignoring session\/cancel/);
  });

  it("misbehaves on request: answer twice, raw line, exit, never answer initialize", async () => {
    const twice = drive({ prompts: [{ steps: [{ raw: "garbage" }, { end: "end_turn", answerTwice: true }] }] });
    twice.send({ id: 3, method: "session/prompt", params: { prompt: [] } });
    await twice.until((m) => m.id === 3);
    expect(twice.out.filter((m) => m.id === 3)).toHaveLength(2);
    expect(twice.out[0]).toBe("garbage");

    const exit = drive({ prompts: [{ steps: [{ exit: 9 }] }] });
    exit.send({ id: 1, method: "session/prompt", params: { prompt: [] } });
    await Promise.resolve();
    expect(exit.exits).toEqual([9]);

    const silent = drive({ initialize: "never" });
    silent.send({ id: 1, method: "initialize", params: {} });
    expect(silent.out).toEqual([]);
  });

  it("names the session's own cwd and id where a step says {{cwd}} and {{sessionId}}, JSON-escaped; a prompt result carries `usage`", async () => {
    const a = drive({
      prompts: [{ steps: [{ request: { method: "fs/read_text_file", params: { sessionId: "{{sessionId}}", path: "{{cwd}}/notes.txt" } } }, { end: "end_turn", usage: { inputTokens: 7 } }] }],
    });
    a.send({ id: 1, method: "session/new", params: { cwd: '/w/a "quoted" dir', mcpServers: [] } });
    a.send({ id: 2, method: "session/prompt", params: { sessionId: "fixture-session-1", prompt: [] } });
    const read = await a.until((m) => m.method === "fs/read_text_file");
    expect(read.params).toEqual({ sessionId: "fixture-session-1", path: '/w/a "quoted" dir/notes.txt' });
    a.send({ id: read.id, result: { content: "x" } });
    expect((await a.until((m) => m.id === 2)).result).toEqual({ stopReason: "end_turn", usage: { inputTokens: 7 } });

    // A session the agent never saw made: its cwd is unknown, so `{{cwd}}` stays as written.
    const b = drive({ prompts: [{ steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "{{cwd}} {{sessionId}}" } } }] }] });
    b.send({ id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    await b.until((m) => m.id === 1);
    expect(b.out[0].params.update.content.text).toBe("{{cwd}} s");
  });

  it("sends load.after updates after the session/resume answer and load.replay ones before it", () => {
    const update = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    const a = drive({ resumeSession: true, load: { replay: [update("replayed")], after: [update("after")] } });
    a.send({ id: 1, method: "session/resume", params: { sessionId: "old", cwd: "/w", mcpServers: [] } });
    expect(a.out.map((m) => m.params?.update?.content.text ?? `answer ${m.id}`)).toEqual(["replayed", "answer 1", "after"]);
  });

  it("matches prompts by `when` and reuses entries marked reuse", async () => {
    const a = drive(fixtureConformanceScript());
    for (const [id, text] of [
      [1, "/fixture zero-work"],
      [2, "hello"],
      [3, "hello again"],
    ] as const) {
      a.send({ id, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text }] } });
      await a.until((m) => m.id === id);
    }
    const chunks = a.out.filter((m) => m.params?.update?.sessionUpdate === "agent_message_chunk").map((m) => m.params.update.content.text);
    expect(chunks).toEqual(["ready", "ready"]);
  });
});

describe("fixture agent entry point", () => {
  it("speaks NDJSON on stdio from --script-json and exits 0 when stdin closes", () => {
    const main = fixtureAgentMain();
    const input = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } },
      { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } },
    ]
      .map((m) => JSON.stringify(m))
      .join("\n");
    const stdout = execFileSync(process.execPath, [main, "--script-json", JSON.stringify({ sessionIdPrefix: "cli-" })], { input: `${input}\n` }).toString();
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1].result.sessionId).toBe("cli-1");
  });

  it("exits 2 with a one-line error on a bad script", () => {
    const main = fixtureAgentMain();
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, [main, "--script-json", '{"initialize":"sometimes"}'], { input: "", stdio: "pipe" });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^fixture agent: --script-json: initialize: /);
  });
});

describe("fixture agent echoEnv", () => {
  it("reports the named variables of its environment as a message chunk", async () => {
    const a = drive({ prompts: [{ steps: [{ echoEnv: ["FIXTURE_VISIBLE", "FIXTURE_ABSENT"] }, { end: "end_turn" }] }] });
    a.send({ id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    await a.until((m) => m.id === 1);
    expect(JSON.parse(a.out[0].params.update.content.text)).toEqual({ FIXTURE_VISIBLE: "yes", FIXTURE_ABSENT: null });
  });
});

describe("fixture agent model selection and setup requests", () => {
  it("refuses session/set_model for the ids in refuseModels and accepts any other", () => {
    const a = drive({ refuseModels: ["m-x"] });
    a.send({ id: 1, method: "session/set_model", params: { sessionId: "s", modelId: "m-x" } });
    a.send({ id: 2, method: "session/set_model", params: { sessionId: "s", modelId: "m-y" } });
    expect(a.out).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "model m-x cannot be selected now" } },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });

  it("sends the beforeNewAnswer requests one at a time, each after the previous answer, then answers session/new", async () => {
    const a = drive({ beforeNewAnswer: [{ method: "fs/read_text_file", params: { path: "/x" } }, { method: "vendor/ask" }] });
    a.send({ id: 5, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    expect(a.out).toEqual([{ jsonrpc: "2.0", id: 0, method: "fs/read_text_file", params: { path: "/x" } }]);
    a.send({ id: 0, error: { code: -32601, message: "no" } });
    await a.until((m) => m.method === "vendor/ask");
    expect(a.out.some((m) => m.id === 5)).toBe(false);
    a.send({ id: 1, result: {} });
    const answer = await a.until((m) => m.id === 5);
    expect(answer.result.sessionId).toBe("fixture-session-1");
    expect(a.out.map((m) => m.method ?? `answer ${m.id}`)).toEqual(["fs/read_text_file", "vendor/ask", "answer 5"]);
  });

  it("reports echoEnvAsModels as the session/new models: value, or (unset)", () => {
    const a = drive({ echoEnvAsModels: ["FIXTURE_VISIBLE", "FIXTURE_ABSENT"], sessionResult: { models: { availableModels: [{ modelId: "hidden" }] } } });
    a.send({ id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    expect(a.out[0].result.models).toEqual({
      currentModelId: null,
      availableModels: [
        { modelId: "FIXTURE_VISIBLE", name: "yes" },
        { modelId: "FIXTURE_ABSENT", name: "(unset)" },
      ],
    });
  });

  it("--list-models prints modelList.echoEnv lines `<NAME> - <value>` after stdout", () => {
    const script = JSON.stringify({ modelList: { stdout: ["m-1 - One"], echoEnv: ["FIXTURE_LIST_SET", "FIXTURE_LIST_UNSET"] } });
    const env: Record<string, string | undefined> = { ...process.env, FIXTURE_LIST_SET: "v-1" };
    delete env.FIXTURE_LIST_UNSET;
    const stdout = execFileSync(process.execPath, [fixtureAgentMain(), "--script-json", script, "--list-models"], { input: "", env }).toString();
    expect(stdout).toBe("m-1 - One\nFIXTURE_LIST_SET - v-1\nFIXTURE_LIST_UNSET - (unset)\n");
  });
});
