import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { referenceLanes, repoRoot, runCli } from "./run-cli.js";

const lanePath = (cell: string) => path.join(referenceLanes, `${cell}.events.json`);

async function readLane(cell: string): Promise<Array<Record<string, any>>> {
  return JSON.parse(await readFile(lanePath(cell), "utf8"));
}

/** A modified copy of a real lane in the temp dir: the first commandExecution completion's exitCode changed. */
async function modifiedTurnTools(file: string): Promise<number> {
  const lane = await readLane("turn-tools");
  const index = lane.findIndex((e) => e.type === "item/completed" && e.item?.type === "commandExecution");
  lane[index]!.item.exitCode = 42;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(lane, null, 2)}\n`);
  return index;
}

describe("parity diff", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-diff-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("names the exact JSON path between a real lane and a modified copy", async () => {
    const copy = path.join(dir, "turn-tools.json");
    const index = await modifiedTurnTools(copy);
    const result = await runCli(["diff", lanePath("turn-tools"), copy]);
    expect(result.err).toBe("");
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/replace turn 1 \/ commandExecution \d+ \/ item\/completed: item\.exitCode {2}0 → 42/);
    expect(result.out).toContain(`at /${index}/item/exitCode`);
    // The paired event's two rows start near the change, so it is on screen.
    expect(result.out).toMatch(/^ {2}- ….*"exitCode":0,/m);
    expect(result.out).toMatch(/^ {2}\+ ….*"exitCode":42,/m);
    expect(result.out).toMatch(/accept: parity allow --provider '<provider>' --cell turn-tools --path '\/\*\[turn=1\]\[item=commandExecution:\d+\]\[type=item\/completed\]\/item\/exitCode'/);
    expect(result.out).toContain("changed turn-tools  98 → 98 events, 1 difference");
    // Every row but the pasteable commands fits the default width.
    for (const row of result.out.split("\n").filter((r) => !r.includes("accept: parity allow"))) expect(row.length).toBeLessThanOrEqual(160);
    expect(result.out).toContain("1 changed, 0 added, 0 removed, 0 unchanged (1 lane)");
    expect(result.out).not.toMatch(/\u001b\[/);
    expect((await runCli(["diff", lanePath("turn-tools"), copy], { color: true })).out).toMatch(/\u001b\[32m/);
  });

  it("names the first bad argument when both are bad (it named whichever failed first in time: the second)", async () => {
    const expected = `parity: "nope-a" is neither a lane file, a directory nor a git ref (resolved against ${repoRoot})\n`;
    expect(await runCli(["diff", "nope-a", "nope-b"])).toEqual({ code: 2, out: "", err: expected });
    // The executable too: there the second argument's git lookup finished first.
    const r = spawnSync(process.execPath, [path.join(repoRoot, "bin/parity.js"), "diff", "nope-a", "nope-b"], { cwd: repoRoot, encoding: "utf8" });
    expect({ code: r.status, out: r.stdout, err: r.stderr }).toEqual({ code: 2, out: "", err: expected });
  });

  it("exits 0 for equal lanes", async () => {
    const result = await runCli(["diff", lanePath("resume"), lanePath("resume")]);
    expect(result.code).toBe(0);
    expect(result.out).toBe("0 changed, 0 added, 0 removed, 1 unchanged (1 lane)\n");
  });

  it("pairs lanes of two checkouts by provider/cell, with --json", async () => {
    const a = path.join(dir, "a");
    const b = path.join(dir, "b");
    for (const side of [a, b]) await mkdir(path.join(side, "lanes", "acp-cursor"), { recursive: true });
    await copyFile(lanePath("turn-tools"), path.join(a, "lanes", "acp-cursor", "turn-tools.json"));
    await copyFile(lanePath("resume"), path.join(a, "lanes", "acp-cursor", "resume.json"));
    await copyFile(lanePath("resume"), path.join(b, "lanes", "acp-cursor", "resume.json"));
    await copyFile(lanePath("fork"), path.join(b, "lanes", "acp-cursor", "fork.json"));
    const index = await modifiedTurnTools(path.join(b, "lanes", "acp-cursor", "turn-tools.json"));
    await copyFile(lanePath("subagent"), path.join(a, "lanes", "acp-cursor", "subagent.json"));

    const result = await runCli(["diff", a, b, "--json"]);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out);
    expect(doc.counts).toEqual({ same: 1, changed: 1, added: 1, removed: 1 });
    expect(doc.lanes.map((l: any) => [l.key, l.status])).toEqual([
      ["acp-cursor/fork", "added"],
      ["acp-cursor/resume", "same"],
      ["acp-cursor/subagent", "removed"],
      ["acp-cursor/turn-tools", "changed"],
    ]);
    expect(doc.lanes[3].paths).toMatchObject([{ op: "replace", path: `/${index}/item/exitCode`, new: 42 }]);
    expect(doc.lanes[3].paths[0].selector).toMatch(/^\/\*\[turn=1\]\[item=commandExecution:\d+\]\[type=item\/completed\]\/item\/exitCode$/);
    expect(doc.schemaVersion).toBe(3);
    expect(doc.lanes[3].patch).toMatch(/^\+\{.*"exitCode":42,/m);
    expect(doc.lanes[1].patch).toBe("");
  });

  it("writes one self-contained HTML page atomically with --html", async () => {
    const copy = path.join(dir, "x", "turn-tools.json");
    const index = await modifiedTurnTools(copy);
    const result = await runCli(["diff", lanePath("turn-tools"), copy, "--html", "page.html"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.out).toContain("wrote page.html\n");
    const html = await readFile(path.join(dir, "page.html"), "utf8");
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain(`/${index}/item/exitCode`);
    expect(html).not.toMatch(/<script|<link|src=/);
    expect((await readdir(dir)).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it("compares lanes/ of two git refs, read-only", async () => {
    const repo = path.join(dir, "repo");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", ...args], {
        cwd: repo,
        encoding: "utf8",
      });
    await mkdir(path.join(repo, "lanes", "acp-cursor"), { recursive: true });
    git("init", "-q");
    await copyFile(lanePath("turn-tools"), path.join(repo, "lanes", "acp-cursor", "turn-tools.json"));
    git("add", "lanes");
    git("commit", "-q", "-m", "one");
    const index = await modifiedTurnTools(path.join(repo, "lanes", "acp-cursor", "turn-tools.json"));
    git("commit", "-q", "-am", "two");
    const head = git("rev-parse", "HEAD");

    const result = await runCli(["diff", "HEAD~1", "HEAD"], { cwd: repo });
    expect(result.err).toBe("");
    expect(result.code).toBe(1);
    expect(result.out).toContain("changed acp-cursor/turn-tools");
    expect(result.out).toContain(`at /${index}/item/exitCode`);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("status", "--porcelain")).toBe("");
  });

  it("is a one-line usage error for an argument that is no file, directory or ref", async () => {
    const result = await runCli(["diff", "no-such-thing", lanePath("resume")], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^parity: "no-such-thing" is neither a lane file, a directory nor a git ref/);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses to compare a lane file with a directory", async () => {
    const result = await runCli(["diff", lanePath("resume"), dir]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^parity: compare a lane file with a lane file, or two checkouts\/refs .* is a file, .* a directory\)\n$/);
  });

  it("names the lane file that is not a lane", async () => {
    const bad = path.join(dir, "bad.json");
    await writeFile(bad, '{"events": 3}');
    const result = await runCli(["diff", lanePath("resume"), bad]);
    expect(result.code).toBe(2);
    expect(result.err).toBe(`parity: ${bad}: a lane file must be a JSON array of thread events or an object with an "events" array\n`);
  });

  it("has help with examples", async () => {
    const result = await runCli(["diff", "--help"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/Examples:\n\s+parity diff main HEAD/);
    expect(result.out).toContain("--html");
  });
});
