import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TRIM_OVER_CHARS } from "../../harness/recording/redact.js";
import { runCli } from "../helpers/run-cli.js";

// Issue 37, build point 7: a fresh recording with a long output failed its own `parity check`
// (acp-opencode, `seq 1 3000`), because redaction cut each lane's copy on its own: the bridge's
// recorded output was cut from the whole text, the replayed bridge made its output from the cut
// input. The cut is now made once, in the inputs, and the bridge lane replayed from them
// (harness/cli/record-cut.ts).
describe("parity record of a cell whose tool output is longer than the cut", () => {
  let work: string;
  let cells: string;
  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), "parity-record-cut-"));
    cells = path.join(work, "cells");
    // 400 numbered lines, about 3.9k characters: one string over the cut, as `seq 1 400` prints it.
    const output = `${Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    expect(output.length).toBeGreaterThan(TRIM_OVER_CHARS);
    await mkdir(path.join(cells, "long-output", "agents"), { recursive: true });
    const cell = {
      description: "One command whose output is longer than redaction keeps whole.",
      threadId: "thr_long_output",
      options: { permissionMode: "full" },
      steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Print 400 lines." }],
    };
    await writeFile(path.join(cells, "long-output", "cell.json"), `${JSON.stringify(cell, null, 2)}\n`);
    const command = { sessionUpdate: "tool_call", toolCallId: "fx-long-1", title: "$ seq 1 400", kind: "execute", status: "pending", rawInput: { command: "seq 1 400" } };
    const done = { sessionUpdate: "tool_call_update", toolCallId: "fx-long-1", status: "completed", content: [{ type: "content", content: { type: "text", text: output } }] };
    const answer = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Printed 400 lines." }, messageId: "fx-long-msg" };
    const agent = { comment: "A command with a long output (test/record/record-cut.test.ts).", prompts: [{ steps: [{ update: command }, { update: done }, { update: answer }] }] };
    await writeFile(path.join(cells, "long-output", "agents", "acp-omp-fixture.json"), `${JSON.stringify(agent, null, 2)}\n`);
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test("cuts it once, marks it, and the fresh recording passes its own check", async () => {
    const out = path.join(work, "rec");
    const recorded = await runCli(["record", "--provider", "acp-omp-fixture", "--cell", "long-output", "--cells", cells, "--out", out]);
    expect(recorded.code, recorded.err).toBe(0);
    expect(recorded.out).toMatch(/cut \d+ long strings? once, marked ⟦redacted: N chars trimmed⟧ in the lanes; the bridge lane from the cut inputs: /);
    const dir = path.join(out, "acp-omp-fixture", "long-output");
    expect(await readFile(path.join(dir, "provider→bridge.ndjson"), "utf8")).toMatch(/⟦redacted: \d+ chars trimmed⟧/);

    const gate = await runCli(["check", "--recordings", out, "--lanes", path.join(out, "lanes")]);
    expect(gate.code, gate.out).toBe(0);
  });

  // Issue 41: `record --agent-version`, `--all-cells` and `--repeat` record through `recordCells`,
  // which made no cut replay: fresh re-records of long-output by claude-agent-acp 0.49.0, omp
  // 18.2.3 and qwen-code 0.15.10 failed their own check, the bridge lane cut at one place and its
  // replay at another. The breaking shape here: a wrapping the bridge takes off (copilot's
  // trailer, stack/acp/translate/command-text.ts), so the bridge's text is shorter than the
  // agent's and the two cuts keep different tails.
  test("a cell recorded by --repeat (as --all-cells and --agent-version) is cut once too and passes its own check", async () => {
    const output = `${Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    await mkdir(path.join(cells, "wrapped-output", "agents"), { recursive: true });
    const cell = {
      description: "One command whose long output comes wrapped in a trailer the bridge takes off.",
      threadId: "thr_wrapped_output",
      options: { permissionMode: "full" },
      steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Print 400 lines." }],
    };
    await writeFile(path.join(cells, "wrapped-output", "cell.json"), `${JSON.stringify(cell, null, 2)}\n`);
    const text = `${output}<shellId: 0 completed with exit code 0>`;
    const command = { sessionUpdate: "tool_call", toolCallId: "fx-wrap-1", title: "$ seq 1 400", kind: "execute", status: "pending", rawInput: { command: "seq 1 400" } };
    const done = { sessionUpdate: "tool_call_update", toolCallId: "fx-wrap-1", status: "completed", content: [{ type: "content", content: { type: "text", text } }] };
    const answer = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Printed 400 lines." }, messageId: "fx-wrap-msg" };
    const agent = { comment: "A long output in a trailer the bridge takes off (test/record/record-cut.test.ts).", prompts: [{ steps: [{ update: command }, { update: done }, { update: answer }] }] };
    await writeFile(path.join(cells, "wrapped-output", "agents", "acp-omp-fixture.json"), `${JSON.stringify(agent, null, 2)}\n`);

    const out = path.join(work, "repeat");
    const recorded = await runCli(["record", "--provider", "acp-omp-fixture", "--cell", "wrapped-output", "--cells", cells, "--out", out, "--repeat", "2"]);
    expect(recorded.code, recorded.out + recorded.err).toBe(0);
    const run1 = path.join(out, "run-1");
    const gate = await runCli(["check", "--recordings", run1, "--lanes", path.join(run1, "lanes"), "--cells", cells]);
    expect(gate.code, gate.out).toBe(0);
    expect(recorded.err).toMatch(/long strings? cut once, bridge lane replayed from the cut inputs/);
  });
});
