import { chmod, cp, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// Issue 42, build point 3: every write of `.pending` files is said in one line (count and where,
// as cargo-insta's "stored new snapshots"), and every "not written" says why without naming a
// flag the user did not give. The changed cells are the committed echo oracles with one delta
// edited by hand, so the live lane differs from the oracle only (no current lane is needed).

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-pending-said-"));
});
afterAll(async () => {
  // Read-only directories made below are made writable again so they can be removed.
  await chmodTree(work, 0o755);
  await rm(work, { recursive: true, force: true });
});

async function chmodTree(dir: string, mode: number): Promise<void> {
  await chmod(dir, mode);
  for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await chmodTree(path.join(dir, entry.name), mode);
}

/** Every `.pending` file under `dir`, relative to it. */
async function pendingUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }))
    .map(String)
    .filter((f) => f.endsWith(".pending"))
    .sort();
}

/** The echo oracle of `cell` with its first delta changed, so the check finds one difference against it. */
async function editOracle(dir: string, cell: string): Promise<void> {
  const file = path.join(dir, "lanes", "echo", `${cell}.json`);
  const events = JSON.parse(await readFile(file, "utf8")) as Array<{ delta?: string }>;
  const first = events.find((e) => typeof e.delta === "string")!;
  first.delta = `${first.delta}(edited)`;
  await writeFile(file, JSON.stringify(events, null, 2));
}

let n = 0;
/** A project with the echo recordings and oracles; `turn` and `resume` changed by hand. */
async function project(options: { recordingsOutside?: boolean } = {}): Promise<string> {
  n += 1;
  const dir = path.join(work, `p${n}`);
  await cp(path.join(repoRoot, "lanes", "echo"), path.join(dir, "lanes", "echo"), { recursive: true });
  if (options.recordingsOutside === true) {
    const elsewhere = path.join(work, `recordings-elsewhere-${n}`);
    await cp(path.join(repoRoot, "recordings", "echo"), path.join(elsewhere, "echo"), { recursive: true });
    await symlink(elsewhere, path.join(dir, "recordings"));
  } else {
    await cp(path.join(repoRoot, "recordings", "echo"), path.join(dir, "recordings", "echo"), { recursive: true });
  }
  await editOracle(dir, "turn");
  await editOracle(dir, "resume");
  return dir;
}

const lines = (text: string, prefix: string) => text.split("\n").filter((l) => l.startsWith(prefix));

describe("pending results said aloud (issue 42 point 3)", () => {
  it("a failing local check says in one line how many .pending files it stored and where", async () => {
    const cwd = await project();
    const r = await runCli(["check"], { cwd });
    expect(r.code).toBe(1);
    expect(await pendingUnder(cwd)).toEqual(["lanes/echo/resume.json.pending", "lanes/echo/turn.json.pending"]);
    expect(lines(r.err, "parity:")).toEqual([
      "parity: stored 2 pending files (.pending) for 2 changed cells in lanes/echo (e.g. lanes/echo/resume.json.pending); review them with parity review, or accept them all with parity check -u",
    ]);
  });

  it("recordings/ a symbolic link out of the project: nothing written, and the line names the link, not a --recordings flag never given", async () => {
    const cwd = await project({ recordingsOutside: true });
    const r = await runCli(["check"], { cwd });
    expect(r.code).toBe(1);
    expect(await pendingUnder(cwd)).toEqual([]);
    expect(r.err).not.toContain("--recordings");
    expect(lines(r.err, "parity:")).toEqual([
      `parity: nothing written (no .pending results): recordings/ is a symbolic link to ${path.join(work, `recordings-elsewhere-${n}`)}, outside the working directory, and a check writes only the project's own oracles and recordings; run it from the project that owns them, or pass --update to write them in place`,
    ]);
  });

  it("lanes/echo read-only: no .pending file, and one line says which cells and why", async () => {
    const cwd = await project();
    await chmod(path.join(cwd, "lanes", "echo"), 0o555);
    const r = await runCli(["check"], { cwd });
    expect(r.code).toBe(1);
    expect(await pendingUnder(cwd)).toEqual([]);
    expect(lines(r.err, "parity:")).toEqual(["parity: not written (no .pending results) for echo/resume, echo/turn: lanes/echo is read-only"]);
  });

  it("a recording directory read-only: that cell gets no .pending file and is named with why; the other cell's is stored and counted", async () => {
    const cwd = await project();
    await chmod(path.join(cwd, "recordings", "echo", "turn"), 0o555);
    const r = await runCli(["check"], { cwd });
    expect(r.code).toBe(1);
    expect(await pendingUnder(cwd)).toEqual(["lanes/echo/resume.json.pending"]);
    expect(lines(r.err, "parity:")).toEqual([
      "parity: stored 1 pending file (.pending) for 1 changed cell in lanes/echo (e.g. lanes/echo/resume.json.pending); review them with parity review, or accept them all with parity check -u",
      "parity: not written (no .pending results) for echo/turn: recordings/echo/turn is read-only",
    ]);
  });

  it("under CI=true nothing is written and one line says so", async () => {
    const cwd = await project();
    const r = await runCli(["check"], { cwd, ci: true });
    expect(r.code).toBe(1);
    expect(await pendingUnder(cwd)).toEqual([]);
    expect(lines(r.err, "parity:")).toEqual([
      "parity: nothing written (no .pending results) for 2 changed cells: CI=true, and under CI nothing writes oracles or recordings; run parity check locally, then parity review",
    ]);
  });

  it("check -u with lanes/echo read-only: exit 2, each cell not updated with why, no stray .pending file, and not 'nothing to commit'", async () => {
    const cwd = await project();
    await chmod(path.join(cwd, "lanes", "echo"), 0o555);
    const before = await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8");
    const r = await runCli(["check", "-u"], { cwd });
    expect(r.code).toBe(2);
    expect(await pendingUnder(cwd)).toEqual([]);
    expect(await readFile(path.join(cwd, "lanes", "echo", "turn.json"), "utf8")).toBe(before);
    expect(r.out).toContain("not updated echo/resume: lanes/echo is read-only; nothing written for it\n");
    expect(r.out).toContain("not updated echo/turn: lanes/echo is read-only; nothing written for it\n");
    expect(r.out).toContain("nothing written: 2 cells were not updated (above)\n");
    expect(r.out).not.toContain("nothing to commit");
  });

  it("check -u with a missing oracle and lanes/echo read-only: the cell fails saying why, nothing is written", async () => {
    const cwd = await project();
    await rm(path.join(cwd, "lanes", "echo", "zero-work.json"));
    await chmod(path.join(cwd, "lanes", "echo"), 0o555);
    const r = await runCli(["check", "--cell", "zero-work", "-u"], { cwd });
    expect(r.code).toBe(2);
    expect(await readdir(path.join(cwd, "lanes", "echo"))).not.toContain("zero-work.json");
    expect(r.out).toContain("not updated echo/zero-work: lanes/echo is read-only; nothing written for it\n");
    expect(r.err).not.toContain("wrote oracle");
  });
});
