import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spellToolCall } from "../../harness/families/agent-profile.js";
import { SHIPPED_AGENT_PROFILES } from "../../harness/families/acp/agent-profiles.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

const loopbackAgent = path.join(repoRoot, "test", "fixtures", "agents", "loopback-agent.mjs");

describe("spellToolCall", () => {
  it("spells a cell's call with the agent's names, keeping a whole-placeholder argument's JSON type", () => {
    const tools = { bash: { name: "run_shell_command", arguments: { command: "{{args.command}}", is_background: false, n: "{{args.n}}" } } };
    expect(spellToolCall({ name: "bash", arguments: { command: "wc -l x", n: 3 } }, tools)).toEqual({
      name: "run_shell_command",
      arguments: { command: "wc -l x", is_background: false, n: 3 },
    });
  });

  it("fills a freeform input (codex apply_patch) and leaves {{cwd}} for the endpoint", () => {
    const call = spellToolCall({ name: "edit", arguments: { filePath: "{{cwd}}/a", oldString: "x", newString: "y" } }, SHIPPED_AGENT_PROFILES["acp-codex"]!.tools);
    expect(call).toEqual({ name: "apply_patch", input: "*** Begin Patch\n*** Update File: {{cwd}}/a\n@@\n-x\n+y\n*** End Patch\n" });
  });

  it("leaves a call the profile does not spell unchanged, and names a missing argument", () => {
    expect(spellToolCall({ name: "task", arguments: { a: 1 } }, {})).toEqual({ name: "task", arguments: { a: 1 } });
    expect(() => spellToolCall({ name: "read", arguments: {} }, SHIPPED_AGENT_PROFILES["acp-qwen"]!.tools)).toThrow(/\{\{args\.filePath\}\}/);
  });

  it("every shipped real agent spells read, edit, write and bash, and opencode (whose names the cells use) spells none", () => {
    for (const [id, profile] of Object.entries(SHIPPED_AGENT_PROFILES)) {
      if (id === "acp-opencode") expect(profile.tools).toEqual({});
      else expect(Object.keys(profile.tools).sort(), id).toEqual(["bash", "edit", "read", "write"]);
    }
  });
});

// `parity record --custom-agents` with a `record` profile: a user's own agent recorded offline
// against the loopback model endpoint, no wrapper. The agent is test/fixtures/agents/loopback-agent.mjs.
const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(model: unknown, env: Record<string, string> = {}, record: Record<string, unknown> = {}) {
  const root = oneTurnCellRoot(dirs, "record-profile-", "thr_profile_record");
  const cellFile = path.join(root, "cells", "one-turn", "cell.json");
  writeFileSync(cellFile, JSON.stringify({ ...JSON.parse(readFileSync(cellFile, "utf8")), model }));
  const agents = path.join(root, "agents.json");
  writeFileSync(
    agents,
    JSON.stringify([
      {
        id: "loop",
        displayName: "loopback-agent",
        command: process.execPath,
        args: [loopbackAgent],
        record: {
          modelApi: "openai-chat",
          env: { OPENAI_BASE_URL: "{{baseUrl}}", OPENAI_API_KEY: "parity-fake-key-for-loopback-1234", ...env },
          tools: { note: { name: "note", arguments: { text: "{{args.text}}" } } },
          ...record,
        },
      },
    ]),
  );
  const out = path.join(root, "out");
  const args = ["record", "--provider", "acp-loop", "--cell", "one-turn", "--custom-agents", agents, "--cells", path.join(root, "cells"), "--out", out];
  return { root, out, args };
}

const NOTE_SCRIPT = { responses: [{ text: "Noting.", toolCalls: [{ name: "note", arguments: { text: "hello" } }] }, { text: "Noted." }] };

describe("parity record --custom-agents with a record profile", () => {
  it("records the agent against the loopback endpoint in a fresh HOME/TMPDIR, with its real version and model API, the fake key redacted", async () => {
    const p = setup(NOTE_SCRIPT, { LOOPBACK_AGENT_HOME_FILE: "1" });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const recording = await readRecording(path.join(p.out, "acp-loop", "one-turn"));
    expect(recording.manifest.cliVersion).toBe("loopback-agent 7.8.9");
    expect(recording.manifest.modelApi).toBe("openai-chat");
    const all = Object.values(recording.lanes)
      .flat()
      .map((e) => e.line)
      .join("\n");
    expect(all).toContain("Noted.");
    expect(all).not.toContain("parity-fake-key-for-loopback-1234");
    const oracle = readFileSync(path.join(p.out, "lanes", "acp-loop", "one-turn.json"), "utf8");
    expect(oracle).toContain("Noted.");
  });

  it("gives the agent HOME, XDG dirs and TMPDIR inside the record's temp dir", async () => {
    const envFile = path.join(oneTurnCellRoot(dirs, "record-profile-env-", "thr_x"), "env-seen.json");
    // The agent writes env.json into its cwd; point its cwd at a directory the test keeps.
    const p = setup(NOTE_SCRIPT, { LOOPBACK_AGENT_HOME_FILE: "1" });
    const agentsFile = path.join(p.root, "agents.json");
    const keep = path.dirname(envFile);
    const entries = JSON.parse(readFileSync(agentsFile, "utf8"));
    entries[0].cwd = keep;
    writeFileSync(agentsFile, JSON.stringify(entries));
    expect((await runCli(p.args, { cwd: p.root })).code).toBe(0);
    const seen = JSON.parse(readFileSync(path.join(keep, "env.json"), "utf8")) as Record<string, string>;
    const tempRoot = path.join(p.root, "tmp");
    for (const key of ["HOME", "TMPDIR", "XDG_CONFIG_HOME"]) expect(seen[key], key).toMatch(new RegExp(`^${tempRoot}/(?:[^/]+/)?rec-\\d{8}/`));
    expect(seen.HOME).not.toBe(process.env.HOME);
  });

  it("fails with exit 1 and one line, writing nothing, when the agent rejected a scripted tool call", async () => {
    const p = setup(NOTE_SCRIPT, { LOOPBACK_AGENT_REJECT: "1" });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(1);
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toContain("the agent rejected scripted tool call note");
    expect(result.err).toContain("No such tool available");
    expect(existsSync(p.out)).toBe(false);
  });

  it("fails with exit 1 when the model script was not fully consumed", async () => {
    const p = setup({ responses: [{ text: "Only this." }, { text: "never asked for" }] });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/1 scripted model response\(s\) were never requested/);
    expect(existsSync(p.out)).toBe(false);
  });

  it("fails with exit 1 when the agent asked for more than the script holds", async () => {
    const p = setup({ responses: [{ toolCalls: [{ name: "note", arguments: { text: "x" } }] }] });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/asked for more than the script holds/);
    expect(existsSync(p.out)).toBe(false);
  });

  it("an off-script request says what the agent asked; --keep-temp keeps the run's temp directory and prints its path (issue 24)", async () => {
    const p = setup({ responses: [{ toolCalls: [{ name: "note", arguments: { text: "x" } }] }] });
    const result = await runCli([...p.args, "--keep-temp"], { cwd: p.root });
    expect(result.code).toBe(1);
    // The gist: the agent sent the note's result back and offered its one tool.
    expect(result.err).toMatch(/asked for more than the script holds\): last user message ".+"; last tool result \(note\) ".*"; tools offered: note/);
    const kept = /^kept the run's temp directory \(--keep-temp\): (\/.+)$/m.exec(result.err)?.[1];
    expect(kept).toBeDefined();
    dirs.push(kept!);
    expect(existsSync(path.join(kept!, "home"))).toBe(true);
    expect(existsSync(path.join(kept!, "ws"))).toBe(true);
    expect(existsSync(p.out)).toBe(false);
  });

  it("the extra answers an agent needs for one cell live in its profile (record.cells), no copy of cells/ needed", async () => {
    // The cell's own script lacks the answer after the tool result; the profile's variant holds it.
    const p = setup({ responses: [{ toolCalls: [{ name: "note", arguments: { text: "x" } }] }] }, {}, { cells: { "one-turn": { model: NOTE_SCRIPT } } });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(p.out, "lanes", "acp-loop", "one-turn.json"), "utf8")).toContain("Noted.");
  });

  it("refuses an invalid record profile naming the file, the entry and the field (exit 2)", async () => {
    const p = setup(NOTE_SCRIPT, {}, { modelApi: "carrier-pigeon" });
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toMatch(/agents\.json.*entry 0 \("loop"\): field `record\.modelApi`/);
  });

  it("parity probe reads the same customAgents file, record profile and all", async () => {
    const p = setup(NOTE_SCRIPT);
    const result = await runCli(["probe", "--provider", "acp-loop", "--custom-agents", path.join(p.root, "agents.json"), "--json"], { cwd: p.root });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).reachable).toBe(true);
  });
});
