import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckReport } from "../../harness/report/check-report.js";
import { repoRoot, runCli, sharedRecordings } from "./run-cli.js";

// `parity check`, the gate: each case runs in a throwaway project directory (cwd) holding a
// copy of this repository's echo recordings, so oracles and allowlists can be written freely.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "parity-check-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let projects = 0;
async function project(): Promise<string> {
  projects += 1;
  const dir = path.join(work, `p${projects}`);
  await cp(path.join(repoRoot, "recordings", "echo"), path.join(dir, "recordings", "echo"), { recursive: true });
  return dir;
}

const json = (out: string) => JSON.parse(out) as CheckReport;

describe("parity check (docs/design/00-product.md, CLI check; flows 2–3)", () => {
  it("outside CI a missing oracle is written as pending from a clean replay and fails; -u writes it in place; the next run passes against it", async () => {
    const cwd = await project();
    const pending = await runCli(["check", "--reporter", "json"], { cwd });
    expect(pending.code).toBe(1);
    expect(json(pending.out).cells.map((c) => [c.cell, c.status])).toEqual([
      ["resume", "fail"],
      ["stop-interrupt", "fail"],
      ["turn", "fail"],
      ["zero-work", "fail"],
    ]);
    expect(pending.err).toContain(
      `parity: stored 8 pending files (.pending) for 4 changed cells in lanes/echo (e.g. ${path.join("lanes", "echo", "resume.json.pending")}); review them with parity review, or accept them all with parity check -u\n`,
    );
    // Each pending oracle has its version sidecar pending beside it (harness/recording/oracle-version.ts).
    expect(await readFile(path.join(cwd, "lanes", "echo", "turn.version.pending"), "utf8")).toBe('{"cliVersion":"bridge-parity echo 0.1.0"}\n');
    expect(existsSync(path.join(cwd, "lanes", "echo", "turn.version"))).toBe(false);
    expect(existsSync(path.join(cwd, "lanes", "echo", "turn.json"))).toBe(false);
    const pendingText = await readFile(path.join(cwd, "lanes", "echo", "turn.json.pending"), "utf8");

    const first = await runCli(["check", "-u", "--reporter", "json"], { cwd });
    expect(first.code).toBe(0);
    const report = json(first.out);
    expect(report.cells.map((c) => [c.cell, c.status, c.divergences.length])).toEqual([
      ["resume", "pass", 0],
      ["stop-interrupt", "pass", 0],
      ["turn", "pass", 0],
      ["zero-work", "pass", 0],
    ]);
    expect(first.err).toContain(`wrote oracle ${path.join("lanes", "echo", "turn.json")}`);
    const oracle = JSON.parse(await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8")) as unknown[];
    expect(oracle.length).toBe(report.cells.find((c) => c.cell === "turn")!.events);
    expect(await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8")).toBe(pendingText);
    expect((await readdir(path.join(cwd, "lanes", "echo"))).filter((f) => f.endsWith(".pending"))).toEqual([]);
    // -u wrote each oracle's version sidecar with it, and the report says both versions.
    expect(await readFile(path.join(cwd, "lanes", "echo", "turn.version"), "utf8")).toBe('{"cliVersion":"bridge-parity echo 0.1.0"}\n');
    expect(report.cells.find((c) => c.cell === "turn")!.versions).toEqual({ recording: "bridge-parity echo 0.1.0", oracle: "bridge-parity echo 0.1.0", differ: false });
    expect(report.versions).toEqual([{ provider: "echo", recordings: ["bridge-parity echo 0.1.0"], oracles: ["bridge-parity echo 0.1.0"], oracleUnknown: 0, differ: [] }]);

    const second = await runCli(["check"], { cwd });
    expect(second.code).toBe(0);
    expect(second.err).toBe("");
    expect(second.out).toMatch(/4 passed, 0 failed, 0 skipped \(4 cells\)/);
  });

  // Last session a hand-run check with --lanes naming shared reference lanes wrote 7 .pending files
  // into them: a local check writes pending results only into the project it runs in.
  it("a local check with --lanes outside the working directory writes nothing there and says why in one line; -u still writes in place", async () => {
    const cwd = await project();
    const outside = path.join(work, `lanes-outside-${projects}`);
    await mkdir(outside);
    const r = await runCli(["check", "--cell", "turn", "--lanes", outside], { cwd });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL echo\/turn/);
    expect(await readdir(outside)).toEqual([]);
    expect(existsSync(path.join(cwd, "lanes"))).toBe(false);
    const notice = r.err.split("\n").filter((line) => line.startsWith("parity: nothing written"));
    expect(notice).toEqual([
      `parity: nothing written (no .pending results): --lanes ${outside} lies outside the working directory, and a check writes only the project's own oracles and recordings; run it from the project that owns them, or pass --update to write them in place`,
    ]);
    expect(r.err).not.toContain("parity: stored");

    const update = await runCli(["check", "--cell", "turn", "--lanes", outside, "-u"], { cwd });
    expect(update.code).toBe(0);
    expect(await readdir(outside)).toEqual(["echo"]);
    expect(await readdir(path.join(outside, "echo"))).toEqual(["turn.json", "turn.version"]);
  });

  it("a local check of recordings outside the working directory (with --lanes inside it) writes nothing and says so; the same lanes inside, with the project's own recordings, get their .pending", async () => {
    const owner = await project();
    const cwd = path.join(work, `reader-${projects}`);
    await mkdir(path.join(cwd, "lanes"), { recursive: true });
    const r = await runCli(["check", "--recordings", path.join(owner, "recordings"), "--cell", "turn", "--lanes", "lanes"], { cwd });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`parity: nothing written (no .pending results): --recordings ${path.join(owner, "recordings")} lies outside the working directory`);
    expect(await readdir(path.join(cwd, "lanes"))).toEqual([]);
    expect(await readdir(path.join(owner, "recordings", "echo", "turn"))).not.toContain("bridge→runtime.current.ndjson.pending");

    const own = await runCli(["check", "--cell", "turn", "--lanes", "lanes"], { cwd: owner });
    expect(own.code).toBe(1);
    expect(own.err).not.toContain("parity: nothing written");
    expect(own.err).toContain(`parity: stored 2 pending files (.pending) for 1 changed cell in lanes/echo (e.g. ${path.join("lanes", "echo", "turn.json.pending")})`);
  });

  it("in CI a missing oracle fails its cell and nothing is written", async () => {
    const cwd = await project();
    const r = await runCli(["check", "--cell", "turn"], { cwd, ci: true });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL echo\/turn/);
    expect(existsSync(path.join(cwd, "lanes"))).toBe(false);
  });

  it("an oracle that lost an event fails with a difference against the oracle only", async () => {
    const cwd = await project();
    expect((await runCli(["check", "--cell", "turn", "-u"], { cwd })).code).toBe(0);
    const file = path.join(cwd, "lanes", "echo", "turn.json");
    const oracle = JSON.parse(await readFile(file, "utf8")) as unknown[];
    oracle.splice(2, 1);
    await writeFile(file, JSON.stringify(oracle));
    const r = await runCli(["check", "--cell", "turn", "--reporter", "json"], { cwd, ci: true });
    expect(r.code).toBe(1);
    const cell = json(r.out).cells[0]!;
    expect(cell.status).toBe("fail");
    expect(cell.diffs.length).toBeGreaterThan(0);
    expect(new Set(cell.diffs.map((d) => d.against))).toEqual(new Set(["oracle"]));
  });

  it("--explain lists what each allowlist entry masked; an entry that masks nothing is stale and fails", async () => {
    const cwd = await project();
    await runCli(["check", "-u"], { cwd });
    await mkdir(path.join(cwd, "allowlists"));
    const entry = { provider: "echo", cell: "turn", layer: "events", path: "/*/delta", pr: "#12", reason: "streamed chunks may be split differently" };
    await writeFile(path.join(cwd, "allowlists", "echo.json"), JSON.stringify([entry]));
    const masked = await runCli(["check", "--cell", "turn", "--explain"], { cwd });
    // The deltas are equal on every side: the entry selects values but masks no difference, so it
    // is stale (issue 26) and fails the cell rather than hide a later change of those deltas.
    expect(masked.code).toBe(1);
    expect(masked.out).toMatch(
      /echo\/turn:\n {2}events \/\*\/delta \(#12\): live [1-9]\d*, oracle [1-9]\d*, recording [1-9]\d* — stale: masks no difference\n {4}streamed chunks may be split differently\n/,
    );

    const stale = { ...entry, cell: "zero-work" };
    const extra = path.join(cwd, "stale.json");
    await writeFile(extra, JSON.stringify([stale]));
    const r = await runCli(["check", "--cell", "zero-work", "--allowlist", extra, "--reporter", "json"], { cwd });
    expect(r.code).toBe(1);
    expect(json(r.out).cells[0]!.stale).toEqual([stale]);
  });

  it("--shard i/n splits the cells between jobs; a bad shard is a usage error", async () => {
    const cwd = await project();
    await runCli(["check", "-u"], { cwd });
    const cellsOf = async (shard: string) => json((await runCli(["check", "--shard", shard, "--reporter", "json", "--jobs", "1"], { cwd })).out).cells.map((c) => c.cell);
    const one = await cellsOf("1/2");
    const two = await cellsOf("2/2");
    expect([...one, ...two].sort()).toEqual(["resume", "stop-interrupt", "turn", "zero-work"]);
    expect(one.filter((c) => two.includes(c))).toEqual([]);
    const bad = await runCli(["check", "--shard", "3/2"], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.err).toBe("parity: --shard 3/2: expected i/n with 1 ≤ i ≤ n, e.g. 1/2\n");
  });

  it("--dump-dir writes each cell's normalized live, oracle and recording lanes", async () => {
    const cwd = await project();
    await runCli(["check", "--cell", "zero-work", "-u"], { cwd });
    const dump = path.join(cwd, "dump");
    expect((await runCli(["check", "--cell", "zero-work", "--dump-dir", dump], { cwd })).code).toBe(0);
    expect((await readdir(dump)).sort()).toEqual(["echo-zero-work.live.events.json", "echo-zero-work.oracle.events.json", "echo-zero-work.recording.events.json"]);
    const live = await readFile(path.join(dump, "echo-zero-work.live.events.json"), "utf8");
    expect(live).toBe(await readFile(path.join(dump, "echo-zero-work.oracle.events.json"), "utf8"));
  });

  it("the real acp-cursor resume replays with no divergence; having no oracle, it is held against its recorded lane", async () => {
    const r = await runCli(["check", "--recordings", sharedRecordings, "--provider", "acp-cursor", "--cell", "resume", "--reporter", "json"], { ci: true });
    const cell = json(r.out).cells[0]!;
    expect(cell.divergences).toEqual([]);
    expect(new Set(cell.diffs.map((d) => d.against))).toEqual(new Set(cell.diffs.length > 0 ? ["recording"] : []));
    expect(r.code).toBe(cell.status === "pass" ? 0 : 1);
  });

  it("process-scoped cells are skipped; an unknown reporter is a usage error", async () => {
    const skip = await runCli(["check", "--recordings", sharedRecordings, "--cell", "model-list", "--reporter", "json"]);
    expect(json(skip.out).cells).toMatchObject([{ cell: "model-list", status: "skip" }]);
    expect(skip.code).toBe(0);
    const bad = await runCli(["check", "--reporter", "xml"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown reporter "xml"/);
  });
});
