import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { loadCell } from "../../harness/runtime/cells.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording, type Recording } from "../../harness/recording/reader.js";
import { runCellScript, type CellScript } from "../../harness/runtime/cell-driver.js";
import { BridgeRefusedError } from "../../harness/runtime/errors.js";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { createEchoBridge } from "../../stack/echo/bridge.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

// The runtime script driver (harness/runtime/cell-driver.ts) and the record flow
// (harness/record/record-cell.ts) against the echo bridge and its committed recordings: the one
// driver and the one record flow the project has.

const repoRoot = path.resolve(import.meta.dirname, "../..");
const cellsRoot = path.join(repoRoot, "cells");
const scratch = mkdtempSync(path.join(tmpdir(), "echo-script-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The driver's and the client's waits run on a fake clock that no test advances: a wait ends on
// its cause (the answer, the event, the bridge closing), never on how busy the machine is; a hang
// ends at vitest's test timeout.
const never = createFakeScheduler();
const run = { timeoutMs: 5_000, now: () => 0, scheduler: never };
const echoClient = () => createJsonRpcClient(openInProcessBridge(createEchoBridge(), { providerId: "echo" }), never);
const script = (threadId: string, steps: CellScript["steps"]): CellScript => ({ threadId, cwd: scratch, options: {}, steps, answers: [] });
async function echoCellScript(cell: string): Promise<CellScript> {
  const { definition } = await loadCell(cellsRoot, cell, "echo");
  return { threadId: definition.threadId, cwd: scratch, options: definition.options, steps: definition.steps, answers: [] };
}

describe("the runtime script driver against the echo bridge", () => {
  it("drives the stop-interrupt cell: the held turn ends interrupted, the resumed session's turn completes", async () => {
    const client = echoClient();
    const result = await runCellScript(client, await echoCellScript("stop-interrupt"), run);
    await client.channel.close();
    const turns = result.events.filter((e) => e.type === "turn/completed").map((e) => ("status" in e ? e.status : ""));
    expect(turns).toEqual(["interrupted", "completed"]);
    expect(result.providerThreadIds["thr_echo_stop_interrupt"]).toMatch(/^echo-[0-9a-f]{16}$/);
    expect(result.problems).toEqual([]);
  });

  it("steers a held turn into completion", async () => {
    const client = echoClient();
    const result = await runCellScript(
      client,
      script("thr_steer", [{ op: "thread/start" }, { op: "turn/start", text: "/hold first", until: "turn/started" }, { op: "turn/steer", text: "second", until: "turn/completed" }]),
      run,
    );
    await client.channel.close();
    const types = result.events.map((e) => e.type);
    expect(types.filter((t) => t === "turn/started")).toHaveLength(1);
    expect(types.filter((t) => t === "turn/input/accepted")).toHaveLength(2);
    expect(types.at(-1)).toBe("turn/completed");
  });

  it("refuses a script that resumes before it started", async () => {
    const client = echoClient();
    await expect(runCellScript(client, script("t", [{ op: "thread/resume" }]), run)).rejects.toBeInstanceOf(BridgeRefusedError);
    await client.channel.close();
  });
});

/**
 * A recording's lanes without what legitimately changes between runs (`ts`, `run`, the random
 * providerThreadId, the workspace path) and the empty `providerOptions` the record flow merges
 * into the echo's execution options (the committed recordings were made without it; the echo
 * ignores it, and their oracles come out byte for byte: echo-reproducible.test.ts).
 */
function comparable(recording: Recording) {
  const providerThreadIds = new Set<string>();
  for (const entry of recording.merged({ useCurrent: false })) {
    for (const match of entry.line.matchAll(/"providerThreadId":"(echo-[0-9a-f]{16})"/g)) providerThreadIds.add(match[1]!);
  }
  expect(providerThreadIds.size).toBe(1);
  const [ptid] = [...providerThreadIds];
  return recording.merged({ useCurrent: false }).map((entry) => ({
    seq: entry.seq,
    dir: entry.dir,
    line: entry.line
      .replaceAll(ptid!, "<providerThreadId>")
      .replace(/"cwd":"[^"]*"/g, '"cwd":"<workspace>"')
      .replaceAll(',"providerOptions":{}', ""),
  }));
}

describe("the record flow reproduces the committed echo recordings", () => {
  for (const cell of ["resume", "stop-interrupt", "turn", "zero-work"]) {
    it(`${cell}: line for line but for ts, run, providerThreadId, the workspace path and an empty providerOptions`, async () => {
      const committed = await readRecording(path.join(repoRoot, "recordings", "echo", cell));
      const out = path.join(scratch, cell);
      const fresh = await recordCell({ providerId: "echo", cell, cellsRoot, outRoot: out, lanesRoot: path.join(out, "lanes"), redact: [], now: Date.now });
      expect(comparable(await readRecording(fresh.dir))).toEqual(comparable(committed));
    });
  }

  it("recording over an existing recording is refused before anything runs", async () => {
    const refusal = await recordCell({
      providerId: "echo",
      cell: "turn",
      cellsRoot,
      outRoot: path.join(repoRoot, "recordings"),
      lanesRoot: path.join(scratch, "refused-lanes"),
      redact: [],
      now: Date.now,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as Error).message).toMatch(/recordings\/echo\/turn.*never overwritten/);
  });
});
