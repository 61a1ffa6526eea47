import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// `check --cells` / `replay --cells` name the cells root a replay seeds workspaces from when a
// recording carries no workspace of its own. The cell here lives outside the project; the
// agent reads notes.txt through the client (fs/read_text_file), so the bridge's answer on the
// bridge→provider lane holds the fixture's text and replaying in an empty workspace diverges.

const loopbackAgent = path.join(repoRoot, "test", "fixtures", "agents", "loopback-agent.mjs");
let root = "";
let out = "";
let cells = "";

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "parity-cells-flag-"));
  cells = path.join(root, "my-cells");
  const cellDir = path.join(cells, "read-notes");
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
  out = path.join(root, "out");
  const recorded = await runCli(["record", "--provider", "acp-loop", "--cell", "read-notes", "--custom-agents", agents, "--cells", cells, "--out", out], { cwd: root });
  expect(recorded.err).toBe("");
  expect(recorded.code).toBe(0);
  // A recording without a carried workspace (as recorded before recordings carried theirs).
  const dir = path.join(out, "acp-loop", "read-notes");
  rmSync(path.join(dir, "workspace"), { recursive: true });
  const manifestFile = path.join(dir, "manifest.json");
  const { workspace: _dropped, ...manifest } = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
});

afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

describe("--cells", () => {
  it("check seeds the workspace from the named cells root; without it the same recording diverges", async () => {
    const check = ["check", "--recordings", out, "--lanes", path.join(out, "lanes")];
    const withCells = await runCli([...check, "--cells", cells], { cwd: root });
    expect(withCells.out).toMatch(/1 passed, 0 failed/);
    expect(withCells.code).toBe(0);

    const without = await runCli(check, { cwd: root });
    expect(without.out).toMatch(/0 passed, 1 failed/);
    expect(without.code).toBe(1);
  });

  it("replay seeds the workspace from the named cells root", async () => {
    const dir = path.join(out, "acp-loop", "read-notes");
    const withCells = await runCli(["replay", dir, "--cells", "my-cells"], { cwd: root });
    expect(withCells.err).toBe("");
    expect(withCells.code).toBe(0);

    const without = await runCli(["replay", dir], { cwd: root });
    expect(without.code).toBe(1);
  });

  it("a missing cells root is one line naming the flag and value, exit 2, for check and replay", async () => {
    const missing = path.join(root, "no-such-cells");
    const check = await runCli(["check", "--recordings", out, "--lanes", path.join(out, "lanes"), "--cells", "no-such-cells"], { cwd: root });
    expect(check.code).toBe(2);
    expect(check.out).toBe("");
    expect(check.err.trim().split("\n")).toEqual([expect.stringContaining(`--cells no-such-cells: directory not found (${missing})`)]);

    const replay = await runCli(["replay", path.join(out, "acp-loop", "read-notes"), "--cells", "no-such-cells"], { cwd: root });
    expect(replay.code).toBe(2);
    expect(replay.err.trim().split("\n")).toEqual([expect.stringContaining(`--cells no-such-cells: directory not found (${missing})`)]);

    const notDir = await runCli(["replay", path.join(out, "acp-loop", "read-notes"), "--cells", "agents.json"], { cwd: root });
    expect(notDir.code).toBe(2);
    expect(notDir.err).toContain(`--cells agents.json: not a directory (${path.join(root, "agents.json")})`);
  });
});
