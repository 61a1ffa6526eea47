import { describe, expect, it } from "vitest";
import { createRedactor, secretValuesIn } from "../../harness/recording/redact.js";
import { sweepFileText } from "../../harness/recording/redact-verify.js";

// Redaction learns the secret values of the env maps in the lanes (an agent's launch spec env,
// a cell's envVars, ACP `[{name, value}]` env) and removes them wherever they appear.

const entry = (seq: number, dir: string, message: object) => JSON.stringify({ ts: 1, run: 1, seq, dir, line: JSON.stringify(message) });
const threadStart = entry(1, "runtime→bridge", {
  jsonrpc: "2.0",
  id: 2,
  method: "thread/start",
  params: {
    threadId: "t",
    options: { envVars: { CELL_SECRET: "Vb3nT8yQ1cHs6fJw" }, providerOptions: { acpLaunchSpec: { command: "a", args: [], env: { MYAGENT_API_KEY: "q7Zr9LmX2vPk4wNd", LANG: "C.UTF-8" } } } },
  },
});
const mcpEnv = entry(2, "bridge→provider", { jsonrpc: "2.0", id: 3, method: "session/new", params: { mcpServers: [{ name: "x", env: [{ name: "TOOL_TOKEN", value: "Zx81MqPw03LkTr5u" }] }] } });
const echo = entry(3, "provider→bridge", {
  jsonrpc: "2.0",
  method: "session/update",
  params: { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "key q7Zr9LmX2vPk4wNd, cell Vb3nT8yQ1cHs6fJw, tool Zx81MqPw03LkTr5u, lang C.UTF-8" } } },
});

describe("learned secret values", () => {
  it("reads the secret-named values of every env map, not the others", () => {
    expect(secretValuesIn([threadStart, mcpEnv, echo]).sort()).toEqual(["Vb3nT8yQ1cHs6fJw", "Zx81MqPw03LkTr5u", "q7Zr9LmX2vPk4wNd"]);
  });

  it("removes them from an agent's message in another lane, and the sweep finds them when a redactor did not learn them", () => {
    const learned = createRedactor({ home: "/home/alice", learnFrom: [threadStart, mcpEnv, echo] });
    const redacted = learned.redactLaneEntry(echo);
    expect(redacted).not.toMatch(/q7Zr9LmX2vPk4wNd|Vb3nT8yQ1cHs6fJw|Zx81MqPw03LkTr5u/);
    expect(redacted).toContain("lang C.UTF-8");
    expect(sweepFileText("provider→bridge.ndjson", redacted, learned)).toEqual([]);
    const unlearned = createRedactor({ home: "/home/alice" }).redactLaneEntry(echo);
    expect(sweepFileText("provider→bridge.ndjson", unlearned, learned).map((s) => s.rule)).toEqual(["secret value", "secret value", "secret value"]);
  });
});
