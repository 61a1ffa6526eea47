import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureHash } from "../../harness/record/fixture-hash.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// A recording carries the workspace fixture it was recorded in (and names it by hash in its
// manifest), so `parity check` of a cell kept outside the project replays in that workspace
// even once the cell's directory is gone. The agent reads the fixture through the client
// (fs/read_text_file).

const loopbackAgent = path.join(repoRoot, "test", "fixtures", "agents", "loopback-agent.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("self-contained recordings", () => {
  // That replaying without the carried fixture diverges is shown with a real agent whose edits
  // the bridge diffs against the workspace (test/record/real-agents.test.ts).
  it("carry their workspace fixture, named by hash, and check replays them after the cell is gone", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "parity-self-contained-"));
    dirs.push(root);
    const cellDir = path.join(root, "my-cells", "read-notes");
    mkdirSync(path.join(cellDir, "workspace"), { recursive: true });
    writeFileSync(path.join(cellDir, "workspace", "notes.txt"), "status: draft\n");
    writeFileSync(
      path.join(cellDir, "cell.json"),
      JSON.stringify({
        description: "The agent reads notes.txt through the client and answers.",
        threadId: "thr_read_notes",
        options: { permissionMode: "full" },
        steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "What does notes.txt say?" }],
        model: { responses: [{ toolCalls: [{ name: "read", arguments: { path: "{{cwd}}/notes.txt" } }] }, { text: "It says draft." }] },
      }),
    );
    const agents = path.join(root, "agents.json");
    writeFileSync(
      agents,
      JSON.stringify([{ id: "loop", displayName: "loopback-agent", command: process.execPath, args: [loopbackAgent], record: { modelApi: "openai-chat", env: { OPENAI_BASE_URL: "{{baseUrl}}" } } }]),
    );
    const out = path.join(root, "out");
    const recorded = await runCli(["record", "--provider", "acp-loop", "--cell", "read-notes", "--custom-agents", agents, "--cells", path.join(root, "my-cells"), "--out", out], { cwd: root });
    expect(recorded.err).toBe("");
    expect(recorded.code).toBe(0);

    const dir = path.join(out, "acp-loop", "read-notes");
    const recording = await readRecording(dir);
    expect(recording.manifest.workspace).toBe(await fixtureHash(path.join(cellDir, "workspace")));
    expect(readFileSync(path.join(dir, "workspace", "notes.txt"), "utf8")).toBe("status: draft\n");
    expect(recording.lanes["bridge→provider"].map((e) => e.line).join("\n")).toContain("status: draft");

    rmSync(path.join(root, "my-cells"), { recursive: true });
    const check = ["check", "--recordings", out, "--lanes", path.join(out, "lanes")];
    const passed = await runCli(check, { cwd: root });
    expect(passed.out).toMatch(/1 passed, 0 failed/);
    expect(passed.code).toBe(0);
  });
});
