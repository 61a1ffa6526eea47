import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { readRecording, type Recording } from "../../harness/recording/reader.js";
import { ECHO_CELLS } from "../../harness/runtime/echo-cells.js";
import { BridgeRefusedError } from "../../harness/runtime/errors.js";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { recordScriptedCell } from "../../harness/runtime/record-cell.js";
import { runRuntimeScript } from "../../harness/runtime/script.js";
import { packageDistPath } from "../../harness/runtime/spawn-bridge.js";
import { createEchoBridge } from "../../stack/echo/bridge.js";
import { createBrokenBridge } from "../conformance/broken-bridge.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "script-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function echoClient() {
  return createJsonRpcClient(openInProcessBridge(createEchoBridge(), { providerId: "echo" }));
}

describe("runRuntimeScript", () => {
  it("drives the stop-interrupt cell: the held turn ends interrupted, the resumed session's turn completes", async () => {
    const client = echoClient();
    const run = await runRuntimeScript(client, ECHO_CELLS["stop-interrupt"]!.script, { timeoutMs: 5_000, now: () => 0 });
    await client.channel.close();
    const turns = run.events.filter((e) => e.type === "turn/completed").map((e) => ("status" in e ? e.status : ""));
    expect(turns).toEqual(["interrupted", "completed"]);
    expect(run.providerThreadId).toMatch(/^echo-[0-9a-f]{16}$/);
    expect(run.events.every((e) => e.threadId === "thr_echo_stop_interrupt")).toBe(true);
  });

  it("steers a held turn into completion", async () => {
    const client = echoClient();
    const run = await runRuntimeScript(
      client,
      {
        threadId: "thr_steer",
        cwd: scratch,
        steps: [
          { op: "thread/start" },
          { op: "turn/start", text: "/hold first", until: "turn/started" },
          { op: "turn/steer", text: "second" },
        ],
      },
      { timeoutMs: 5_000, now: () => 0 },
    );
    await client.channel.close();
    const types = run.events.map((e) => e.type);
    expect(types.filter((t) => t === "turn/started")).toHaveLength(1);
    expect(types.filter((t) => t === "turn/input/accepted")).toHaveLength(2);
    expect(types.at(-1)).toBe("turn/completed");
  });

  it("ends with the assembler's refusal when the bridge sends an invalid thread/delta", async () => {
    const client = createJsonRpcClient(openInProcessBridge(createBrokenBridge(new Set(["invalidDelta"])), { providerId: "broken" }));
    const failure = await runRuntimeScript(client, ECHO_CELLS.turn!.script, { timeoutMs: 5_000, now: () => 0 }).catch((error: unknown) => error);
    await client.channel.close();
    expect(failure).toBeInstanceOf(BridgeRefusedError);
    expect((failure as Error).message).toMatch(/thread\/delta was refused by the assembler: .*channel/);
  });

  it("refuses a script that resumes before it started", async () => {
    const client = echoClient();
    await expect(
      runRuntimeScript(client, { threadId: "t", cwd: scratch, steps: [{ op: "thread/resume" }] }, { timeoutMs: 5_000, now: () => 0 }),
    ).rejects.toBeInstanceOf(BridgeRefusedError);
    await client.channel.close();
  });
});

/** A recording's lanes without what legitimately changes between runs: `ts`, `run` and the random providerThreadId. */
function comparable(recording: Recording) {
  const providerThreadIds = new Set<string>();
  for (const entry of recording.merged({ useCurrent: false })) {
    for (const match of entry.line.matchAll(/"providerThreadId":"(echo-[0-9a-f]{16})"/g)) providerThreadIds.add(match[1]!);
  }
  expect(providerThreadIds.size).toBe(1);
  const [ptid] = [...providerThreadIds];
  return recording.merged({ useCurrent: false }).map((entry) => ({ seq: entry.seq, dir: entry.dir, line: entry.line.replaceAll(ptid!, "<providerThreadId>") }));
}

describe("the committed echo recordings", () => {
  for (const cell of Object.keys(ECHO_CELLS)) {
    it(`${cell}: is a valid recording that a fresh run of its script reproduces line for line (but for ts, run, providerThreadId)`, async () => {
      const committed = await readRecording(path.join(repoRoot, "recordings", "echo", cell));
      expect(committed.manifest).toMatchObject({ provider: "echo", cell, scope: "thread", bridgeRuns: 1, threadId: ECHO_CELLS[cell]!.script.threadId });
      const fresh = await recordScriptedCell({
        modulePath: packageDistPath("stack", "echo", "bridge.js"),
        providerId: "echo",
        cell,
        script: ECHO_CELLS[cell]!.script,
        recordingsRoot: scratch,
        cliVersion: committed.manifest.cliVersion,
        description: committed.manifest.description,
        note: committed.manifest.note,
        now: Date.now,
      });
      expect(comparable(fresh)).toEqual(comparable(committed));
      expect({ ...fresh.manifest, recordedAt: "" }).toEqual({ ...committed.manifest, recordedAt: "" });
    });
  }

  it("recording over an existing recording is refused before anything runs", async () => {
    const refusal = await recordScriptedCell({
      modulePath: packageDistPath("stack", "echo", "bridge.js"),
      providerId: "echo",
      cell: "turn",
      script: ECHO_CELLS.turn!.script,
      recordingsRoot: path.join(repoRoot, "recordings"),
      cliVersion: "x",
      description: "x",
      note: "x",
      now: Date.now,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as Error).message).toMatch(/recordings\/echo\/turn: a recording already exists here and is never overwritten/);
  });
});
