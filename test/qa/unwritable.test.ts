import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { writeFileAtomic } from "../../harness/recording/atomic-write.js";
import { runCli } from "../cli/run-cli.js";

// QA: a place that cannot be written is the user's to fix: one line naming the file, exit 2,
// never "internal error" with exit 1, and no temp file left behind. (Tests may run as root,
// where chmod does not stop a write, so a file standing where a directory must be is used.)
describe("writing where nothing can be written", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-qa-unwritable-"));
    dirs.push(dir);
    return dir;
  }

  it("writeFileAtomic under a file throws an InputError naming the target", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "blocker"), "x");
    const target = path.join(dir, "blocker", "lane.json");
    const thrown = await writeFileAtomic(target, "[]\n").catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as InputError).message).toMatch(new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cannot write \\(E(NOTDIR|EXIST)\\)`));
  });

  it("writeFileAtomic onto a directory throws an InputError and leaves no temp file", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "lane.json"));
    const thrown = await writeFileAtomic(path.join(dir, "lane.json"), "[]\n").catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as InputError).message).toContain("cannot write (EISDIR)");
    expect((await readdir(dir)).sort()).toEqual(["lane.json"]);
  });

  it("parity allow --file under a file: exit 2, one line, no internal error", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "blocker"), "keep");
    const r = await runCli(["allow", "--provider", "echo", "--cell", "turn", "--path", "/1/item/text", "--pr", "#5", "--reason", "qa", "--file", "blocker/allow.json"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: .*blocker\/allow\.json: cannot write \(E(NOTDIR|EXIST)\): a parent of this path is not a directory\n$/);
    expect(await readFile(path.join(dir, "blocker"), "utf8")).toBe("keep");
  });

  it("a yargs choices error is one line", async () => {
    const r = await runCli(["allow", "--provider", "echo", "--cell", "turn", "--path", "/1/a", "--pr", "#5", "--reason", "qa", "--layer", "rows"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: --layer rows: use one of events, grammar\n");
  });
});
