/**
 * The one wall-clock bound (docs/design/00-product.md, Determinism: a timeout only bounds the impossible
 * and is reported as such): a replay that reaches its ceiling (`--timeout`, ms per cell) is an
 * infrastructure timeout — its own status and exit code (4), no parity verdict, no allowlist
 * or rerecord advice. A 1 ms ceiling is always reached: spawning the bridge alone takes longer.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { isAlive } from "./helpers.js";

const cell = ["--provider", "echo", "--cell", "turn", "--timeout", "1"];

describe("a replay that reaches its wall-clock ceiling", () => {
  it("check: status timeout in the JSON report, TIMEOUT in the text one, exit 4, no advice", async () => {
    const json = await runCli(["check", ...cell, "--reporter", "json"], { ci: true });
    expect(json.code).toBe(4);
    const report = JSON.parse(json.out) as { passed: number; failed: number; cells: Array<{ status: string; divergences: unknown[]; diffs: unknown[] }> };
    expect(report).toMatchObject({ passed: 0, failed: 0 });
    expect(report.cells[0]).toMatchObject({ status: "timeout", divergences: [], diffs: [] });

    const text = await runCli(["check", ...cell], { ci: true });
    expect(text.code).toBe(4);
    expect(text.out).toMatch(/^TIMEOUT echo\/turn /m);
    expect(text.out).toContain("infrastructure timeout: the replay was still running after 1 ms of wall clock");
    expect(text.out).toContain("1 timed out (infrastructure)");
    expect(text.out).not.toContain("parity allow");
    expect(text.out).not.toContain("parity rerecord");
  });

  it("replay: the same sentence on stderr, no divergence, exit 4, no process left", async () => {
    const r = await runCli(["replay", ...cell, "--json"]);
    expect(r.code).toBe(4);
    expect(r.err).toContain("infrastructure timeout");
    const result = JSON.parse(r.out) as { divergenceCount: number; infrastructureTimeout: { ceilingMs: number }; pids: number[] };
    expect(result.divergenceCount).toBe(0);
    expect(result.infrastructureTimeout.ceilingMs).toBe(1);
    expect(result.pids.filter(isAlive)).toEqual([]);
  });
});
