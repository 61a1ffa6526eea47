import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { detectNetworkIsolation, NETWORK_NETNS, NETWORK_WATCHED } from "../../harness/record/network.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

// `parity record` keeps a real agent on loopback: a fresh network namespace where the machine
// can make one, else its sockets are watched and a connection outside loopback fails the run.
// The agent is test/fixtures/agents/loopback-agent.mjs with a planted outbound connection to
// this machine's own non-loopback address (so nothing leaves the machine).

const loopbackAgent = path.join(repoRoot, "test", "fixtures", "agents", "loopback-agent.mjs");
const dirs: string[] = [];
const servers: net.Server[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** This machine's first non-loopback IPv4 address, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

/** A TCP server on every interface that counts the connections it accepts. */
async function listener(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "0.0.0.0", () => r()));
  return { port: (server.address() as net.AddressInfo).port, accepted: () => accepted };
}

function setup(env: Record<string, string>) {
  const root = oneTurnCellRoot(dirs, "record-network-", "thr_network_record");
  const cellFile = path.join(root, "cells", "one-turn", "cell.json");
  writeFileSync(cellFile, JSON.stringify({ ...JSON.parse(readFileSync(cellFile, "utf8")), model: { responses: [{ text: "Hello." }] } }));
  const agents = path.join(root, "agents.json");
  writeFileSync(
    agents,
    JSON.stringify([
      { id: "loop", displayName: "loopback-agent", command: process.execPath, args: [loopbackAgent], record: { modelApi: "openai-chat", env: { OPENAI_BASE_URL: "{{baseUrl}}", ...env } } },
    ]),
  );
  const out = path.join(root, "out");
  return { root, out, args: ["record", "--provider", "acp-loop", "--cell", "one-turn", "--custom-agents", agents, "--cells", path.join(root, "cells"), "--out", out] };
}

const netnsHere = detectNetworkIsolation("auto").kind === "netns";

describe("parity record keeps the agent on loopback", () => {
  it.skipIf(outsideAddress === undefined)("--network watch: a planted outbound connection fails the recording (exit 1, one line) and writes nothing", async () => {
    const server = await listener();
    const resultFile = path.join(mkdtempSync(path.join(os.tmpdir(), "parity-outbound-")), "result");
    dirs.push(path.dirname(resultFile));
    const p = setup({ LOOPBACK_AGENT_OUTBOUND: `${outsideAddress}:${server.port}`, LOOPBACK_AGENT_OUTBOUND_RESULT: resultFile });
    const result = await runCli([...p.args, "--network", "watch"], { cwd: p.root });
    expect(readFileSync(resultFile, "utf8")).toBe("connected");
    expect(result.code).toBe(1);
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toContain(`connected to ${outsideAddress}:${server.port} (tcp), outside loopback`);
    expect(existsSync(p.out)).toBe(false);
  });

  it("--network watch: a run that stays on loopback records, and its manifest says its sockets were watched", async () => {
    const p = setup({});
    const result = await runCli([...p.args, "--network", "watch"], { cwd: p.root });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect((await readRecording(path.join(p.out, "acp-loop", "one-turn"))).manifest.network).toBe(NETWORK_WATCHED);
  });

  it.skipIf(!netnsHere || outsideAddress === undefined)(
    "in a network namespace the planted connection cannot leave (ENETUNREACH), the endpoint is still reached, and the manifest says netns",
    async () => {
      const server = await listener();
      const resultFile = path.join(mkdtempSync(path.join(os.tmpdir(), "parity-outbound-")), "result");
      dirs.push(path.dirname(resultFile));
      const p = setup({ LOOPBACK_AGENT_OUTBOUND: `${outsideAddress}:${server.port}`, LOOPBACK_AGENT_OUTBOUND_RESULT: resultFile });
      const result = await runCli(p.args, { cwd: p.root });
      expect(result.err).toBe("");
      expect(result.code).toBe(0);
      expect(readFileSync(resultFile, "utf8")).toBe("ENETUNREACH");
      expect(server.accepted()).toBe(0);
      const recording = await readRecording(path.join(p.out, "acp-loop", "one-turn"));
      expect(recording.manifest.network).toBe(NETWORK_NETNS);
      expect(recording.lanes["provider→bridge"].map((e) => e.line).join("\n")).toContain("Hello.");
    },
  );
});
