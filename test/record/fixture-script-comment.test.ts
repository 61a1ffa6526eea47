import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { parseFixtureScript, readFixtureScript } from "../../stack/acp/fixture-agent/script.js";
import { repoRoot } from "../helpers/run-cli.js";

// README step 2c points at cells/*/agents/ as examples of fixture scripts; those files carry a
// top-level `comment`, which the fixture agent's strict schema used to refuse ("(root):
// Unrecognized key: \"comment\""). Needs a fresh dist/ for the spawned agent.

const cellAgentScripts = readdirSync(path.join(repoRoot, "cells"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    const dir = path.join(repoRoot, "cells", d.name, "agents");
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => path.join(dir, f));
    } catch {
      return [];
    }
  });

describe("fixture script `comment`", () => {
  it("every cells/*/agents/*.json file parses as a whole fixture script, comment included", () => {
    expect(cellAgentScripts.length).toBeGreaterThan(5);
    for (const file of cellAgentScripts) {
      const script = readFixtureScript(file);
      expect(script.prompts.length, file).toBeGreaterThan(0);
    }
  });

  it("accepts an optional string comment and keeps the schema strict otherwise", () => {
    expect(parseFixtureScript({ comment: "what this models", prompts: [] }).comment).toBe("what this models");
    expect(() => parseFixtureScript({ comment: 3 })).toThrow(/comment: /);
    expect(() => parseFixtureScript({ comments: "typo" })).toThrow(/\(root\): Unrecognized key: "comments"/);
  });

  it("`node dist/stack/acp/fixture-agent/main.js --script cells/approval-allow/agents/acp-cursor.json` speaks ACP", async () => {
    const child = spawn(process.execPath, ["dist/stack/acp/fixture-agent/main.js", "--script", "cells/approval-allow/agents/acp-cursor.json"], {
      cwd: repoRoot,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout });
    const first = new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`fixture agent exited ${code}: ${stderr}`)));
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
    const answer = JSON.parse(await first) as { id: number; result?: { protocolVersion: number } };
    child.stdin.end();
    expect(answer.id).toBe(1);
    expect(answer.result?.protocolVersion).toBe(1);
    expect(stderr).toBe("");
  });
});
