import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rerecordCommand, rerecordHintTargets } from "../../harness/report/suggest.js";
import { repoRoot, runCli } from "./run-cli.js";

// Second new-user trial: a cell recorded with `record --out <dir>` and checked with
// `check --recordings <dir> --lanes <dir>/lanes` printed a bare `parity rerecord --provider echo
// --cell zero-work`, which rewrote the project's own recordings/echo/zero-work and lanes/.

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
});

/** A digest of every file under `dir` (path + bytes), to prove nothing there changed. */
function treeDigest(dir: string): string {
  const hash = createHash("sha256");
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) walk(file);
      else
        hash
          .update(`${path.relative(dir, file)}\0`)
          .update(readFileSync(file))
          .update("\0");
    }
  };
  walk(dir);
  return hash.digest("hex");
}

/** Splits a printed hint into argv the way a POSIX shell would for the quoting `shellQuote` emits. */
function shellWords(line: string): string[] {
  const words = line.match(/'(?:[^']|'\\'')*'|\S+/g) ?? [];
  return words.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w));
}

describe("check's refresh hint for a recording outside the project", () => {
  it("names --recordings and --lanes; running it verbatim fixes the user's oracle and leaves the project alone", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-ux2-hint-"));
    work.push(dir);
    const out = path.join(dir, "rec");
    const lanes = path.join(out, "lanes");
    const projectRecordings = treeDigest(path.join(repoRoot, "recordings/echo"));
    const projectLanes = treeDigest(path.join(repoRoot, "lanes/echo"));

    const recorded = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--out", out]);
    expect(recorded.code, recorded.err).toBe(0);
    const oracleFile = path.join(lanes, "echo/zero-work.json");
    const oracle = await readFile(oracleFile, "utf8");
    expect(oracle).toContain('"status": "completed"');
    await writeFile(oracleFile, oracle.replace('"status": "completed"', '"status": "failed"'));

    const checkArgs = ["check", "--recordings", out, "--lanes", lanes, "--provider", "echo", "--cell", "zero-work"];
    const failed = await runCli(checkArgs);
    expect(failed.code, failed.err).toBe(1);
    // With --lanes the check compared the user's oracle: accepting it (check -u) with the run's
    // flags rewrites that oracle and nothing of the project.
    const hint = failed.out.split("\n").find((l) => l.includes("accept it:"));
    expect(hint).toBe(`    accept it:  parity check -u --provider echo --cell zero-work --recordings ${out} --lanes ${lanes}  (rerecords its oracle)`);

    const argv = shellWords(hint!.replace(/^\s*accept it: {2}parity /, "").replace(/ {2}\(rerecords its oracle\)$/, ""));
    const refreshed = await runCli(argv);
    expect(refreshed.code, refreshed.err + refreshed.out).toBe(0);
    expect(await readFile(oracleFile, "utf8")).toContain('"status": "completed"');

    const passed = await runCli(checkArgs);
    expect(passed.code, passed.out).toBe(0);
    expect(treeDigest(path.join(repoRoot, "recordings/echo"))).toBe(projectRecordings);
    expect(treeDigest(path.join(repoRoot, "lanes/echo"))).toBe(projectLanes);
    // Five runs of the gate, record and rerecord included: a budget for a loaded machine, no verdict.
  });

  it("without --lanes, an outside root's hint names <root>/lanes so the project's lanes/ is never written", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-ux2-hint-"));
    work.push(dir);
    const out = path.join(dir, "rec");
    expect((await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--out", out])).code).toBe(0);
    // Break the recording's own lane so the check (recording-only: no --lanes) fails.
    const lane = path.join(out, "echo/zero-work/bridge→runtime.ndjson");
    const text = await readFile(lane, "utf8");
    expect(text).toContain('\\"status\\":\\"completed\\"');
    await writeFile(lane, text.replace('\\"status\\":\\"completed\\"', '\\"status\\":\\"failed\\"'));
    const failed = await runCli(["check", "--recordings", out, "--provider", "echo", "--cell", "zero-work"]);
    expect(failed.code, failed.err).toBe(1);
    expect(failed.out).toContain(`refresh it: parity rerecord --provider echo --cell zero-work --recordings ${out} --lanes ${path.join(out, "lanes")}`);
    expect(failed.out).toMatch(/allow it: {3}parity allow --provider echo --cell zero-work --recordings \S+ --path /);
  });

  it("a project recording's hint stays bare; an in-project root other than recordings/ is named relative", () => {
    const projectDir = "/p/proj";
    expect(rerecordHintTargets({ recordingDir: "/p/proj/recordings/echo/turn", projectDir })).toEqual({});
    expect(rerecordHintTargets({ recordingDir: "/p/proj/fixtures/rec/echo/turn", projectDir })).toEqual({ recordings: "fixtures/rec" });
    expect(rerecordHintTargets({ recordingDir: "/p/shared/recordings/echo/turn", projectDir, explicitLanesDir: "/p/proj/lanes2" })).toEqual({
      recordings: "/p/shared/recordings",
      lanes: "lanes2",
    });
    expect(rerecordCommand("echo", "turn", { recordings: "/tmp/a b" })).toBe("parity rerecord --provider echo --cell turn --recordings '/tmp/a b'");
  });
});
