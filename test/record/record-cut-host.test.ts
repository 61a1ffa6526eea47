import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { RECORDED_PATHS } from "../../harness/recording/recorded-paths.js";
import { TRIM_KEEP_HEAD, TRIM_KEEP_TAIL, compileUserPatterns, createRedactor, trimMarker } from "../../harness/recording/redact.js";
import { recordPathRewrites } from "../../harness/families/record-provider.js";
import { runCli } from "../helpers/run-cli.js";

// A recording must not depend on the host. Redaction cut a long string by the length of its raw
// text, the run's machine paths included, and replaced those paths by their placeholders only
// afterwards: "N chars trimmed" and the tail a cut kept followed TMPDIR's length (pi long-output,
// recorded under npm test's run directory: 10434 chars trimmed against the oracle's 10411). The
// breaking input: a long tool output naming the run's workspace before, inside and after the cut,
// recorded under two temp parents of different length.

/**
 * A lane's lines as the bridge wrote and redaction stored them, without what a second run cannot
 * reproduce on any host: `ts` and `run` (the clock), `seq` (how the four lanes interleaved).
 */
const laneLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { line: string }).line);

describe("a cut does not depend on the length of the run's temp root", () => {
  test("the redactor cuts the stored text: two temp roots of different length give one line", () => {
    const short = { root: "/tmp/a/rec-00000000", workspace: "/tmp/a/rec-00000000/ws", home: "/tmp/a/rec-00000000/home" };
    const longParent = "/tmp/a-much-longer-directory-name-xxxxxxxxxxxxxxxx";
    const long = { root: `${longParent}/rec-00000000`, workspace: `${longParent}/rec-00000000/ws`, home: `${longParent}/rec-00000000/home` };
    const lineIn = (dirs: typeof short) => {
      const lines = Array.from({ length: 600 }, (_, i) => `${dirs.workspace}/out-${i + 1}.txt`).join("\n");
      return JSON.stringify({ jsonrpc: "2.0", method: "x", params: { text: `${lines}\n[Full output: ${dirs.root}/tmp/spill.log]` } });
    };
    const stored = (dirs: typeof short) => createRedactor({ home: "/root", paths: recordPathRewrites(dirs, "/usr/bin:/bin") }).redactLine(lineIn(dirs));

    const a = stored(short);
    expect(stored(long)).toBe(a);
    // Cut as stored: the kept tail is whole and N counts the placeholders' characters.
    const text = (JSON.parse(a) as { params: { text: string } }).params.text;
    const whole = Array.from({ length: 600 }, (_, i) => `${RECORDED_PATHS.workspace}/out-${i + 1}.txt`).join("\n") + `\n[Full output: ${RECORDED_PATHS.root}/tmp/spill.log]`;
    expect(text).toBe(`${whole.slice(0, TRIM_KEEP_HEAD)}${trimMarker(whole.length - TRIM_KEEP_HEAD - TRIM_KEEP_TAIL)}${whole.slice(-TRIM_KEEP_TAIL)}`);
    // Idempotent: the stored line redacted again is itself.
    const again = createRedactor({ home: "/root", paths: recordPathRewrites(short, "/usr/bin:/bin") });
    expect(again.redactLine(a)).toBe(a);
  });

  test("a line whose JSON a --redact pattern breaks is still cut, as it came", () => {
    const redactor = createRedactor({ home: "/root", patterns: compileUserPatterns(['acct-[0-9]{6}"']) });
    const line = JSON.stringify({ text: "x".repeat(3000), id: "acct-123456" });
    const stored = redactor.redactLine(line);
    expect(stored).toContain(trimMarker(3000 - TRIM_KEEP_HEAD - TRIM_KEEP_TAIL));
    expect(stored).not.toContain("acct-123456");
  });

  describe("parity record under two TMPDIRs of different length", () => {
    let work: string;
    let cells: string;
    beforeAll(async () => {
      work = await mkdtemp(path.join(os.tmpdir(), "parity-cut-host-"));
      cells = path.join(work, "cells");
      await mkdir(path.join(cells, "long-output", "agents"), { recursive: true });
      const cell = {
        description: "One command whose long output names the run's workspace.",
        threadId: "thr_long_output",
        options: { permissionMode: "full" },
        steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Print 400 lines." }],
      };
      await writeFile(path.join(cells, "long-output", "cell.json"), `${JSON.stringify(cell, null, 2)}\n`);
      // The workspace path (the agent's session cwd) in the kept head, in the cut middle and in the kept tail.
      const lines = Array.from({ length: 400 }, (_, i) => (i % 40 === 0 ? `{{cwd}}/part-${i + 1}.log` : `line ${i + 1}`)).join("\n");
      const output = `${lines}\n[Full output: {{cwd}}/spill.log]`;
      const command = { sessionUpdate: "tool_call", toolCallId: "fx-long-1", title: "$ seq 1 400", kind: "execute", status: "pending", rawInput: { command: "seq 1 400" } };
      const done = { sessionUpdate: "tool_call_update", toolCallId: "fx-long-1", status: "completed", content: [{ type: "content", content: { type: "text", text: output } }] };
      const answer = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Printed 400 lines." }, messageId: "fx-long-msg" };
      const agent = { comment: "A long output naming the workspace (test/record/record-cut-host.test.ts).", prompts: [{ steps: [{ update: command }, { update: done }, { update: answer }] }] };
      await writeFile(path.join(cells, "long-output", "agents", "acp-omp-fixture.json"), `${JSON.stringify(agent, null, 2)}\n`);
    });
    afterAll(async () => {
      await rm(work, { recursive: true, force: true });
    });

    const recordUnder = async (tmpName: string) => {
      const tmp = path.join(work, tmpName);
      await mkdir(tmp);
      const out = path.join(work, `out-${tmpName.length}`);
      vi.stubEnv("TMPDIR", tmp);
      const recorded = await runCli(["record", "--provider", "acp-omp-fixture", "--cell", "long-output", "--cells", cells, "--out", out]).finally(() => vi.unstubAllEnvs());
      expect(recorded.code, recorded.out + recorded.err).toBe(0);
      return out;
    };

    test("gives byte-identical lane lines and the same oracle", async () => {
      const a = await recordUnder("a");
      const b = await recordUnder("a-much-longer-directory-name-xxxxxxxxxxxxxxxx");
      const dirA = path.join(a, "acp-omp-fixture", "long-output");
      const dirB = path.join(b, "acp-omp-fixture", "long-output");
      const lanes = (await readdir(dirA)).filter((f) => f.endsWith(".ndjson")).sort();
      expect(lanes).toEqual((await readdir(dirB)).filter((f) => f.endsWith(".ndjson")).sort());
      expect(await readFile(path.join(dirA, "provider→bridge.ndjson"), "utf8")).toMatch(/⟦redacted: \d+ chars trimmed⟧/);
      for (const lane of lanes) {
        expect(laneLines(await readFile(path.join(dirB, lane), "utf8")), lane).toEqual(laneLines(await readFile(path.join(dirA, lane), "utf8")));
      }
      const oracle = path.join("lanes", "acp-omp-fixture", "long-output.json");
      expect(await readFile(path.join(b, oracle), "utf8")).toBe(await readFile(path.join(a, oracle), "utf8"));
    });
  });
});
