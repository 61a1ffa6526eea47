import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

// `parity record --custom-agents`: the agent's command is resolved before anything starts
// (README step 2b, `record --help`): a bare command on PATH, a relative command or cwd against
// the agents file's directory, args passed as written. The trial's inputs: the README's entry
// with a command not installed (exit 1 after a bridge error), and relative fixture-agent args
// (a 12-line Node stack from inside the temp workspace).

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const script = { prompts: [{ steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } } }, { end: "end_turn" }] }] };

function setup(entries: unknown[]) {
  const root = oneTurnCellRoot(dirs, "record-agent-launch-", "thr_custom_launch");
  // The agents file lives in its own project directory, with the package's dist/ beside it (as in a clone).
  const project = path.join(root, "project");
  mkdirSync(project);
  symlinkSync(path.join(repoRoot, "dist"), path.join(project, "dist"));
  const agents = path.join(project, "agents.json");
  writeFileSync(agents, JSON.stringify(entries));
  const out = path.join(root, "out");
  const args = ["record", "--provider", "acp-mine", "--cell", "one-turn", "--custom-agents", agents, "--cells", path.join(root, "cells"), "--out", out];
  return { root, project, agents, out, args };
}

describe("record --custom-agents: the agent's command is checked and resolved first", () => {
  it("a command not on PATH (README 2b's entry as written): exit 2, one line naming the file, the entry and the command, nothing written", async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "my-agent", args: ["--acp"] }]);
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.trimEnd().split("\n")).toEqual([`parity: ${p.agents}: entry "mine": command "my-agent" is not on PATH; install it, or give its path (absolute, or relative to the agents file)`]);
    expect(existsSync(p.out)).toBe(false);
    expect(readdirSync(path.join(p.root, "tmp"))).toEqual([]);
  });

  it("a relative command path that does not exist: exit 2 naming where it was looked for", async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "bin/my-agent" }]);
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    expect(result.err).toContain(`${p.agents}: entry "mine": command "bin/my-agent": no such file: ${path.join(p.project, "bin", "my-agent")}`);
  });

  it("relative fixture-agent args with no cwd: exit 2 with the advice, not the agent's stack trace", async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "node", args: ["dist/stack/acp/fixture-agent/main.js", "--script-json", JSON.stringify(script)] }]);
    const result = await runCli(p.args, { cwd: repoRoot });
    expect(result.code).toBe(2);
    expect(result.err.trimEnd().split("\n")).toEqual([
      `parity: ${p.agents}: entry "mine": args[0] "dist/stack/acp/fixture-agent/main.js" is a relative path; args are passed as written and the agent runs in the cell's temporary workspace, so write it absolute (${path.join(p.project, "dist", "stack", "acp", "fixture-agent", "main.js")}) or set "cwd"`,
    ]);
    expect(existsSync(p.out)).toBe(false);
  });

  it('the same args with cwd "." (relative to the agents file) record', async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "node", args: ["dist/stack/acp/fixture-agent/main.js", "--script-json", JSON.stringify(script)], cwd: "." }]);
    const result = await runCli(p.args, { cwd: repoRoot });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const recording = await readRecording(path.join(p.out, "acp-mine", "one-turn"));
    expect(recording.lanes["provider→bridge"].map((e) => e.line).join("\n")).toContain('"hello"');
  });

  it("a relative command resolves against the agents file's directory, not the working directory or the temp workspace", async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "./bin/agent.sh" }]);
    mkdirSync(path.join(p.project, "bin"));
    const wrapper = path.join(p.project, "bin", "agent.sh");
    const fixture = path.join(repoRoot, "dist", "stack", "acp", "fixture-agent", "main.js");
    writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(fixture)} --script-json '${JSON.stringify(script)}'\n`);
    chmodSync(wrapper, 0o755);
    const result = await runCli(p.args, { cwd: repoRoot });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const recording = await readRecording(path.join(p.out, "acp-mine", "one-turn"));
    expect(recording.manifest.note).toContain(wrapper);
    expect(recording.lanes["provider→bridge"].map((e) => e.line).join("\n")).toContain('"hello"');
  });

  it("a cwd that is not a directory: exit 2", async () => {
    const p = setup([{ id: "mine", displayName: "My agent", command: "node", cwd: "no-such-dir" }]);
    const result = await runCli(p.args, { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.err).toContain(`${p.agents}: entry "mine": cwd "no-such-dir" is not a directory: ${path.join(p.project, "no-such-dir")}`);
  });
});
