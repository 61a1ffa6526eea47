import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

// `parity record --custom-agents`: a user's own ACP agent (spec 30 §2.2) recorded through the
// ACP bridge. The agent here is the project's fixture agent, named by a customAgents entry.

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const root = oneTurnCellRoot(dirs, "record-custom-", "thr_custom_record");
  const script = {
    prompts: [{ steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } } }, { end: "end_turn" }] }],
  };
  const agents = path.join(root, "agents.json");
  writeFileSync(
    agents,
    JSON.stringify([
      {
        id: "mine",
        displayName: "My agent",
        command: process.execPath,
        args: [path.join(repoRoot, "dist", "stack", "acp", "fixture-agent", "main.js"), "--script-json", JSON.stringify(script)],
      },
    ]),
  );
  return { root, agents, out: path.join(root, "recordings"), lanes: path.join(root, "lanes"), cells: path.join(root, "cells") };
}

describe("parity record --custom-agents", () => {
  it("records a custom agent as acp-<slug> through the ACP bridge, with a manifest that names it", async () => {
    const p = setup();
    const args = ["record", "--provider", "acp-mine", "--cell", "one-turn", "--custom-agents", p.agents, "--cells", p.cells, "--out", p.out, "--lanes", p.lanes];
    const result = await runCli(args, { cwd: p.root });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);

    const recording = await readRecording(path.join(p.out, "acp-mine", "one-turn"));
    expect(recording.manifest.provider).toBe("acp-mine");
    expect(recording.manifest.note).toContain("custom ACP agent acp-mine");
    expect(recording.manifest.lines["bridge→provider"]).toBeGreaterThan(0);
    const agentLines = recording.lanes["provider→bridge"].map((e) => e.line).join("\n");
    expect(agentLines).toContain('"hello"');

    const oracle = JSON.parse(readFileSync(path.join(p.lanes, "acp-mine", "one-turn.json"), "utf8")) as { type: string; delta?: string }[];
    expect(oracle.map((e) => e.type)).toContain("turn/completed");
    expect(
      oracle
        .filter((e) => e.type === "item/agentMessage/delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("hello");
  });

  it("refuses a provider the file does not define, listing what parity record knows (exit 2)", async () => {
    const p = setup();
    const result = await runCli(["record", "--provider", "acp-other", "--cell", "one-turn", "--custom-agents", p.agents, "--cells", p.cells, "--out", p.out], { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.err).toContain('--provider "acp-other"');
  });

  it("names the file and the entry of a bad custom agents file (exit 2)", async () => {
    const p = setup();
    writeFileSync(p.agents, JSON.stringify([{ id: "Bad Id", displayName: "x", command: "x" }]));
    const result = await runCli(["record", "--provider", "acp-bad", "--cell", "one-turn", "--custom-agents", p.agents, "--cells", p.cells, "--out", p.out], { cwd: p.root });
    expect(result.code).toBe(2);
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toContain(`${p.agents}: ACP custom agent setting: entry 0`);
  });
});
