import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { colorEnabled } from "../../harness/cli/color.js";
import type { CheckReport } from "../../harness/report/check-report.js";
import { oracleEventLines } from "../../harness/report/oracle-lines.js";
import { repoRoot, runCli } from "./run-cli.js";

// CI-grade output of `parity check`: annotations that attach to the PR's files, JUnit with a
// per-cell error for unreadable inputs, empty shards, --json, colour conventions, --dump-dir
// under CI. Each case runs in a throwaway project holding a copy of the echo recordings.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "parity-ci-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let projects = 0;
/** A project with the echo recordings and their oracles written by a first, clean check. */
async function project(): Promise<string> {
  projects += 1;
  const dir = path.join(work, `p${projects}`);
  await cp(path.join(repoRoot, "recordings", "echo"), path.join(dir, "recordings", "echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes", "echo"), path.join(dir, "lanes", "echo"), { recursive: true });
  return dir;
}

/** 1-based line of the `index`-th line that is exactly `  {` (an event's start in a pretty oracle). */
function nthEventLine(text: string, index: number): number {
  let seen = -1;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i += 1) if (lines[i] === "  {" && ++seen === index) return i + 1;
  throw new Error(`no event ${index}`);
}

describe("github reporter on a real failing run", () => {
  it("one short annotation per difference group, repo-relative file= and line= of the changed field, then the summary annotation", async () => {
    const cwd = await project();
    const file = path.join(cwd, "lanes", "echo", "turn.json");
    const oracle = JSON.parse(await readFile(file, "utf8")) as Array<Record<string, any>>;
    oracle[3]!.delta = "Changed ";
    oracle[8]!.delta = "near ";
    const text = `${JSON.stringify(oracle, null, 2)}\n`;
    await writeFile(file, text);
    const r = await runCli(["check", "--cell", "turn", "--reporter", "github"], { cwd, ci: true });
    expect(r.code).toBe(1);
    const errors = r.out.split("\n").filter((l) => l.startsWith("::error "));
    expect(errors).toHaveLength(3);
    // line= is the changed field's line (`"delta": "Changed "`), below its event's opening brace.
    const fieldLine = (event: number) =>
      nthEventLine(text, event) +
      text
        .split("\n")
        .slice(nthEventLine(text, event))
        .findIndex((l) => l.startsWith('    "delta": ')) +
      1;
    expect(text.split("\n")[fieldLine(3) - 1]).toBe('    "delta": "Changed "');
    expect(errors[0]).toMatch(new RegExp(`^::error file=lanes/echo/turn\\.json,line=${fieldLine(3)},title=parity echo/turn::`));
    expect(errors[1]).toMatch(new RegExp(`^::error file=lanes/echo/turn\\.json,line=${fieldLine(8)},title=`));
    expect(errors[2]).toBe("::error title=parity summary::parity: 0 passed, 1 failed, 0 skipped (1 cell)");
    expect(errors[0]).toContain("(/3/delta)");
    expect(errors[0]).not.toContain("/8/delta");
    for (const line of errors) expect(line.length).toBeLessThan(700);
    expect(r.out.trimEnd().split("\n").at(-1)).toBe("parity: 0 passed, 1 failed, 0 skipped (1 cell)");
  });

  it("oracleEventLines finds each event's line only in the layout the oracle writer uses", () => {
    const events = [{ a: 1 }, { b: { c: [1, 2] } }, { d: 3 }];
    const text = `${JSON.stringify(events, null, 2)}\n`;
    expect(oracleEventLines(text, 3)).toEqual([2, 5, 13]);
    expect(oracleEventLines(JSON.stringify(events), 3)).toBeUndefined();
    expect(oracleEventLines(text, 4)).toBeUndefined();
  });
});

describe("an unreadable input is that cell's error; every other cell still runs", () => {
  it("a corrupt oracle and a corrupt lane: JUnit <error> per cell, the rest pass, exit 2, file:line named", async () => {
    const cwd = await project();
    await writeFile(path.join(cwd, "lanes", "echo", "zero-work.json"), "[\n  {not json\n");
    const lane = path.join(cwd, "recordings", "echo", "resume", "runtime→bridge.ndjson");
    const lines = (await readFile(lane, "utf8")).split("\n");
    lines[1] = "garbage";
    await writeFile(lane, lines.join("\n"));
    const r = await runCli(["check", "--reporter", "junit", "--jobs", "1"], { cwd, ci: true });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/<testsuites name="parity" tests="4" failures="0" errors="2" skipped="0"/);
    expect(r.out).toMatch(/<testcase classname="parity.echo" name="turn" time="[\d.]+"\/>/);
    expect(r.out).toMatch(/<testcase classname="parity.echo" name="stop-interrupt" time="[\d.]+"\/>/);
    expect(r.out).toMatch(/name="resume"[^>]*>\s*<error message="[^"]*runtime→bridge\.ndjson:2: [^"]+" type="input">/);
    expect(r.out).toMatch(/name="zero-work"[^>]*>\s*<error message="[^"]*zero-work\.json:2:4: oracle is not valid JSON[^"]*" type="input">/);

    const text = await runCli(["check", "--jobs", "1"], { cwd, ci: true });
    expect(text.code).toBe(2);
    expect(text.out).toMatch(/^ERROR echo\/resume {2}\S*runtime→bridge\.ndjson:2: /m);
    expect(text.out).toMatch(/^PASS echo\/turn/m);
    expect(text.out).toMatch(/2 passed, 0 failed, 0 skipped, 2 unreadable \(4 cells\)/);

    const gh = await runCli(["check", "--reporter", "github"], { cwd, ci: true });
    expect(gh.out).toMatch(/^::error file=recordings\/echo\/resume\/runtime→bridge\.ndjson,line=2,title=parity echo\/resume::/m);
    expect(gh.out).toMatch(/^::error file=lanes\/echo\/zero-work\.json,line=2,title=parity echo\/zero-work::/m);

    const js = JSON.parse((await runCli(["check", "--json"], { cwd, ci: true })).out) as CheckReport;
    expect([js.passed, js.failed, js.errors]).toEqual([2, 0, 2]);
    expect(js.cells.find((c) => c.cell === "resume")).toMatchObject({ status: "error", error: expect.stringContaining("runtime→bridge.ndjson:2:") });
  });

  it("batched cells get their own times, not an equal share of the batch", async () => {
    const cwd = await project();
    const r = await runCli(["check", "--reporter", "junit", "--jobs", "1"], { cwd, ci: true });
    expect(r.code).toBe(0);
    const times = [...r.out.matchAll(/<testcase [^>]*time="([\d.]+)"/g)].map((m) => m[1]);
    expect(times).toHaveLength(4);
    expect(new Set(times).size).toBeGreaterThan(1);
  });
});

describe("check flags for CI", () => {
  it("an empty shard passes with zero cells; a bad shard is still a usage error", async () => {
    // echo has four cells, so shard 5 of 8 holds none, however the committed matrix grows.
    const r = await runCli(["check", "--provider", "echo", "--shard", "5/8", "--json"], { ci: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ passed: 0, failed: 0, skipped: 0, errors: 0, cells: [] });
    expect((await runCli(["check", "--shard", "41/40"])).code).toBe(2);
  });

  it("--json is --reporter json; with another --reporter it is a usage error", async () => {
    const cwd = await project();
    const a = await runCli(["check", "--cell", "turn", "--json"], { cwd, ci: true });
    expect(a.code).toBe(0);
    expect(Object.keys(JSON.parse(a.out))).toEqual(["schemaVersion", "passed", "failed", "skipped", "errors", "untrue", "ms", "cells", "truthStale", "versions", "catalogChanges"]);
    const b = await runCli(["check", "--json", "--reporter", "junit"], { cwd, ci: true });
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--json and --reporter junit disagree/);
  });

  it("under CI --dump-dir refuses lanes/ and recordings/ (and anything inside them) and writes nothing", async () => {
    const cwd = await project();
    for (const dir of ["lanes", "lanes/echo", "recordings", "./recordings/x"]) {
      const r = await runCli(["check", "--cell", "turn", "--dump-dir", dir], { cwd, ci: true });
      expect(r.code, dir).toBe(2);
      expect(r.err).toMatch(new RegExp(`^parity: --dump-dir ${dir.replace(".", "\\.")}: CI=true: the gate never writes into`));
    }
    expect(existsSync(path.join(cwd, "recordings", "x"))).toBe(false);
    const ok = await runCli(["check", "--cell", "turn", "--dump-dir", "dump"], { cwd, ci: true });
    expect(ok.code).toBe(0);
    expect(existsSync(path.join(cwd, "dump", "echo-turn.live.events.json"))).toBe(true);
    // Outside CI a developer may dump where they like.
    expect((await runCli(["check", "--cell", "turn", "--dump-dir", "lanes/dump"], { cwd })).code).toBe(0);
  });
});

describe("--json on every command that reports", () => {
  it("every command but allow (which writes an entry) and review (interactive) takes --json", async () => {
    const { COMMANDS } = await import("../../harness/cli/commands.js");
    for (const { name } of COMMANDS) {
      if (name === "allow" || name === "review") continue; // review is interactive
      const help = await runCli([name, "--help"]);
      expect(help.out, name).toMatch(/--json\b/);
    }
  });

  it("rerecord --json prints one array of per-cell outcomes", async () => {
    const out = path.join(work, "rr-json");
    const r = await runCli(["rerecord", "--provider", "echo", "--cell", "turn", "--out", out, "--json"]);
    expect(r.code).toBe(0);
    const outcomes = JSON.parse(r.out) as Array<{ status: string; cell: string; currentLaneFile: string }>;
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: "rerecorded", provider: "echo", cell: "turn" });
    expect(existsSync(outcomes[0]!.currentLaneFile)).toBe(true);
  });
});

describe("colour conventions", () => {
  it("FORCE_COLOR wins (0/false off, anything else on even without a TTY), then NO_COLOR, then TTY and TERM", () => {
    expect(colorEnabled({ FORCE_COLOR: "1" }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "3" }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "" }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: "0" }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: "false" }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(true);
    expect(colorEnabled({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: "" }, true)).toBe(true);
    expect(colorEnabled({ TERM: "dumb" }, true)).toBe(false);
    expect(colorEnabled({}, false)).toBe(false);
  });
});
