/**
 * Alternate paths of a cell (issue 41, "When the agent itself varies"; harness/recording/alternates.ts).
 * Every test builds a temp project from committed recordings, cells and oracles (nothing of
 * ../shared). Where a test needs "another path of the agent" it takes a real lane of another
 * cell of the same provider as the path the cell's oracle holds (echo's `turn` lane standing in
 * for `resume`'s path 1), so the real `resume` lane is the other path: the recordings, bridges and
 * lanes are real, only which lane is called which path is the test's.
 */
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { listRecordings } from "../../harness/recording/locations.js";
import { selectRecordings } from "../../harness/recording/select.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-alternates-"));
  temps.push(dir);
  return dir;
}

/** A temp project holding `provider/cell` as the repository does: cell (with its facts), recording, oracle and sidecar, truth entries. */
async function project(provider: string, cell: string): Promise<string> {
  const dir = await tempDir();
  await cp(path.join(repoRoot, "cells", cell), path.join(dir, "cells", cell), { recursive: true });
  await cp(path.join(repoRoot, "recordings", provider, cell), path.join(dir, "recordings", provider, cell), { recursive: true });
  await mkdir(path.join(dir, "lanes", provider), { recursive: true });
  for (const ext of [".json", ".version"]) await cp(path.join(repoRoot, "lanes", provider, `${cell}${ext}`), path.join(dir, "lanes", provider, `${cell}${ext}`));
  const entries = path.join(repoRoot, "allowlists", "truth", `${provider}.json`);
  if (existsSync(entries)) await cp(entries, path.join(dir, "allowlists", "truth", `${provider}.json`));
  return dir;
}

/** Copies a committed recording into `<dir>/recordings/<provider>/<cell>/alternates/<k>` (or `.<k>.pending`), its manifest given `alternateOf`. */
async function addAlternate(dir: string, provider: string, cell: string, k: number, from: string, pending = false): Promise<string> {
  const target = path.join(dir, "recordings", provider, cell, "alternates", pending ? `.${k}.pending` : String(k));
  await cp(path.join(repoRoot, "recordings", provider, from), target, { recursive: true });
  const file = path.join(target, "manifest.json");
  const manifest = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  const alternateOf = {
    cell,
    path: k,
    why: "test",
    evidence: {
      runs: 3,
      paths: [
        { path: 1, runs: [1] },
        { path: k, runs: [2, 3] },
      ],
    },
  };
  await writeFile(file, `${JSON.stringify({ ...manifest, cell, alternateOf }, null, 2)}\n`);
  return target;
}

interface JsonCell {
  cell: string;
  status: string;
  alternate?: { path: number; of: string; oracle: string };
  truth?: { table: Array<{ fact: string; verdict: string; cause?: string }> };
}

/** A fresh re-record of echo/resume (a copy of the committed recording) and an oracles root whose path 1 is the turn lane. */
async function freshAgainstOtherPath(alternateLane: string | undefined): Promise<{ fresh: string; lanes: string }> {
  const dir = await tempDir();
  const fresh = path.join(dir, "fresh");
  const lanes = path.join(dir, "oracles");
  await cp(path.join(repoRoot, "recordings", "echo", "resume"), path.join(fresh, "echo", "resume"), { recursive: true });
  await mkdir(path.join(lanes, "echo", "resume", "alternates"), { recursive: true });
  await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(lanes, "echo", "resume.json"));
  if (alternateLane !== undefined) await cp(path.join(repoRoot, "lanes", "echo", `${alternateLane}.json`), path.join(lanes, "echo", "resume", "alternates", "2.json"));
  return { fresh, lanes };
}

describe("a fresh re-record checked against the committed oracles (oracle from another run)", () => {
  it("a lane that misses the cell's oracle but matches an accepted alternate passes, naming it in text, JSON, JUnit and HTML", async () => {
    const { fresh, lanes } = await freshAgainstOtherPath("resume");
    const json = await runCli(["check", "--recordings", fresh, "--lanes", lanes, "--reporter", "json"]);
    expect(json.code, json.out + json.err).toBe(0);
    const cell = (JSON.parse(json.out) as { cells: JsonCell[] }).cells[0]!;
    expect([cell.cell, cell.status, cell.alternate]).toEqual(["resume", "pass", { path: 2, of: "resume", oracle: path.join(lanes, "echo", "resume", "alternates", "2.json") }]);
    const text = await runCli(["check", "--recordings", fresh, "--lanes", lanes]);
    expect(text.out).toContain(`PASS echo/resume`);
    expect(text.out).toContain(`  agent took alternate path 2 of cell resume (${path.join(lanes, "echo", "resume", "alternates", "2.json")})\n`);
    const junit = await runCli(["check", "--recordings", fresh, "--lanes", lanes, "--reporter", "junit"]);
    expect(junit.out).toContain('<property name="alternate.path" value="2"/>');
    expect(junit.out).toContain("<system-out>agent took alternate path 2 of cell resume (");
    const html = await runCli(["check", "--recordings", fresh, "--lanes", lanes, "--reporter", "html"]);
    expect(html.out).toContain('<p class="alternate">agent took alternate path 2 of cell resume (');
  });

  it("a lane that matches neither the cell's oracle nor any alternate fails as before, naming the closest alternate", async () => {
    const { fresh, lanes } = await freshAgainstOtherPath("zero-work");
    const run = await runCli(["check", "--recordings", fresh, "--lanes", lanes]);
    expect(run.code).toBe(1);
    expect(run.out).toContain("FAIL echo/resume");
    expect(run.out).toMatch(/the lane matches none of the cell's 1 accepted alternate path either \(closest: alternate path 2, .*alternates\/2\.json, \d+ differences\)/);
    expect(run.out).not.toContain("agent took alternate path");
  });

  it("without alternates the cell fails with no word of them", async () => {
    const { fresh, lanes } = await freshAgainstOtherPath(undefined);
    const run = await runCli(["check", "--recordings", fresh, "--lanes", lanes]);
    expect(run.code).toBe(1);
    expect(run.out).not.toContain("alternate path");
  });

  it("the committed recordings (oracle from the same run): an alternate oracle that matches plays no role for the cell", async () => {
    const dir = await project("echo", "resume");
    await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(dir, "lanes", "echo", "resume.json"));
    await addAlternate(dir, "echo", "resume", 2, "resume");
    await mkdir(path.join(dir, "lanes", "echo", "resume", "alternates"), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "resume.json"), path.join(dir, "lanes", "echo", "resume", "alternates", "2.json"));
    const run = await runCli(["check", "--reporter", "json"], { cwd: dir, ci: true });
    const cells = (JSON.parse(run.out) as { cells: JsonCell[] }).cells;
    expect(cells.map((c) => [c.cell, c.status, c.alternate])).toEqual([
      ["resume", "fail", undefined],
      ["resume/alternates/2", "pass", undefined],
    ]);
  });
});

describe("an accepted alternate is gated like a cell", () => {
  it("its recording replays through today's bridge against its own oracle, listed by list and lanes; one whose agent did not complete the resumed turn is untrue", async () => {
    const dir = await project("acp-claude-zed", "resume");
    const alt = await addAlternate(dir, "acp-claude-zed", "resume", 2, "resume");
    // The agent's answer to the second prompt (seq 51, `end_turn`) doctored to `refusal`: the turn the
    // cell's facts say completed did not, as when an agent fails to restore its session.
    const file = path.join(alt, "provider→bridge.ndjson");
    const lines = (await readFile(file, "utf8")).split("\n").map((text) => {
      if (text === "") return text;
      const entry = JSON.parse(text) as { seq: number; line: string };
      if (entry.seq !== 51) return text;
      const message = JSON.parse(entry.line) as { result: { stopReason: string } };
      expect(message.result.stopReason).toBe("end_turn");
      message.result.stopReason = "refusal";
      return JSON.stringify({ ...entry, line: JSON.stringify(message) });
    });
    await writeFile(file, lines.join("\n"));
    // Its oracle, refreshed as any cell's: rerecord names the alternate.
    const rerecord = await runCli(["rerecord", "--provider", "acp-claude-zed", "--cell", "resume/alternates/2"], { cwd: dir });
    expect(rerecord.code, rerecord.out + rerecord.err).toBe(0);
    expect(existsSync(path.join(dir, "lanes", "acp-claude-zed", "resume", "alternates", "2.json"))).toBe(true);

    const run = await runCli(["check", "--reporter", "json"], { cwd: dir, ci: true });
    const cells = (JSON.parse(run.out) as { cells: JsonCell[] }).cells;
    expect(cells.map((c) => [c.cell, c.status])).toEqual([
      ["resume", "pass"],
      ["resume/alternates/2", "untrue"],
    ]);
    expect(cells[1]!.truth?.table.map((j) => [j.fact, j.verdict])).toEqual([
      ["turn#1.end", "true"],
      ["turn#2.end", "changed"],
    ]);
    expect(run.code).toBe(1);

    const list = await runCli(["list"], { cwd: dir });
    expect(list.out).toMatch(/acp-claude-zed\s+resume\/alternates\/2\s+thread/);
    const lanes = await runCli(["lanes", "--provider", "acp-claude-zed", "--cell", "resume"], { cwd: dir });
    expect(lanes.out).toMatch(/resume\/alternates\/2\s+thread/);
    // An alternate's oracle with no recording is an orphan, as a cell's is.
    await cp(path.join(dir, "lanes", "acp-claude-zed", "resume", "alternates", "2.json"), path.join(dir, "lanes", "acp-claude-zed", "resume", "alternates", "5.json"));
    expect((await runCli(["list"], { cwd: dir })).out).toContain("oracle without a recording: lanes/acp-claude-zed/resume/alternates/5.json\n");
  });

  it("listRecordings lists alternates only when asked, right after their cell; --cell <cell> selects the cell with them", async () => {
    const dir = await project("echo", "resume");
    await addAlternate(dir, "echo", "resume", 2, "turn");
    await addAlternate(dir, "echo", "resume", 3, "zero-work", true);
    const root = path.join(dir, "recordings");
    expect((await listRecordings([root])).map((l) => l.cell)).toEqual(["resume"]);
    const all = await listRecordings([root], { alternates: true });
    expect(all.map((l) => [l.cell, l.alternateOf, l.alternate])).toEqual([
      ["resume", undefined, undefined],
      ["resume/alternates/2", "resume", 2],
    ]);
    expect((await selectRecordings([root], { cell: "resume" }, { alternates: true })).map((l) => l.cell)).toEqual(["resume", "resume/alternates/2"]);
    expect((await selectRecordings([root], { cell: "resume/alternates/2" }, { alternates: true })).map((l) => l.cell)).toEqual(["resume/alternates/2"]);
  });
});

/** Runs `parity review` in `cwd` with `answers` on its input. */
async function reviewIn(cwd: string, answers: string[], flags: Record<string, unknown> = {}): Promise<{ code: number; out: string }> {
  const command = createReviewCommand({ input: Readable.from(answers.map((a) => `${a}\n`).join("")) });
  let out = "";
  const code = await command.run(flags, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
  return { code, out };
}

describe("parity review: new recordings the project does not have yet", () => {
  it("a pending alternate is shown with its evidence; accept renames it and its oracle in; the next check gates it", async () => {
    const dir = await project("echo", "resume");
    await addAlternate(dir, "echo", "resume", 2, "resume", true);
    const oracle = path.join(dir, "lanes", "echo", "resume", "alternates", "2.json");
    await mkdir(path.dirname(oracle), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "resume.json"), `${oracle}.pending`);

    const waiting = await runCli(["check", "-u"], { cwd: dir });
    expect(waiting.err).toContain("parity: 1 new recording waits for parity review (echo/resume/alternates/2;");
    expect(existsSync(oracle)).toBe(false);

    const review = await reviewIn(dir, ["a"]);
    expect(review.out).toContain("new alternate path 2 of cell resume (bridge-parity echo 0.1.0): test (3 runs; path 1: run 1; path 2: runs 2, 3)");
    expect(review.out).toContain("git add lanes/echo/resume/alternates/2.json recordings/echo/resume/alternates/2\n");
    expect(review.code).toBe(0);
    expect(existsSync(oracle) && existsSync(path.join(dir, "recordings", "echo", "resume", "alternates", "2", "manifest.json"))).toBe(true);
    const check = await runCli(["check"], { cwd: dir });
    expect(check.out).toContain("PASS echo/resume/alternates/2");
    expect(check.code).toBe(0);
  });

  it("a pending alternate that takes another path is shown as its difference from the cell's own oracle, said to come from parity record, with review as what to do", async () => {
    const dir = await project("echo", "resume");
    await addAlternate(dir, "echo", "resume", 2, "turn", true);
    const oracle = path.join(dir, "lanes", "echo", "resume", "alternates", "2.json.pending");
    await mkdir(path.dirname(oracle), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), oracle);
    const review = await reviewIn(dir, ["s"]);
    expect(review.out).toContain("1 cell has pending results from parity record (new recordings):");
    // The legend says what accepting a new recording does (it said "rerecord this cell").
    expect(review.out).toContain("1 changed cell to review, pending from parity record (new recordings). [a]ccept (add the new recording and its oracle to the gate)");
    expect(review.out).not.toContain("rerecord");
    expect(review.out).toMatch(/against oracle: \d+ differences?\n/);
    expect(review.out).toContain("accept or reject it: parity review --provider echo --cell resume  (accepting gates it as it is)");
    expect(review.out).not.toContain("check -u");
    expect(review.out).not.toContain("drift --accept");
    expect(review.code).toBe(1); // skipped: the new path still waits
  });

  it("accepting a cell's first oracle (as parity import leaves it: the recording in place, its oracle pending) names the recording in what to commit too", async () => {
    const dir = await project("echo", "resume");
    const oracle = path.join(dir, "lanes", "echo", "resume.json");
    await rename(oracle, `${oracle}.pending`);
    await rename(path.join(dir, "lanes", "echo", "resume.version"), path.join(dir, "lanes", "echo", "resume.version.pending"));
    const review = await reviewIn(dir, ["a"]);
    expect(review.out).toContain("git add lanes/echo/resume.json lanes/echo/resume.version recordings/echo/resume\n");
    expect(review.code).toBe(0);
  });

  it("reject deletes a pending alternate and its oracle and leaves the gate as it was (exit 0)", async () => {
    const dir = await project("echo", "resume");
    const alt = await addAlternate(dir, "echo", "resume", 2, "resume", true);
    const oracle = path.join(dir, "lanes", "echo", "resume", "alternates", "2.json.pending");
    await mkdir(path.dirname(oracle), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "resume.json"), oracle);
    const review = await reviewIn(dir, ["r"]);
    expect(review.out).toContain("rejected: the new recording and its pending oracle are deleted; the project is as it was");
    expect(review.code).toBe(0);
    expect([existsSync(alt), existsSync(oracle)]).toEqual([false, false]);
  });

  it("a pending new cell (a recording folder .<cell>.pending with no cell beside it) is shown and accepted, also when --cell names it alone", async () => {
    const dir = await project("echo", "resume");
    await cp(path.join(repoRoot, "recordings", "echo", "turn"), path.join(dir, "recordings", "echo", ".turn.pending"), { recursive: true });
    await cp(path.join(repoRoot, "cells", "turn"), path.join(dir, "cells", "turn"), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(dir, "lanes", "echo", "turn.json.pending"));
    const review = await reviewIn(dir, ["a"], { provider: "echo", cell: "turn" });
    expect(review.out).toContain("new recording of a cell the project does not have yet (bridge-parity echo 0.1.0)");
    expect(review.code).toBe(0);
    const check = await runCli(["check"], { cwd: dir });
    expect(check.out).toContain("PASS echo/turn");
    expect(check.code).toBe(0);
  });
});
