import { cp, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// Bad recordings are input errors: one line naming the file (and line) and what is wrong, exit 2
// for the command (or an `error` cell of check), never a long wait or a line-count puzzle.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-input-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
/** A project holding a copy of recordings/echo/turn (and its oracle), returning the cell dir. */
async function project(): Promise<{ root: string; cell: string }> {
  n += 1;
  const root = path.join(work, `p${n}`);
  await cp(path.join(repoRoot, "recordings/echo/turn"), path.join(root, "recordings/echo/turn"), { recursive: true });
  await cp(path.join(repoRoot, "lanes/echo/turn.json"), path.join(root, "lanes/echo/turn.json"));
  return { root, cell: path.join(root, "recordings/echo/turn") };
}

async function problemOf(dir: string, expect_?: { provider: string; cell: string }): Promise<InputError> {
  try {
    await readRecording(dir, expect_ ? { expect: expect_ } : {});
  } catch (thrown) {
    if (thrown instanceof InputError) return thrown;
    throw thrown;
  }
  throw new Error("read without error");
}

describe("input checks on recordings", () => {
  it("a seq going backwards: file:line, exit 2 at once (check: an error cell, no timeouts)", async () => {
    const { root, cell } = await project();
    const lane = path.join(cell, "bridge→runtime.ndjson");
    const lines = (await readFile(lane, "utf8")).trimEnd().split("\n");
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    await writeFile(lane, `${lines.join("\n")}\n`);
    const error = await problemOf(cell);
    expect(error.file).toBe(lane);
    expect(error.line).toBe(5);
    expect(error.problem).toMatch(/^seq \d+ comes after seq \d+ \(line 4\): a lane's entries go forwards in \(run, seq\)$/);
    const r = await runCli(["check", "--json"], { cwd: root, ci: true });
    expect(r.code).toBe(2);
    const report = JSON.parse(r.out) as { cells: Array<{ status: string; error: string; divergences: unknown[] }> };
    expect(report.cells[0]).toMatchObject({ status: "error", divergences: [] });
    expect(report.cells[0]!.error).toMatch(/bridge→runtime\.ndjson:5: seq \d+ comes after seq/);
    const replay = await runCli(["replay", cell]);
    expect(replay.code).toBe(2);
    expect(replay.err).toMatch(/^parity: \S+bridge→runtime\.ndjson:5: seq \d+ comes after seq \d+ .*\n$/);
  });

  it("a manifest whose provider/cell disagree with its directory: named, for check, list, lanes and rerecord", async () => {
    const { root, cell } = await project();
    const file = path.join(cell, "manifest.json");
    const manifest = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...manifest, provider: "acp-cursor", cell: "resume" }, null, 2));
    const error = await problemOf(cell, { provider: "echo", cell: "turn" });
    expect(error.message).toBe(`${file}: provider is "acp-cursor" but the directory names provider "echo"; cell is "resume" but the directory names cell "turn"`);
    for (const argv of [["check"], ["list"], ["lanes"], ["rerecord", "--out", path.join(work, `out${n}`)]]) {
      const r = await runCli(argv, { cwd: root, ci: argv[0] === "check" });
      expect(r.code, argv[0]).toBe(2);
      expect(r.out + r.err, argv[0]).toContain('provider is "acp-cursor" but the directory names provider "echo"');
    }
  });

  it("every problem of a manifest at once: schema fields together; directory and line counts together", async () => {
    const { cell } = await project();
    const file = path.join(cell, "manifest.json");
    const manifest = JSON.parse(await readFile(file, "utf8")) as Record<string, any>;
    await writeFile(file, JSON.stringify({ ...manifest, recordedAt: "yesterday", bridgeRuns: -1, scope: "galaxy" }));
    const schema = await problemOf(cell);
    expect(schema.problem).toMatch(/^invalid manifest: /);
    for (const field of ["scope", "recordedAt", "bridgeRuns"]) expect(schema.problem).toContain(`field \`${field}\``);
    expect(schema.message.split("\n")).toHaveLength(1);

    await writeFile(file, JSON.stringify({ ...manifest, cell: "other", lines: { ...manifest.lines, "runtime→bridge": 9, "bridge→runtime": 1 } }));
    const several = await problemOf(cell, { provider: "echo", cell: "turn" });
    expect(several.problem.split("; ")).toEqual([
      'cell is "other" but the directory names cell "turn"',
      'lines["runtime→bridge"] is 9 but runtime→bridge.ndjson has 2 entries',
      'lines["bridge→runtime"] is 1 but bridge→runtime.ndjson has 15 entries',
    ]);
  });

  it("a lane that is a directory, a symlink loop or a dangling link is named as such, not a line-count mismatch", async () => {
    const { root, cell } = await project();
    const lane = path.join(cell, "runtime→bridge.ndjson");
    await unlink(lane);
    await mkdir(lane);
    expect((await problemOf(cell)).message).toBe(`${lane}: is a directory, not a file`);
    await rm(lane, { recursive: true });
    await symlink(lane, lane);
    expect((await problemOf(cell)).message).toBe(`${lane}: is a symbolic link loop (ELOOP), not a file`);
    const r = await runCli(["lanes"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${lane}: is a symbolic link loop (ELOOP), not a file\n`);
    await unlink(lane);
    await symlink(path.join(cell, "nowhere.ndjson"), lane);
    expect((await problemOf(cell)).problem).toBe("is a symbolic link to nothing (dangling), not a file");
  });
});
