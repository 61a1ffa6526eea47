/**
 * `probeAcpAgent` rules of spec 30 §3.2 that agents-probe.test.ts does not pin: an agent→client
 * request during the probe is refused -32601 with the probe's sentence, the child is gone when
 * the probe resolves, and the default timeout.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROBE_TIMEOUT_MS, probeAcpAgent } from "../../stack/acp/agents/probe.js";

/**
 * A project-written agent: on `initialize` it first asks the client `fs/read_text_file`, writes
 * the client's reply and its own pid to `out`, then answers `initialize`.
 */
function askingAgent(out: string): string {
  return `
const fs = require("node:fs");
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
let init;
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") { init = m.id; send({ id: 7, method: "fs/read_text_file", params: { sessionId: "x", path: "/etc/hostname" } }); }
  else if (m.id === 7 && m.method === undefined) {
    fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ reply: m, pid: process.pid }));
    send({ id: init, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: {} } } });
  }
});
`;
}

describe("probeAcpAgent (spec 30 §3.2)", () => {
  it("answers an agent→client request -32601 'bb is probing…', reports the facts, and the child is gone when it resolves", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-probe-ask-"));
    const out = join(dir, "seen.json");
    const probe = await probeAcpAgent({ command: process.execPath, args: ["-e", askingAgent(out)], cwd: dir });
    expect(probe).toMatchObject({ reachable: true, fork: false });
    const seen = JSON.parse(readFileSync(out, "utf8")) as { reply: { error?: unknown }; pid: number };
    expect(seen.reply.error).toEqual({ code: -32601, message: "bb is probing this agent's capabilities" });
    expect(() => process.kill(seen.pid, 0)).toThrow(/ESRCH/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the default probe timeout is the 10 000 ms spec 30 §3.2 names (a constant check)", () => {
    expect(DEFAULT_PROBE_TIMEOUT_MS).toBe(10_000);
  });
});
