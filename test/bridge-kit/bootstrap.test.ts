import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseLaneEntry, type Direction } from "../../harness/recording/lane-entry.js";
import { classifyJsonRpcMessage } from "../../stack/protocol/json-rpc.js";
import { driveBridge, ensureCompiledBootstrap, readRecordTree, type DrivenBridge, type LaneEntry } from "./bootstrap-driver.js";

const DIRECTIONS = ["runtime→bridge", "bridge→runtime", "provider→bridge", "bridge→provider"];
const THREAD_ID = "thr one/α";
const THREAD_SCOPE = "thr-one-";

let tmp: string;
beforeAll(() => ensureCompiledBootstrap(), 120_000);
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bridge-kit-bootstrap-"));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function recordEnv(recordDir: string): NodeJS.ProcessEnv {
  return { ...process.env, BB_PROVIDER_BRIDGE_RECORD_DIR: ` ${recordDir} `, BB_RUNTIME_SECRET: "s", NODE_ENV: "test" };
}

/** initialize, thread/start, a turn up to the runtime's approval request. */
async function startTurn(bridge: DrivenBridge) {
  const init = await bridge.request(1, "initialize", { protocolVersion: 2, client: { name: "test", version: "1" }, grammarVersions: [3, 3] });
  expect(init.result).toMatchObject({ protocolVersion: 2, capabilities: { grammarVersions: [3, 3] } });
  const started = await bridge.request(2, "thread/start", { threadId: THREAD_ID, cwd: tmp, options: {} });
  const turnReply = bridge.request(3, "turn/start", { threadId: THREAD_ID, input: [{ type: "text", text: "hello" }], clientRequestId: "creq_23456789ab" });
  const approval = await bridge.waitFor((message) => message.method === "interaction/request");
  expect((await turnReply).result).toEqual({ threadId: THREAD_ID });
  return { started, approval };
}

function allEntries(root: string): LaneEntry[] {
  return readRecordTree(root).flatMap((lane) => lane.entries);
}

describe("bootstrap in record mode (spec 10 §4)", () => {
  it("tees all four lanes with one gapless seq, scopes responses by their request, keeps the variable from children", async () => {
    const recordDir = path.join(tmp, "rec");
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data"), env: recordEnv(recordDir) });
    const { started, approval } = await startTurn(bridge);

    // The child the bridge spawned with the sanitized env saw no BB_ variable at all.
    expect(started.result).toMatchObject({ providerThreadId: `p-${THREAD_ID}`, childReport: { ready: true, recordVar: null, bbKeys: [] } });

    // Even a child spawned with the default inherited env never sees the record variable.
    expect((await bridge.request("env", "test/spawnDefaultEnv", {})).result).toEqual({ recordVar: null, recording: true });

    // The bridge's request id space is its own: its first request is 1, like the runtime's initialize.
    expect(approval.id).toBe(1);
    bridge.send({ jsonrpc: "2.0", id: approval.id, result: { decision: "allow_once", grantedPermissions: null } });
    await bridge.waitFor((message) => message.method === "thread/delta" && JSON.stringify(message.params).includes("turn.boundary"));
    expect((await bridge.request(4, "thread/stop", { threadId: THREAD_ID, intent: "release", activeTurnId: null })).result).toEqual({ ok: true });
    bridge.child.stdin.end();
    expect(await bridge.exited).toEqual({ code: 0, signal: null });

    const root = path.join(recordDir, "probe");
    const lanes = readRecordTree(root);
    const thread = lanes.filter((lane) => lane.scope === THREAD_SCOPE);
    expect(thread.map((lane) => lane.direction).sort()).toEqual([...DIRECTIONS].sort());
    expect(
      lanes
        .filter((lane) => lane.scope === "_process")
        .map((lane) => lane.direction)
        .sort(),
    ).toEqual(["bridge→runtime", "runtime→bridge"]);

    // One seq counter across every lane of the process: 1..N, no gap, no repeat; one run.
    const entries = allEntries(root);
    expect(entries.map((entry) => entry.seq).sort((a, b) => a - b)).toEqual(entries.map((_, index) => index + 1));
    expect(new Set(entries.map((entry) => entry.run)).size).toBe(1);
    // Every entry reads back through the recording reader's own entry check.
    for (const lane of lanes) {
      lane.entries.forEach((entry, index) => {
        expect(parseLaneEntry(JSON.stringify(entry), lane.direction as Direction, { file: `${lane.scope}/${lane.direction}`, line: index + 1 })).toEqual(entry);
      });
    }

    // Every line that crossed the runtime boundary is recorded, byte for byte, in its lane.
    const recordedOut = entries
      .filter((entry) => entry.dir === "bridge→runtime")
      .sort((a, b) => a.seq - b.seq)
      .map((entry) => entry.line);
    const recordedIn = entries
      .filter((entry) => entry.dir === "runtime→bridge")
      .sort((a, b) => a.seq - b.seq)
      .map((entry) => entry.line);
    expect(recordedOut).toEqual(bridge.stdoutLines);
    expect(recordedIn).toEqual(bridge.sentLines);

    // initialize and its result are process lines; the runtime's answer to the bridge's
    // request 1 lands in the thread's runtime→bridge lane, not beside initialize (also id 1).
    const lane = (scope: string, direction: string) => lanes.find((l) => l.scope === scope && l.direction === direction)?.entries.map((e) => JSON.parse(e.line)) ?? [];
    expect(lane("_process", "runtime→bridge").map((m) => m.method)).toEqual(["initialize", "test/spawnDefaultEnv"]);
    expect(lane("_process", "bridge→runtime").map((m) => m.id)).toEqual([1, "env"]);
    expect(lane(THREAD_SCOPE, "runtime→bridge")).toContainEqual({ jsonrpc: "2.0", id: 1, result: { decision: "allow_once", grantedPermissions: null } });
    expect(lane(THREAD_SCOPE, "bridge→runtime").map((m) => m.method ?? `result:${m.id}`)).toEqual([
      "thread/identity",
      "result:2",
      "result:3",
      "thread/delta",
      "interaction/request",
      "thread/delta",
      "result:4",
    ]);
    // The child's stdio, in the thread scope given at spawn.
    expect(lane(THREAD_SCOPE, "bridge→provider")).toEqual([{ prompt: "hello" }]);
    expect(lane(THREAD_SCOPE, "provider→bridge")).toEqual([{ ready: true, recordVar: null, bbKeys: [] }, { echo: JSON.stringify({ prompt: "hello" }) }]);

    // A second run appends beside the first under its own run, its seq starting again at 1.
    const again = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data"), env: recordEnv(recordDir) });
    await again.request(7, "initialize", { protocolVersion: 2, client: { name: "test", version: "1" } });
    again.child.stdin.end();
    expect((await again.exited).code).toBe(0);
    const processIn = readRecordTree(root).find((l) => l.scope === "_process" && l.direction === "runtime→bridge")?.entries ?? [];
    expect(processIn).toHaveLength(3);
    expect(processIn[0]?.run).not.toBe(processIn[2]?.run);
    expect(processIn[2]?.seq).toBe(1);
  });

  it("leaves every line written before a SIGKILL mid-turn readable", async () => {
    const recordDir = path.join(tmp, "rec");
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data"), env: recordEnv(recordDir) });
    await startTurn(bridge);
    // Mid-turn: the bridge waits for the runtime's approval. Kill it without warning.
    bridge.child.kill("SIGKILL");
    expect((await bridge.exited).signal).toBe("SIGKILL");

    const entries = allEntries(path.join(recordDir, "probe"));
    expect(entries.map((entry) => entry.seq).sort((a, b) => a - b)).toEqual(entries.map((_, index) => index + 1));
    const out = entries
      .filter((entry) => entry.dir === "bridge→runtime")
      .sort((a, b) => a.seq - b.seq)
      .map((entry) => entry.line);
    const into = entries
      .filter((entry) => entry.dir === "runtime→bridge")
      .sort((a, b) => a.seq - b.seq)
      .map((entry) => entry.line);
    expect(out).toEqual(bridge.stdoutLines);
    expect(into).toEqual(bridge.sentLines);
    expect(out.at(-1)).toContain('"interaction/request"');
    expect(entries.some((entry) => entry.dir === "bridge→provider")).toBe(true);
  });
});

describe("bootstrap robustness", () => {
  it("keeps the protocol stream clean of stray stdout writes and sends them to stderr", async () => {
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data") });
    const { approval } = await startTurn(bridge);
    bridge.send({ jsonrpc: "2.0", id: approval.id, result: { decision: "deny" } });
    const end = await bridge.waitFor((message) => message.method === "thread/delta" && JSON.stringify(message.params).includes("turn.boundary"));
    expect(JSON.stringify(end.params)).toContain('"failed"');
    await bridge.waitForStderr("more stray output");
    expect(bridge.stderr()).toContain("stray output at import time");
    expect(bridge.stderr()).toContain("stray output during a turn");
    for (const line of bridge.stdoutLines) expect(classifyJsonRpcMessage(JSON.parse(line)).kind, line).not.toBe("invalid");
    bridge.child.stdin.end();
    expect((await bridge.exited).code).toBe(0);
    expect(bridge.stderr()).toContain("probe bridge closed");
  });

  it("drops a 70 MB line with a note on stderr and keeps serving", async () => {
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data") });
    const pad = "x".repeat(70 * 1024 * 1024);
    const huge = `{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"pad":"${pad}"}}`;
    bridge.sendRaw(`${huge}\n`);
    await bridge.waitForStderr(`dropped a stdin line of ${Buffer.byteLength(huge)} bytes`);
    const reply = await bridge.request(100, "initialize", { protocolVersion: 2, client: { name: "t", version: "1" } });
    expect(reply.result).toMatchObject({ protocolVersion: 2 });
    expect(bridge.stdoutLines.map((line) => JSON.parse(line).id)).toEqual([100]);
    bridge.child.stdin.end();
    expect((await bridge.exited).code).toBe(0);
  });

  it("ignores non-JSON lines and answers invalid params, unknown methods and throwing handlers", async () => {
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data") });
    for (const junk of ["hello", "{broken", "", "   ", "[1,2]", '"text"', '{"id":5,"method":"initialize"}', '{"jsonrpc":"2.0","method":"nobody/listens"}']) {
      bridge.send(junk);
    }
    const bad = await bridge.request(1, "thread/start", { cwd: 42 });
    // Lines are served in order: had any junk line been answered, it would precede this reply.
    expect(bridge.stdoutLines).toHaveLength(1);
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/^Invalid params for "thread\/start": /);
    const issues = (bad.error?.data as { issues: Array<{ path: unknown[]; message: string }> }).issues;
    expect(issues.map((issue) => issue.path).sort()).toEqual([["cwd"], ["threadId"]]);
    const unknown = await bridge.request(2, "thread/archive", { threadId: "t" });
    expect(unknown.error).toEqual({ code: -32601, message: 'Unknown method "thread/archive"' });
    const thrown = await bridge.request("three", "test/throw", {});
    expect(thrown.error).toEqual({ code: -32000, message: "the handler failed on purpose" });
    const noSession = await bridge.request(4, "turn/start", { threadId: "missing", input: [], clientRequestId: "c" });
    expect(noSession.error).toEqual({ code: -32000, message: "No active session" });
    bridge.child.stdin.end();
    expect((await bridge.exited).code).toBe(0);
  });

  it("runs onClose and exits 0 on SIGTERM", async () => {
    const bridge = driveBridge({ providerId: "probe", dataDir: path.join(tmp, "data") });
    await bridge.request(1, "initialize", { protocolVersion: 2, client: { name: "t", version: "1" } });
    bridge.child.kill("SIGTERM");
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    expect(bridge.stderr()).toContain("probe bridge closed");
    expect(fs.existsSync(path.join(tmp, "data"))).toBe(true);
  });

  it("refuses bad arguments with exit 2 and a module without a bridge with exit 1", async () => {
    const noArgs = driveBridge({ modulePath: "", providerId: "", dataDir: "" });
    expect((await noArgs.exited).code).toBe(2);
    expect(noArgs.stderr()).toContain("usage: bootstrap.js");
    const notABridge = path.join(tmp, "not-a-bridge.mjs");
    fs.writeFileSync(notABridge, "export const something = 1;\n");
    const wrong = driveBridge({ modulePath: notABridge, providerId: "x", dataDir: path.join(tmp, "d") });
    expect((await wrong.exited).code).toBe(1);
    expect(wrong.stderr()).toContain("does not export experimental_providerBridge");
  });
});
