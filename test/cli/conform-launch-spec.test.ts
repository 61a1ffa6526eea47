import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CONFORMANCE_RULE_IDS, type ConformanceReport } from "../../harness/conformance/index.js";
import { fixtureLaunchSpec } from "../../stack/acp/fixture-agent/conformance.js";
import { repoRoot, runCli } from "./run-cli.js";

// `parity conform --bridge acp --launch-spec <file>`: the file is validated with acpLaunchSpecSchema
// before anything starts (the trial's `{"command","args"}` file came back as exit 1 "conformance
// failures"), the two rules the fixture gives no prompt for are listed and counted as skipped, and
// the run names the agent it used. Needs a fresh dist/ (the bridge runs through the bootstrap).

const scratch = mkdtempSync(path.join(tmpdir(), "conform-launch-spec-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
};
const NOT_RUN = ["turn/settles-without-activity", "stop/interrupt-settles-before-answer"];

describe("conform --launch-spec: validated first", () => {
  it('the trial\'s {"command","args"} file: exit 2, one line `file: field: problem`, nothing run', async () => {
    write("opencode.json", JSON.stringify({ command: "opencode", args: ["acp"] }));
    const result = await runCli(["conform", "--bridge", "acp", "--launch-spec", "opencode.json"], { cwd: scratch });
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.trimEnd().split("\n")).toEqual([
      "parity: opencode.json: displayName: Invalid input: expected string, received undefined; env: Invalid input: expected record, received undefined (an ACP launch spec; the format is in parity conform --help)",
    ]);
  });

  it("an unknown key and a bad env name are refused by field", async () => {
    write("typo.json", JSON.stringify({ displayName: "x", command: "x", args: [], env: { "A=B": "1" }, comand: "y" }));
    const result = await runCli(["conform", "--bridge", "acp", "--launch-spec", "typo.json"], { cwd: scratch });
    expect(result.code).toBe(2);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    expect(result.err).toMatch(/^parity: typo\.json: env\.A=B: Invalid key in record; /);
    expect(result.err).toMatch(/\(root\): Unrecognized key: "comand"/);
  });

  it("a file that is not JSON: exit 2 naming it", async () => {
    write("broken.json", "{displayName:");
    const result = await runCli(["conform", "--bridge", "acp", "--launch-spec", "broken.json"], { cwd: scratch });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^parity: broken\.json: not valid JSON: /);
  });

  it("--help documents the format with an example", async () => {
    const result = await runCli(["conform", "--help"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain('{"displayName": "opencode", "command": "opencode", "args": ["acp"], "env": {}}');
    expect(result.out).toContain("Required: displayName");
  });
});

describe("conform --bridge acp: rules not run and the agent", () => {
  it("with a launch spec and no --session: the two prompt-less rules listed and counted as skipped, the agent named, exit 0", async () => {
    const spec = fixtureLaunchSpec(path.join(repoRoot, "dist", "stack", "acp", "fixture-agent", "main.js"));
    const file = write("fixture.json", JSON.stringify(spec));
    const { code, out, err } = await runCli(["conform", "--bridge", "acp", "--launch-spec", file], { cwd: scratch });
    expect(err).toBe("");
    expect(code, out).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(16);
    expect(lines.slice(0, 14).map((l) => l.split(/\s+/)[1])).toEqual(CONFORMANCE_RULE_IDS);
    for (const id of NOT_RUN) {
      expect(lines.find((l) => l.split(/\s+/)[1] === id)).toMatch(/^skip {2}.* — not run: the fixture has no (zeroWork|hold)PromptInput/);
    }
    expect(lines[14]).toMatch(/: conformant — 12 passed, 0 failed, 2 skipped$/);
    expect(lines[15]).toBe(`agent: Fixture ACP agent (${[spec.command, ...spec.args].join(" ")}) from --launch-spec`);
  });

  it("--json: notRun holds them (results do not), and the default agent is the fixture agent", async () => {
    const { code, out } = await runCli(["conform", "--bridge", "acp", "--json"]);
    expect(code, out).toBe(0);
    const report = JSON.parse(out) as ConformanceReport & { agent: string };
    expect(report.notRun).toEqual([]);
    expect(report.results.map((r) => r.id)).toEqual(CONFORMANCE_RULE_IDS);
    expect(report.agent).toMatch(/^the fixture ACP agent \(node dist\/stack\/acp\/fixture-agent\/main\.js, the default/);
  });
});
