import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createScopeRouter, PROCESS_SCOPE, scopeForThreadId } from "../../stack/bridge-kit/record-scope.js";
import { createBridgeRecorder, type RecorderFs } from "../../stack/bridge-kit/recorder.js";
import { getProcessRecorder, installProcessRecorder, isProviderBridgeRecording, PROCESS_RECORDER_SLOT, recordProviderChildIo } from "../../stack/bridge-kit/record-process.js";
import type { LaneEntry as Entry } from "./bootstrap-driver.js";

function readLane(file: string): Entry[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Entry);
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bridge-kit-record-"));
});
afterEach(() => {
  installProcessRecorder(null);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("scopeForThreadId (spec 10 §4)", () => {
  it("replaces runs outside [A-Za-z0-9_.-] with '-' and guards empty and leading '_'", () => {
    expect(scopeForThreadId("thr_abc123")).toBe("thr_abc123");
    expect(scopeForThreadId("a b/c..d")).toBe("a-b-c..d");
    expect(scopeForThreadId("x//  y")).toBe("x-y");
    expect(scopeForThreadId("")).toBe("t-");
    expect(scopeForThreadId("_process")).toBe("t-_process");
    expect(scopeForThreadId("ünï")).toBe("-n-");
  });
});

describe("createScopeRouter", () => {
  it("routes by params.threadId, and responses by their request's scope in the opposite direction", () => {
    const router = createScopeRouter();
    const line = (value: unknown) => JSON.stringify(value);
    expect(router.route("runtime→bridge", line({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }))).toBe(PROCESS_SCOPE);
    expect(router.route("runtime→bridge", line({ jsonrpc: "2.0", id: 2, method: "turn/start", params: { threadId: "t1" } }))).toBe("t1");
    // The bridge's own request 1 is a different id space from the runtime's request 1.
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", id: 1, method: "interaction/request", params: { threadId: "t2" } }))).toBe("t2");
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", id: 1, result: {} }))).toBe(PROCESS_SCOPE);
    expect(router.route("runtime→bridge", line({ jsonrpc: "2.0", id: 1, result: { decision: "deny" } }))).toBe("t2");
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", id: 2, result: { threadId: "t1" } }))).toBe("t1");
    // "2" is not 2.
    expect(router.route("runtime→bridge", line({ jsonrpc: "2.0", id: "2", method: "thread/stop", params: { threadId: "t3" } }))).toBe("t3");
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", id: 2, result: {} }))).toBe(PROCESS_SCOPE);
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", id: "2", result: {} }))).toBe("t3");
    expect(router.route("bridge→runtime", line({ jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t1", deltas: [] } }))).toBe("t1");
    expect(router.route("runtime→bridge", "not json")).toBe(PROCESS_SCOPE);
  });
});

describe("createBridgeRecorder", () => {
  it("appends {ts, run, seq, dir, line} per lane with one seq across lanes and strips a trailing CR", () => {
    let clock = 1000;
    const recorder = createBridgeRecorder({ dir: tmp, providerId: "echo", now: () => clock++ });
    recorder.recordRuntimeLine("runtime→bridge", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "thread/start", params: { threadId: "t" } }));
    recorder.recordProviderLine("bridge→provider", "to child\r", "t");
    recorder.recordProviderLine("provider→bridge", "from child", null);
    recorder.recordRuntimeLine("bridge→runtime", JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }));
    recorder.close();
    const root = path.join(tmp, "echo");
    expect(readLane(path.join(root, "t", "runtime→bridge.ndjson")).map((e) => [e.seq, e.run, e.ts, e.dir])).toEqual([[1, 1000, 1001, "runtime→bridge"]]);
    expect(readLane(path.join(root, "t", "bridge→provider.ndjson"))).toEqual([{ ts: 1002, run: 1000, seq: 2, dir: "bridge→provider", line: "to child" }]);
    expect(readLane(path.join(root, PROCESS_SCOPE, "provider→bridge.ndjson"))[0]?.seq).toBe(3);
    expect(readLane(path.join(root, "t", "bridge→runtime.ndjson"))[0]?.seq).toBe(4);
    expect(recorder.lastSeq).toBe(4);
  });

  it("appends a second run beside the first, under its own run", () => {
    const first = createBridgeRecorder({ dir: tmp, providerId: "p", now: () => 1 });
    first.recordRuntimeLine("runtime→bridge", "{}");
    first.close();
    const second = createBridgeRecorder({ dir: tmp, providerId: "p", now: () => 2 });
    second.recordRuntimeLine("runtime→bridge", "{}");
    second.close();
    const entries = readLane(path.join(tmp, "p", PROCESS_SCOPE, "runtime→bridge.ndjson"));
    expect(entries.map((e) => [e.run, e.seq])).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });

  it("reports a write error and keeps recording", () => {
    const errors: string[] = [];
    let failNext = true;
    const failingFs: RecorderFs = {
      mkdirSync: fs.mkdirSync as RecorderFs["mkdirSync"],
      openSync: (file, flags) => fs.openSync(file, flags),
      writeSync: (fd, text) => {
        if (failNext) {
          failNext = false;
          throw new Error("disk full");
        }
        return fs.writeSync(fd, text);
      },
      closeSync: fs.closeSync,
    };
    const recorder = createBridgeRecorder({ dir: tmp, providerId: "p", now: () => 5, fs: failingFs, onWriteError: (e) => errors.push(String(e)) });
    recorder.recordRuntimeLine("runtime→bridge", '{"a":1}');
    recorder.recordRuntimeLine("runtime→bridge", '{"a":2}');
    recorder.close();
    expect(errors).toEqual(["Error: disk full"]);
    expect(readLane(path.join(tmp, "p", PROCESS_SCOPE, "runtime→bridge.ndjson")).map((e) => e.line)).toEqual(['{"a":2}']);
  });
});

describe("recordProviderChildIo", () => {
  it("does nothing when the process does not record", () => {
    expect(isProviderBridgeRecording()).toBe(false);
    const child = { stdin: null, stdout: null };
    recordProviderChildIo(child, { threadId: "t" });
    expect(child).toEqual({ stdin: null, stdout: null });
  });

  it("uses the process slot under Symbol.for('bb.providerBridgeRecorder')", () => {
    const recorder = createBridgeRecorder({ dir: tmp, providerId: "p", now: () => 1 });
    installProcessRecorder(recorder);
    expect(PROCESS_RECORDER_SLOT).toBe(Symbol.for("bb.providerBridgeRecorder"));
    expect((globalThis as Record<symbol, unknown>)[Symbol.for("bb.providerBridgeRecorder")]).toBe(recorder);
    expect(getProcessRecorder()).toBe(recorder);
    expect(isProviderBridgeRecording()).toBe(true);
  });

  it("tees a real child's stdin and stdout by line without putting stdout in flowing mode", async () => {
    const recorder = createBridgeRecorder({ dir: tmp, providerId: "p", now: () => 7 });
    installProcessRecorder(recorder);
    const child = spawn(process.execPath, ["-e", "process.stdin.pipe(process.stdout)"], { stdio: ["pipe", "pipe", "inherit"] });
    recordProviderChildIo(child, { threadId: "thr/1" });
    expect(child.stdout.readableFlowing).toBeNull();
    child.stdin.write("one\ntw");
    child.stdin.write(Buffer.from("o\n"));
    child.stdin.end("three\n");
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    // The bridge attaches its reader after writing; its stream was left paused until now.
    let seen = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (seen += chunk));
    await exited;
    recorder.close();
    expect(seen).toBe("one\ntwo\nthree\n");
    const scope = path.join(tmp, "p", "thr-1");
    expect(readLane(path.join(scope, "bridge→provider.ndjson")).map((e) => e.line)).toEqual(["one", "two", "three"]);
    expect(readLane(path.join(scope, "provider→bridge.ndjson")).map((e) => e.line)).toEqual(["one", "two", "three"]);
  });
});
