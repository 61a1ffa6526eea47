import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { oracleVersionText, readOracleVersion } from "../../harness/recording/oracle-version.js";
import type { CheckReport } from "../../harness/report/check-report.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { copyProviderProject } from "../helpers/provider-project.js";

// Issue 41 build point 4: every report names the CLI version of each cell's recording and of the
// version its oracle was accepted from (the oracle's sidecar, harness/recording/oracle-version.ts),
// and says so when they differ. Each writer of an oracle keeps its sidecar in step: record and
// import (test/record/import.test.ts), a missing oracle written by check and `check -u`
// (test/cli/check.test.ts), `lanes --out` (test/cli/lanes.test.ts); rerecord and review's accept here.

const ECHO = "bridge-parity echo 0.1.0";
const NEXT = "bridge-parity echo 0.2.0";

let work = "";
let n = 0;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-versions-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A copy of the echo project whose `turn` recording names `NEXT` in its manifest (as a re-record with a new version would). */
async function projectRecordedWith(version: string): Promise<string> {
  n += 1;
  const cwd = await copyProviderProject(repoRoot, "echo", path.join(work, `p${n}`));
  const manifestFile = path.join(cwd, "recordings", "echo", "turn", "manifest.json");
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { cliVersion: string };
  await writeFile(manifestFile, `${JSON.stringify({ ...manifest, cliVersion: version }, null, 2)}\n`);
  return cwd;
}

describe("the committed matrix", () => {
  it("every oracle has its version sidecar and every sidecar its oracle", () => {
    const lanes = path.join(repoRoot, "lanes");
    const problems: string[] = [];
    for (const provider of readdirSync(lanes, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const names = new Set(readdirSync(path.join(lanes, provider.name)));
      for (const name of names) {
        if (name.endsWith(".json") && !names.has(name.replace(/\.json$/, ".version"))) problems.push(`${provider.name}/${name}: no .version sidecar (node build/backfill-oracle-versions.mjs)`);
        if (name.endsWith(".version") && !names.has(name.replace(/\.version$/, ".json"))) problems.push(`${provider.name}/${name}: no oracle beside it`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("versions in the check reports", () => {
  it("a cell recorded with another version than its oracle passes and says so in text, JSON, JUnit and HTML", async () => {
    const cwd = await projectRecordedWith(NEXT);
    const json = await runCli(["check", "--reporter", "json"], { cwd, ci: true });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out) as CheckReport;
    expect(report.cells.find((c) => c.cell === "turn")!.versions).toEqual({ recording: NEXT, oracle: ECHO, differ: true });
    expect(report.cells.find((c) => c.cell === "resume")!.versions).toEqual({ recording: ECHO, oracle: ECHO, differ: false });
    expect(report.versions).toEqual([{ provider: "echo", recordings: [ECHO, NEXT], oracles: [ECHO], oracleUnknown: 0, differ: ["turn"] }]);

    const text = await runCli(["check"], { cwd, ci: true });
    expect(text.out.split("\n")[0]).toBe(`versions echo: recorded with ${ECHO}, ${NEXT}; oracles accepted from ${ECHO}; versions differ in 1 cell: turn`);
    expect(text.out).toMatch(new RegExp(`PASS echo/turn .*\\n  versions differ: recorded with ${NEXT}, oracle accepted from ${ECHO}\\n`));

    const junit = await runCli(["check", "--reporter", "junit"], { cwd, ci: true });
    expect(junit.out).toContain(`<property name="cliVersion.recordings" value="${ECHO}, ${NEXT}"/>`);
    expect(junit.out).toContain(`<property name="cliVersion.oracles" value="${ECHO}"/>`);
    expect(junit.out).toContain(`<property name="cliVersion.differ" value="turn"/>`);

    const html = await runCli(["check", "--reporter", "html"], { cwd, ci: true });
    expect(html.out).toContain(`<ul class="versions" id="versions"><li><b>echo</b>: recorded with ${ECHO}, ${NEXT}; oracles accepted from ${ECHO}; versions differ in 1 cell: turn</li></ul>`);
    expect(html.out).toContain(`<p class="versions">versions differ: recorded with ${NEXT}, oracle accepted from ${ECHO}</p>`);
  });

  it("an oracle without a sidecar is counted as of no known version, never guessed", async () => {
    const cwd = await projectRecordedWith(ECHO);
    await rm(path.join(cwd, "lanes", "echo", "turn.version"));
    const report = JSON.parse((await runCli(["check", "--reporter", "json"], { cwd, ci: true })).out) as CheckReport;
    expect(report.cells.find((c) => c.cell === "turn")!.versions).toEqual({ recording: ECHO, oracle: null, differ: false });
    expect(report.versions[0]).toMatchObject({ oracles: [ECHO], oracleUnknown: 1, differ: [] });
  });

  it("a malformed sidecar is one line naming it, exit 2", async () => {
    const cwd = await projectRecordedWith(ECHO);
    await writeFile(path.join(cwd, "lanes", "echo", "turn.version"), "0.1.0\n");
    const r = await runCli(["check", "--cell", "turn"], { cwd, ci: true });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${path.join("lanes", "echo", "turn.version")}:1: not one JSON line {"cliVersion": "…"}`);
  });
});

describe("writers keep the sidecar in step", () => {
  it("rerecord: the oracle is now accepted from this recording, so its sidecar names the recording's version", async () => {
    const cwd = await projectRecordedWith(NEXT);
    const oracle = await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8");
    const r = await runCli(["rerecord", "--provider", "echo", "--cell", "turn"], { cwd });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`${path.join("lanes", "echo", "turn.version")} (updated): the CLI version this oracle is accepted from\n`);
    expect(await readOracleVersion(path.join(cwd, "lanes", "echo", "turn.json"))).toBe(NEXT);
    // The oracle's events are byte-identical: only the sidecar changed.
    expect(await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8")).toBe(oracle);
    const report = JSON.parse((await runCli(["check", "--reporter", "json"], { cwd, ci: true })).out) as CheckReport;
    expect(report.versions[0]!.differ).toEqual([]);
  });

  it("review: accepting a changed cell renames its pending sidecar with its pending oracle; rejecting deletes both", async () => {
    for (const answer of ["a", "r"]) {
      const cwd = await projectRecordedWith(NEXT);
      const oracleFile = path.join(cwd, "lanes", "echo", "turn.json");
      const edited = JSON.parse(await readFile(oracleFile, "utf8")) as Array<Record<string, unknown>>;
      edited[4]!.delta = "edited ";
      await writeFile(oracleFile, `${JSON.stringify(edited, null, 2)}\n`);
      const check = await runCli(["check", "--cell", "turn"], { cwd });
      expect(check.code).toBe(1);
      expect(await readFile(`${oracleFile.replace(/\.json$/, ".version")}.pending`, "utf8")).toBe(oracleVersionText(NEXT));
      expect(await readOracleVersion(oracleFile)).toBe(ECHO);

      let out = "";
      const command = createReviewCommand({ input: Readable.from([`${answer}\n`]) });
      const code = await command.run({}, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
      expect(existsSync(`${oracleFile.replace(/\.json$/, ".version")}.pending`)).toBe(false);
      if (answer === "a") {
        expect(code, out).toBe(0);
        expect(out).toContain(`accepted: ${path.join("lanes", "echo", "turn.json")}, ${path.join("lanes", "echo", "turn.version")}\n`);
        expect(await readOracleVersion(oracleFile)).toBe(NEXT);
      } else {
        expect(code, out).toBe(1);
        expect(await readOracleVersion(oracleFile)).toBe(ECHO);
      }
    }
  });
});

describe("versions in parity diff", () => {
  it("two checkouts: each side's recording and oracle versions in the header, JSON and page, and a lane whose versions moved says so", async () => {
    const a = await projectRecordedWith(ECHO);
    const b = await projectRecordedWith(NEXT);
    const oracleFile = path.join(b, "lanes", "echo", "turn.json");
    const edited = JSON.parse(await readFile(oracleFile, "utf8")) as Array<Record<string, unknown>>;
    edited[4]!.delta = "edited ";
    await writeFile(oracleFile, `${JSON.stringify(edited, null, 2)}\n`);
    await writeFile(oracleFile.replace(/\.json$/, ".version"), oracleVersionText(NEXT));

    const text = await runCli(["diff", a, b]);
    expect(text.code).toBe(1);
    expect(text.out).toContain(`versions a (${a}) echo: recordings ${ECHO}; oracles accepted from ${ECHO}\n`);
    expect(text.out).toContain(`versions b (${b}) echo: recordings ${NEXT}; oracles accepted from ${NEXT}\n`);
    expect(text.out).toContain(`  versions: oracle accepted from ${ECHO} → ${NEXT}; recorded with ${ECHO} → ${NEXT}\n`);

    const doc = JSON.parse((await runCli(["diff", a, b, "--json"])).out) as {
      versions: { a: unknown[]; b: unknown[] };
      lanes: Array<{ key: string; versions: unknown }>;
    };
    expect(doc.versions.b).toEqual([{ provider: "echo", recordings: [ECHO, NEXT], oracles: [ECHO, NEXT], oracleUnknown: 0 }]);
    expect(doc.lanes.find((l) => l.key === "echo/turn")!.versions).toEqual({ a: { oracle: ECHO, recording: ECHO }, b: { oracle: NEXT, recording: NEXT } });

    const page = path.join(work, `diff-${n}.html`);
    expect((await runCli(["diff", a, b, "--html", page])).code).toBe(1);
    expect(await readFile(page, "utf8")).toContain(`<p class="versions">versions b (${b}) echo: recordings ${NEXT}; oracles accepted from ${NEXT}</p>`);
  });
});
