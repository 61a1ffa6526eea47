import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

// Second new-user trial: `rerecord --timeout abc` printed `--timeout NaN`, `diff --context abc`
// and `--context -3` were accepted silently, and `diff <turn.json> <zero-work.json>` labelled
// both sides turn.json.

/** Exit 2, nothing on stdout, exactly one stderr line matching `pattern`. */
function expectOneLine(r: { code: number; out: string; err: string }, pattern: RegExp): void {
  expect(r.code, r.err + r.out).toBe(2);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toHaveLength(2);
  expect(r.err).toMatch(pattern);
}

describe("flag values", () => {
  it("rerecord --timeout abc quotes what was typed, before anything runs", async () => {
    expectOneLine(await runCli(["rerecord", "--provider", "echo", "--cell", "zero-work", "--timeout", "abc"]), /^parity: --timeout abc: expected a positive whole number of ms\n$/);
    expectOneLine(await runCli(["rerecord", "--provider", "echo", "--timeout", "0"]), /^parity: --timeout 0: expected a positive whole number of ms\n$/);
  });

  it("diff --context abc and --context -3: exit 2, one line", async () => {
    const files = ["lanes/echo/turn.json", "lanes/echo/zero-work.json"];
    expectOneLine(await runCli(["diff", ...files, "--context", "abc"]), /^parity: --context abc: expected a whole number ≥ 0 of lines\n$/);
    expectOneLine(await runCli(["diff", ...files, "--context", "-3"]), /^parity: --context -3: expected a whole number ≥ 0 of lines\n$/);
    expectOneLine(await runCli(["diff", ...files, "--context=-3"]), /^parity: --context -3: /);
  });

  it("diff --context 0 is allowed and shows no context lines", async () => {
    const r = await runCli(["diff", "lanes/echo/turn.json", "lanes/echo/zero-work.json", "--context", "0"]);
    expect(r.code, r.err).toBe(1);
    expect(r.out).toMatch(/@@ -\d+,\d+ \+\d+,0 @@/);
  });
});

describe("diff of two lane files labels each side by its own file", () => {
  it("--- a/turn.json, +++ b/zero-work.json (text and --json)", async () => {
    const args = ["diff", "lanes/echo/turn.json", "lanes/echo/zero-work.json"];
    const text = await runCli(args);
    expect(text.code, text.err).toBe(1);
    expect(text.out).toContain("  --- a/turn.json\n  +++ b/zero-work.json\n");
    expect(text.out).not.toContain("+++ b/turn.json");
    const json = await runCli([...args, "--json"]);
    const patch = (JSON.parse(json.out) as { lanes: Array<{ patch: string }> }).lanes[0]!.patch;
    expect(patch).toMatch(/^--- a\/turn\.json$/m);
    expect(patch).toMatch(/^\+\+\+ b\/zero-work\.json$/m);
  });
});
