import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

// Issue 26: conformance never passes vacuously. A bridge that answers nothing (not even
// initialize) used to score "1 passed": events/schema-valid passed over zero events.

const scratch = mkdtempSync(path.join(os.tmpdir(), "parity-conform-silent-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("parity conform against a bridge that never answers", () => {
  it("fails (exit 1) with 0 passed: nothing arrived, so no rule is judged passed", async () => {
    const file = path.join(scratch, "silent.mjs");
    writeFileSync(file, "export const experimental_providerBridge = { handleLine() {} };\n");
    // Every wait ends at the --timeout: nothing is answered, so the wait itself is the cause.
    const { code, out } = await runCli(["conform", "--bridge", file, "--timeout", "300"]);
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL {2}handshake\/initialize .*initialize got no answer within 300 ms$/m);
    expect(out).toMatch(/^skip {2}events\/schema-valid .*no thread\/delta arrived: nothing to validate$/m);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(/: not conformant — 0 passed, \d+ failed, \d+ skipped$/);
  });
});
