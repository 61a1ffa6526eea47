/**
 * Agent→client requests other than permissions (spec 20 §2.5, spec 30 §6.3): fs read/write with
 * the accept-edits write roots (elicitation: elicitation.test.ts), and the dialect's vendor methods; plus `model/list`
 * (spec 20 §3.11) from a CLI list command and from ACP-native discovery. Maintenance requests: maintenance*.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureScriptInput } from "../../stack/acp/fixture-agent/script.js";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";

/** A fixture launch spec whose `modelCli` list command is the same fixture script run with `--list-models`. */
function cliFixtureSpec(dir: string, script: FixtureScriptInput, primaryModels: string[] = [], name = "lister"): { spec: Record<string, unknown>; log: string } {
  const { spec, log } = fixtureLaunchSpec(dir, script, name);
  return { spec: { ...spec, modelCli: { listArgs: [...(spec.args as string[]), "--list-models"], primaryModels } }, log };
}

const replies = (log: string) => agentReceived(log).filter((m) => m.method === undefined && m.id !== undefined && typeof m.id === "number" && m.id < 100);

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("fs requests", () => {
  it("reads with line/limit, writes inside the workspace (fileChange emitted), denies writes outside it in accept-edits", async () => {
    bridge = startInProcessBridge();
    const ws = bridge.dir;
    writeFileSync(join(ws, "notes.txt"), "one\ntwo\nthree\n");
    const outside = "/tmp/acp-bridge-outside-" + process.pid + ".txt";
    const { spec, log } = fixtureLaunchSpec(ws, {
      prompts: [
        {
          steps: [
            { request: { method: "fs/read_text_file", params: { sessionId: "fixture-session-1", path: join(ws, "notes.txt"), line: 2, limit: 1 } } },
            { request: { method: "fs/write_text_file", params: { sessionId: "fixture-session-1", path: join(ws, "notes.txt"), content: "new\n" } } },
            { request: { method: "fs/write_text_file", params: { sessionId: "fixture-session-1", path: outside, content: "x" } } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_fs", spec, ws));
    await bridge.request("turn/start", turnStartParams("thr_fs", "files", "creq_fs00000000"));
    await bridge.waitFor(isBoundary);
    const [read, write, denied] = replies(log);
    expect(read!.result).toEqual({ content: "two" });
    expect(write!.result).toEqual({});
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("new\n");
    expect(denied!.error).toEqual({ code: -32000, message: `File writes outside the workspace are denied by BB's accept-edits permission mode: ${outside}` });
    const change = bridge.deltas("thr_fs").find((d) => d.kind === "item.close" && d.item?.type === "fileChange");
    // The diff of the file before and the text written, with its hunk (issue 37; stack/bridge-kit/texts-diff.ts).
    const name = join(ws, "notes.txt").replace(/^\/+/, "");
    const diff = `--- a/${name}\n+++ b/${name}\n@@ -1,3 +1,1 @@\n-one\n-two\n-three\n+new\n`;
    expect(change.item.changes).toEqual([{ path: join(ws, "notes.txt"), kind: "update", oldText: "one\ntwo\nthree\n", diff, newText: "new\n" }]);
  });

  it("a read call's fileRead carries the bytes the bridge answered to its fs/read_text_file, not the agent's trimmed display; a read after the call settled is no one's", async () => {
    bridge = startInProcessBridge();
    const ws = bridge.dir;
    writeFileSync(join(ws, "notes.txt"), "title: parity notes\n  status: draft\n\n");
    const file = join(ws, "notes.txt");
    const read = (toolCallId: string) => ({ update: { sessionUpdate: "tool_call", toolCallId, title: "read", kind: "read", status: "pending", locations: [{ path: file }] } });
    const done = (toolCallId: string) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: [{ type: "content", content: { type: "text", text: "title: parity notes\n  status: draft" } }] },
    });
    const fsRead = { request: { method: "fs/read_text_file", params: { sessionId: "fixture-session-1", path: file } } };
    const { spec } = fixtureLaunchSpec(ws, { prompts: [{ steps: [read("r1"), fsRead, done("r1"), read("r2"), done("r2"), fsRead, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_reads", spec, ws));
    await bridge.request("turn/start", turnStartParams("thr_reads", "read", "creq_rd00000000"));
    await bridge.waitFor(isBoundary);
    const closes = bridge.deltas("thr_reads").filter((d) => d.kind === "item.close" && d.item?.type === "fileRead");
    expect(closes.map((d) => [d.key.providerItemId, d.resultText])).toEqual([
      ["r1", "title: parity notes\n  status: draft\n\n"],
      ["r2", "title: parity notes\n  status: draft"],
    ]);
  });
});

describe("vendor client methods", () => {
  it("cursor/task is acknowledged {} by the cursor dialect (chosen explicitly)", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [{ steps: [{ request: { method: "cursor/task", params: { toolCallId: "t1", description: "sub" } } }, { end: "end_turn" }] }],
    });
    const params = threadStartParams("thr_ct", spec, bridge.dir);
    (params.options as any).providerOptions.acpDialect = "cursor";
    await bridge.request("thread/start", params);
    await bridge.request("turn/start", turnStartParams("thr_ct", "task", "creq_ct00000000"));
    await bridge.waitFor(isBoundary);
    expect(replies(log)[0]!.result).toEqual({});
  });
});

describe("model/list", () => {
  it("without a launch spec answers the synthetic acp-default model", async () => {
    bridge = startInProcessBridge();
    const response = await bridge.request("model/list", {});
    expect(response.result.models.map((m: any) => m.id)).toEqual(["acp-default"]);
    expect(response.result.selectedOnlyModels).toEqual([]);
  });

  it("runs the CLI list command and splits primaries from selected-only models", async () => {
    bridge = startInProcessBridge();
    const { spec } = cliFixtureSpec(bridge.dir, { modelList: { stdout: ["fast-1 - Fast One", "smart-2 - Smart Two", "- other-3"] } }, ["smart-2"]);
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(response.result.models.map((m: any) => [m.id, m.displayName, m.isDefault])).toEqual([["smart-2", "Smart Two", true]]);
    expect(response.result.selectedOnlyModels.map((m: any) => m.id)).toEqual(["fast-1", "other-3"]);
  });

  it("fails with an authRequired hint when the list command asks for sign-in", async () => {
    bridge = startInProcessBridge();
    const { spec } = cliFixtureSpec(bridge.dir, { modelList: { stderr: ["Authentication required. Run agent login"], exitCode: 1 } });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    // The options session running beside the failed list command was aborted, not reported.
    expect(bridge.logs.filter((line) => line.includes("session options"))).toEqual([]);
    expect(response.error).toEqual({
      code: -32000,
      message: "ACP agent is not authenticated.",
      data: { recovery: { kind: "authRequired", message: "ACP agent is not authenticated.", retryable: false } },
    });
  });

  it("discovers models natively through a throwaway agent session", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      sessionResult: {
        models: {
          currentModelId: "m-a",
          availableModels: [
            { modelId: "m-a", name: "Model A" },
            { modelId: "m-b", name: "Model B" },
          ],
        },
      },
    });
    const response = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(response.result.models.map((m: any) => [m.id, m.displayName])).toEqual([
      ["m-a", "Model A"],
      ["m-b", "Model B"],
    ]);
    const received = agentReceived(log);
    expect(received.map((m) => m.method)).toEqual(["initialize", "session/new"]);
    expect(received[0]!.params.clientCapabilities.fs).toEqual({ readTextFile: false, writeTextFile: false });
  });
});

describe("per-turn session options (spec 30 §6.2)", () => {
  it("applies changed offered options before the prompt and warns when the agent refuses one", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      refuseOptions: ["plan"],
      sessionResult: {
        modes: {
          currentModeId: "agent",
          availableModes: [
            { id: "agent", name: "Agent" },
            { id: "plan", name: "Plan" },
          ],
        },
        configOptions: [
          { id: "fast", name: "Fast", type: "boolean", currentValue: false },
          { id: "depth", name: "Depth", type: "select", currentValue: "normal" },
        ],
      },
    });
    await bridge.request("thread/start", threadStartParams("thr_so", spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams("thr_so", "go", "creq_so00000000", { sessionOptions: { fast: true, depth: "normal", mode: "plan", unknown: 1 } }));
    await bridge.waitFor(isBoundary);
    const calls = agentReceived(log).filter((m) => m.method === "session/set_config_option" || m.method === "session/set_mode" || m.method === "session/prompt");
    expect(calls.map((m) => [m.method, m.params.configId ?? m.params.modeId])).toEqual([
      ["session/set_config_option", "fast"],
      ["session/set_mode", "plan"],
      ["session/prompt", undefined],
    ]);
    expect(calls[0]!.params).toEqual({ sessionId: "fixture-session-1", configId: "fast", type: "boolean", value: true });
    expect(bridge.deltas("thr_so").find((d) => d.kind === "provider.warning")?.summary).toBe("The agent did not apply Plan");
  });
});

describe("native model selection (spec 20 §2.3 step 7)", () => {
  const offered = {
    configOptions: [
      {
        id: "model",
        category: "model",
        type: "select",
        currentValue: "m-a",
        options: [
          { value: "m-a", name: "A" },
          { value: "m-b", name: "B" },
        ],
      },
    ],
    models: {
      currentModelId: "m-a",
      availableModels: [
        { modelId: "m-a", name: "A" },
        { modelId: "m-b", name: "B" },
      ],
    },
  };

  it("selects an offered model through the model config option", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offered });
    await bridge.request("thread/start", threadStartParams("thr_nm", spec, bridge.dir, { model: "m-b" }));
    const set = agentReceived(log).filter((m) => m.method === "session/set_config_option");
    expect(set.map((m) => m.params)).toEqual([{ sessionId: "fixture-session-1", configId: "model", value: "m-b" }]);
  });

  it("sends nothing for the current model, a model the agent does not offer, or acp-default", async () => {
    bridge = startInProcessBridge();
    for (const [thread, model] of [
      ["thr_n1", "m-a"],
      ["thr_n2", "auto"],
      ["thr_n3", "acp-default"],
    ] as const) {
      const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionResult: offered }, thread);
      await bridge.request("thread/start", threadStartParams(thread, spec, bridge.dir, { model }));
      expect(agentReceived(log).map((m) => m.method)).toEqual(["initialize", "session/new"]);
    }
  });
});

describe("model/list fallbacks", () => {
  it("falls back to the last catalog read for the same command when a later run fails", async () => {
    bridge = startInProcessBridge();
    const { spec } = cliFixtureSpec(bridge.dir, { modelList: { stdout: ["m-one - Model One"] } }, [], "flaky");
    const first = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(first.result.models.map((m: any) => m.id)).toEqual(["m-one"]);
    // The same script file now makes the list command fail.
    cliFixtureSpec(bridge.dir, { modelList: { exitCode: 4 } }, [], "flaky");
    const second = await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    expect(second.result).toEqual(first.result);
  });

  it("authenticates headlessly with cached_token before native discovery", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { authMethods: [{ id: "cached_token", name: "Cached" }] });
    await bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    const received = agentReceived(log);
    const auth = received.find((m) => m.method === "authenticate");
    expect(auth?.params).toEqual({ methodId: "cached_token", _meta: { headless: true } });
    // Signed in first: the agent gets authenticate after initialize and before session/new.
    expect(received.map((m) => m.method).filter((m) => m !== undefined)).toEqual(["initialize", "authenticate", "session/new"]);
  });
});

describe("fs requests stay inside the session's workspace (fs-scope.ts)", () => {
  const outsideDirs: string[] = [];
  afterEach(() => {
    for (const dir of outsideDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function outsideDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "acp-fs-outside-"));
    outsideDirs.push(dir);
    return dir;
  }

  it("fsScope workspace, permission mode full: refuses reads and writes outside cwd + write roots (symlinks followed), allows relative paths and extra write roots", async () => {
    bridge = startInProcessBridge({ fsScope: "workspace" });
    const ws = bridge.dir;
    const outside = outsideDir();
    const extraRoot = outsideDir();
    writeFileSync(join(outside, "secret.txt"), "host data\n");
    writeFileSync(join(extraRoot, "shared.txt"), "shared\n");
    writeFileSync(join(ws, "notes.txt"), "draft\n");
    symlinkSync(outside, join(ws, "escape"));
    const s = "fixture-session-1";
    const { spec, log } = fixtureLaunchSpec(ws, {
      prompts: [
        {
          steps: [
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: join(outside, "secret.txt") } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: join(outside, "new.txt"), content: "x" } } },
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: join(ws, "escape", "secret.txt") } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: join(ws, "escape", "made.txt"), content: "x" } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: join(ws, "..", basename(outside), "dotdot.txt"), content: "x" } } },
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: "notes.txt" } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: "sub/dir/created.txt", content: "made\n" } } },
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: join(extraRoot, "shared.txt") } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: join(extraRoot, "shared.txt"), content: "edited\n" } } },
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: "missing.txt" } } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_fsc", spec, ws, { permissionMode: "full", providerOptions: { acpLaunchSpec: spec, additionalWorkspaceWriteRoots: [extraRoot] } }));
    await bridge.request("turn/start", turnStartParams("thr_fsc", "files", "creq_fsc0000000"));
    await bridge.waitFor(isBoundary);
    const answers = replies(log);
    expect(answers.slice(0, 5).map((r) => r.error)).toEqual([
      { code: -32000, message: `File reads outside the workspace are denied: ${join(outside, "secret.txt")}` },
      { code: -32000, message: `File writes outside the workspace are denied: ${join(outside, "new.txt")}` },
      { code: -32000, message: `File reads outside the workspace are denied: ${join(ws, "escape", "secret.txt")}` },
      { code: -32000, message: `File writes outside the workspace are denied: ${join(ws, "escape", "made.txt")}` },
      { code: -32000, message: `File writes outside the workspace are denied: ${join(ws, "..", basename(outside), "dotdot.txt")}` },
    ]);
    // Nothing reached the host outside the workspace.
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
    expect(answers.slice(5, 9).map((r) => r.result)).toEqual([{ content: "draft\n" }, {}, { content: "shared\n" }, {}]);
    // A file that is not there: ACP's "Resource not found" (-32002) with its uri, Node's message kept
    // (gemini matches "ENOENT" in it and then writes the file as new: recordings/acp-gemini/new-file-folder seq 20).
    expect(answers[9]!.error).toEqual({
      code: -32002,
      message: `ENOENT: no such file or directory, open '${join(ws, "missing.txt")}'`,
      data: { uri: join(ws, "missing.txt") },
    });
    expect(readFileSync(join(ws, "sub", "dir", "created.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(extraRoot, "shared.txt"), "utf8")).toBe("edited\n");
    const changes = bridge.deltas("thr_fsc").filter((d) => d.kind === "item.close" && d.item?.type === "fileChange");
    expect(changes.map((d) => d.item.changes[0].path)).toEqual([join(ws, "sub", "dir", "created.txt"), join(extraRoot, "shared.txt")]);
  });

  it("by default (fsScope any, the reference's policy) full-mode reads and writes reach any path", async () => {
    bridge = startInProcessBridge();
    const outside = outsideDir();
    writeFileSync(join(outside, "secret.txt"), "host data\n");
    const s = "fixture-session-1";
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            { request: { method: "fs/read_text_file", params: { sessionId: s, path: join(outside, "secret.txt") } } },
            { request: { method: "fs/write_text_file", params: { sessionId: s, path: join(outside, "new.txt"), content: "x" } } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_fsa", spec, bridge.dir, { permissionMode: "full" }));
    await bridge.request("turn/start", turnStartParams("thr_fsa", "files", "creq_fsa0000000"));
    await bridge.waitFor(isBoundary);
    expect(replies(log).map((r) => r.result)).toEqual([{ content: "host data\n" }, {}]);
    expect(readFileSync(join(outside, "new.txt"), "utf8")).toBe("x");
    expect(() => startInProcessBridge({ fsScope: "nowhere" as never })).toThrowError(/fsScope must be "workspace" or "any"/);
  });
});
