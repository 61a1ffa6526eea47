import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

// `parity record` with an agent that echoes a secret it was given: a secret-named env value of
// the agent (its launch spec env), of the cell (options.envVars) and a `--redact` value are
// removed from every lane and the oracle, and the sweep verifies it.

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AGENT_SECRET = "q7Zr9LmX2vPk4wNd";
const CELL_SECRET = "Vb3nT8yQ1cHs6fJw";
const FLAGGED = "plain-value-47391";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

describe("parity record: secrets an agent echoes", () => {
  it("removes the agent's *_API_KEY value, the cell's secret env value and a --redact value from every lane and the oracle", async () => {
    const root = oneTurnCellRoot(dirs, "record-secret-", "thr_secret_record");
    const cellFile = path.join(root, "cells", "one-turn", "cell.json");
    const cell = JSON.parse(readFileSync(cellFile, "utf8"));
    cell.options.envVars = { CELL_TOKEN: CELL_SECRET };
    writeFileSync(cellFile, JSON.stringify(cell));
    const script = {
      prompts: [
        {
          steps: [{ echoEnv: ["MYAGENT_API_KEY", "CELL_TOKEN"] }, { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: ` and ${FLAGGED}` } } }, { end: "end_turn" }],
        },
      ],
    };
    const agents = path.join(root, "agents.json");
    writeFileSync(
      agents,
      JSON.stringify([
        {
          id: "leaky",
          displayName: "Leaky agent",
          command: process.execPath,
          args: [path.join(repoRoot, "dist", "stack", "acp", "fixture-agent", "main.js"), "--script-json", JSON.stringify(script)],
          env: { MYAGENT_API_KEY: AGENT_SECRET },
        },
      ]),
    );
    const out = path.join(root, "recordings");
    const lanes = path.join(root, "lanes");
    const args = ["record", "--provider", "acp-leaky", "--cell", "one-turn", "--custom-agents", agents, "--cells", path.join(root, "cells"), "--out", out, "--lanes", lanes, "--redact", FLAGGED];
    const result = await runCli(args, { cwd: root });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const written = [...filesUnder(out), ...filesUnder(lanes)];
    expect(written.some((file) => file.endsWith("provider→bridge.ndjson"))).toBe(true);
    for (const file of written) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toContain(AGENT_SECRET);
      expect(text, file).not.toContain(CELL_SECRET);
      expect(text, file).not.toContain(FLAGGED);
    }
    // The echo is still there, redacted: the agent's message names both variables.
    const agentLines = readFileSync(path.join(out, "acp-leaky", "one-turn", "provider→bridge.ndjson"), "utf8");
    expect(agentLines).toContain('\\"MYAGENT_API_KEY\\\\\\":\\\\\\"REDACTED');
  });
});
