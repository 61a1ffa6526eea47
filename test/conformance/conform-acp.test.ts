import { describe, expect, it } from "vitest";
import { CONFORMANCE_RULE_IDS } from "../../harness/conformance/index.js";
import { fixtureConformanceScript } from "../../stack/acp/fixture-agent/conformance.js";
import { runCli } from "../helpers/run-cli.js";

// Issue 4: `parity conform --bridge acp`, with the fixture agent as the launch spec, passes
// every rule, including stop/interrupt-settles-before-answer against an agent that ignores
// session/cancel. Needs a fresh dist/ (the bridge runs through the bootstrap).
describe("parity conform --bridge acp (the ACP bridge over the fixture agent)", () => {
  it("runs against an agent that never answers session/cancel", () => {
    expect(fixtureConformanceScript().cancel).toBe("ignore");
  });

  it("passes all 14 rules, one line per rule, exit 0", async () => {
    const { code, out, err } = await runCli(["conform", "--bridge", "acp"]);
    expect(err).toBe("");
    expect(code, out).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines.slice(0, 14).map((l) => l.split(/\s+/)[1])).toEqual(CONFORMANCE_RULE_IDS);
    expect(lines.slice(0, 14).every((l) => l.startsWith("pass  "))).toBe(true);
    expect(lines[14]).toMatch(/conformant — 14 passed, 0 failed, 0 skipped$/);
  });
});
