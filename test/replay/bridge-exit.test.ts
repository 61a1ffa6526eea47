/**
 * Start-up is not parity (docs/design/00-product.md, Determinism): a bridge that exits is reported as
 * such — `bridge exited with code N`, where it got to and the tail of its stderr — and
 * `check` and `replay` say the same thing, exit 1, with no allowlist advice.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { repoRoot } from "./helpers.js";

const exitSeven = path.join(repoRoot, "test", "replay", "fixtures", "exit-seven-bridge.mjs");
const cell = ["--provider", "echo", "--cell", "turn", "--module", exitSeven];

describe("a bridge that exits with code 7 after writing 25 stderr lines", () => {
  it("check: FAIL naming the exit code and the last 20 stderr lines, no allowlist advice", async () => {
    const r = await runCli(["check", ...cell], { ci: true });
    expect(r.code).toBe(1);
    expect(r.out).toContain("bridge exited with code 7 before the first recorded line");
    expect(r.out).toContain("| exit-seven bridge: stderr line 25");
    expect(r.out).toContain("| exit-seven bridge: stderr line 6\n");
    expect(r.out).not.toContain("| exit-seven bridge: stderr line 5\n");
    expect(r.out).not.toContain("parity allow");
  });

  it("replay: the same sentence and tail on stderr, exit 1", async () => {
    const r = await runCli(["replay", ...cell]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("bridge exited with code 7 before the first recorded line");
    expect(r.err).toContain("| exit-seven bridge: stderr line 25");
    expect(r.err).not.toContain("| exit-seven bridge: stderr line 5\n");
  });
});
