import { describe, expect, it } from "vitest";
import { CONFORMANCE_RULE_IDS } from "../../harness/conformance/index.js";
import { runCli } from "../helpers/run-cli.js";

// Issue 21: `parity conform --bridge codex`, the native Codex bridge over the fixture app-server
// (stack/codex/fixture), passes every rule. Needs a fresh dist/ (the bridge runs through the bootstrap).
// Each new session starts a fixture app-server (a Node process): the 60 s timeout only detects a
// hung bridge on a loaded machine, it paces nothing.
describe("parity conform --bridge codex (the Codex bridge over the fixture app-server)", () => {
  it("passes all 14 rules, one line per rule, exit 0", async () => {
    const { code, out, err } = await runCli(["conform", "--bridge", "codex", "--timeout", "60000"]);
    expect(err).toBe("");
    expect(code, out).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines.slice(0, 14).map((l) => l.split(/\s+/)[1])).toEqual(CONFORMANCE_RULE_IDS);
    expect(lines.slice(0, 14).every((l) => l.startsWith("pass  "))).toBe(true);
    expect(lines[14]).toMatch(/conformant — 14 passed, 0 failed, 0 skipped$/);
  });
});
