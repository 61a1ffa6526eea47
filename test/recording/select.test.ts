import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError, UsageError } from "../../harness/errors.js";
import { resolveRecordingRoots, selectRecordings } from "../../harness/recording/select.js";
import { writeRecording } from "./fixture.js";

let work = "";
beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), "parity-select-"));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("resolveRecordingRoots", () => {
  it("keeps only the defaults that exist, resolved against cwd", async () => {
    await writeRecording(path.join(work, "recordings"), "p", "c");
    expect(resolveRecordingRoots([], work, ["recordings", "../nowhere"])).toEqual([path.join(work, "recordings")]);
  });

  it("refuses an explicit root that is missing or a file", async () => {
    expect(() => resolveRecordingRoots(["gone"], work, [])).toThrow(UsageError);
    await writeFile(path.join(work, "file"), "");
    expect(() => resolveRecordingRoots(["file"], work, [])).toThrow(/--recordings file: not a directory/);
  });
});

describe("selectRecordings", () => {
  it("filters by provider and cell, and lists valid values on a miss", async () => {
    const root = path.join(work, "a");
    await writeRecording(root, "p1", "x");
    await writeRecording(root, "p1", "y");
    await writeRecording(root, "p2", "x");
    expect((await selectRecordings([root], { cell: "x" })).map((l) => `${l.provider}/${l.cell}`)).toEqual(["p1/x", "p2/x"]);
    expect((await selectRecordings([root], { provider: "p1" })).map((l) => l.cell)).toEqual(["x", "y"]);
    await expect(selectRecordings([root], { provider: "p3" })).rejects.toThrow("unknown --provider p3; recorded providers: p1, p2");
    await expect(selectRecordings([root], { provider: "p2", cell: "y" })).rejects.toThrow("unknown --cell y; recorded cells of p2: x");
  });

  it("refuses the same provider/cell under two roots", async () => {
    await writeRecording(path.join(work, "a"), "p", "c");
    await writeRecording(path.join(work, "b"), "p", "c");
    const error = await selectRecordings([path.join(work, "a"), path.join(work, "b")], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`${path.join(work, "b", "p", "c")}: p/c is recorded twice (also in ${path.join(work, "a", "p", "c")}); pass one --recordings root`);
  });
});
