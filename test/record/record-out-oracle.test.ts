import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultLanesRoot } from "../../harness/cli/record.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// Where `parity record` puts a recording's oracle (one rule, the same as `rerecord --out`): the
// project's recordings/ keep theirs in lanes/; any other --out keeps its oracle in <out>/lanes/.
// The trial ran `record … --out /tmp/x/rec` and found the oracle in /tmp/x/lanes instead.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "record-out-oracle-"));
  dirs.push(dir);
  return dir;
}
const cells = path.join(repoRoot, "cells");

describe("record --out: the oracle goes to <out>/lanes", () => {
  it("defaultLanesRoot: lanes/ for the project's recordings/, <out>/lanes for any other --out", () => {
    expect(defaultLanesRoot("/p/recordings", "/p")).toBe("/p/lanes");
    expect(defaultLanesRoot("/tmp/x/rec", "/p")).toBe("/tmp/x/rec/lanes");
    expect(defaultLanesRoot("/p/other", "/p")).toBe("/p/other/lanes");
  });

  it("record --out /tmp/x/rec from the repository writes /tmp/x/rec/lanes/<provider>/<cell>.json and prints the check command", async () => {
    const x = path.join(scratch(), "x");
    const out = path.join(x, "rec");
    const result = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--cells", cells, "--out", out]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(out, "echo", "zero-work", "manifest.json"))).toBe(true);
    const oracle = path.join(out, "lanes", "echo", "zero-work.json");
    expect(JSON.parse(readFileSync(oracle, "utf8"))).toEqual(expect.arrayContaining([expect.objectContaining({ type: "turn/completed" })]));
    expect(existsSync(path.join(x, "lanes"))).toBe(false);
    expect(result.out).toContain(`parity check --recordings ${out} --lanes ${path.join(out, "lanes")} --provider echo --cell zero-work`);
  });

  it("without --out, the project's recordings/ and lanes/ (relative to the working directory)", async () => {
    const root = scratch();
    const result = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--cells", cells], { cwd: root });
    expect(result.code, result.err).toBe(0);
    expect(existsSync(path.join(root, "recordings", "echo", "zero-work", "manifest.json"))).toBe(true);
    expect(existsSync(path.join(root, "lanes", "echo", "zero-work.json"))).toBe(true);
    expect(existsSync(path.join(root, "recordings", "lanes"))).toBe(false);
    expect(result.out).not.toContain("check it:");
  });

  it("check and list with --recordings <out> --lanes <out>/lanes use that oracle (run from a directory holding --out)", async () => {
    const root = scratch();
    const recorded = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--cells", cells, "--out", "x/rec"], { cwd: root });
    expect(recorded.code, recorded.err).toBe(0);
    const flags = ["--recordings", "x/rec", "--lanes", "x/rec/lanes", "--provider", "echo", "--cell", "zero-work"];

    const listed = await runCli(["list", ...flags, "--json"], { cwd: root });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.out) as Array<{ oracle: string | null }>)[0]?.oracle).toBe(path.join(root, "x", "rec", "lanes", "echo", "zero-work.json"));

    expect((await runCli(["check", ...flags, "--jobs", "1"], { cwd: root })).code).toBe(0);
    // A changed oracle fails the gate: the comparison really reads it.
    const oracleFile = path.join(root, "x", "rec", "lanes", "echo", "zero-work.json");
    const events = JSON.parse(readFileSync(oracleFile, "utf8")) as unknown[];
    writeFileSync(oracleFile, `${JSON.stringify(events.slice(0, -1))}\n`);
    const failed = await runCli(["check", ...flags, "--jobs", "1"], { cwd: root });
    expect(failed.code, failed.out).toBe(1);
  });

  it("from the repository, check and list with an explicit --lanes compare a recording outside it with that oracle", async () => {
    const out = path.join(scratch(), "rec");
    const recorded = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--cells", cells, "--out", out]);
    expect(recorded.code, recorded.err).toBe(0);
    const lanes = path.join(out, "lanes");
    const flags = ["--recordings", out, "--lanes", lanes, "--provider", "echo", "--cell", "zero-work"];
    const listed = await runCli(["list", ...flags, "--json"]);
    expect((JSON.parse(listed.out) as Array<{ oracle: string | null }>)[0]?.oracle).toBe(path.join(lanes, "echo", "zero-work.json"));
    expect((await runCli(["check", ...flags, "--jobs", "1"])).code).toBe(0);
    // The trial replaced the oracle with [] and check still passed: it must fail now.
    writeFileSync(path.join(lanes, "echo", "zero-work.json"), "[]\n");
    const failed = await runCli(["check", ...flags, "--jobs", "1"]);
    expect(failed.code, failed.out).toBe(1);
    // Without --lanes a recording outside the working directory keeps being compared with itself only.
    expect((await runCli(["check", "--recordings", out, "--provider", "echo", "--cell", "zero-work", "--jobs", "1"])).code).toBe(0);
  });
});
