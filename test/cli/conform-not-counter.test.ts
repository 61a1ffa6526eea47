import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBridgeConformance } from "../../harness/conformance/run.js";
import { echoConformanceSession } from "../../harness/conformance/session.js";
import { inProcessTransport } from "../../harness/conformance/transport.js";
import { packageDistPath } from "../../harness/runtime/spawn-bridge.js";
import { fixtureConformanceScript, fixtureLaunchSpec } from "../../stack/acp/fixture-agent/conformance.js";
import { runCli } from "../helpers/run-cli.js";
import { createBrokenBridge } from "../conformance/broken-bridge.js";

// New-user trial: `parity conform --bridge acp --launch-spec <the fixture agent>` failed
// provider-thread-id-not-counter with "mint it from entropy…", blaming the bridge, while the ACP
// bridge passes the agent's sessionId through (spec 30 §6.3). The fixture agent's default ids
// are `fixture-session-<n>`, counting from 1 per process. Needs a fresh dist/.
let dir = "";
let spec = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "parity-ux-counter-"));
  spec = path.join(dir, "fixture-agent.json");
  const { sessionIds: _uuid, ...script } = fixtureConformanceScript();
  await writeFile(spec, JSON.stringify(fixtureLaunchSpec(packageDistPath("stack", "acp", "fixture-agent", "main.js"), script)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RULE = "session/provider-thread-id-not-counter";
type Report = { results: Array<{ id: string; status: string; detail: string }> };

describe("the not-counter rule over an agent whose session ids count", () => {
  for (const bridge of ["acp", packageDistPath("stack", "acp", "bridge.js")]) {
    it(`--bridge ${bridge === "acp" ? "acp" : "<path of the ACP bridge>"}: fails, and the detail says the agent's session/new id came through`, async () => {
      const { code, out } = await runCli(["conform", "--bridge", bridge, "--launch-spec", spec, "--json"]);
      expect(code, out).toBe(1);
      const report = JSON.parse(out) as Report;
      const failed = report.results.filter((r) => r.status === "fail");
      expect(failed.map((r) => r.id)).toEqual([RULE]);
      expect(failed[0]!.detail).toContain('both handed out providerThreadId "fixture-session-1"');
      expect(failed[0]!.detail).toContain("the ACP bridge passes the agent's sessionId through");
      expect(failed[0]!.detail).toContain("the agent answered session/new with a counter-like id");
      expect(failed[0]!.detail).not.toContain("mint it from entropy");
    });
  }

  it("a bridge that mints its ids from a process counter is still told to mint from entropy (the rule is not weakened)", async () => {
    const report = await runBridgeConformance({
      transport: inProcessTransport(createBrokenBridge(new Set(["counterProviderThreadId"])), { providerId: "broken" }),
      session: echoConformanceSession(dir),
    });
    const failed = report.results.filter((r) => r.status === "fail");
    expect(failed.map((r) => r.id)).toEqual([RULE]);
    expect(failed[0]!.detail).toMatch(/both handed out providerThreadId "echo-0+1"; mint it from entropy, not a process counter$/);
    expect(failed[0]!.detail).not.toContain("ACP bridge");
  });
});
