import { describe, expect, it } from "vitest";
import { CONFORMANCE_RULE_IDS } from "../../harness/conformance/index.js";
import { runCli } from "../helpers/run-cli.js";

// Issue 23: `parity conform --bridge pi`, the native pi bridge over the pi fixture agent (zero-work
// and hold prompts included), passes every rule. Needs a fresh dist/ (the bridge runs through the
// bootstrap).
describe("parity conform --bridge pi (the pi bridge over the pi fixture agent)", () => {
  it("passes all 14 rules, one line per rule, exit 0", async () => {
    const { code, out, err } = await runCli(["conform", "--bridge", "pi"]);
    expect(err).toBe("");
    expect(code, out).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines.slice(0, 14).map((l) => l.split(/\s+/)[1])).toEqual(CONFORMANCE_RULE_IDS);
    expect(lines.slice(0, 14).every((l) => l.startsWith("pass  "))).toBe(true);
    expect(lines[14]).toMatch(/conformant — 14 passed, 0 failed, 0 skipped$/);
  });
});
