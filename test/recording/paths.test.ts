/**
 * The one "is this path in that directory" of the harness (harness/recording/paths.ts), which
 * replaced five private copies (allowlist roots, check's in-repo recordings, `parity list`,
 * `parity lanes`, the rerecord's CI refusal, the gate's dump-dir refusal) and six ways of showing
 * a path relative to the working directory. The copies read any relative path starting with
 * `..` as outside, so a directory named `..cache` inside the project counted as outside it.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isInside, realPathOf, shownPath } from "../../harness/recording/paths.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("isInside", () => {
  it("holds for the directory itself and anything below it, including a child named ..cache", () => {
    expect(isInside("/p", "/p")).toBe(true);
    expect(isInside("/p", "/p/lanes/echo")).toBe(true);
    expect(isInside("/p", "/p/..cache")).toBe(true);
    expect(isInside("/p/", "/p/lanes/../recordings")).toBe(true);
  });

  it("fails for a sibling, a parent, a prefix that is not a directory boundary, and another root", () => {
    expect(isInside("/p", "/p2")).toBe(false);
    expect(isInside("/p", "/")).toBe(false);
    expect(isInside("/p/lanes", "/p/lanes-old")).toBe(false);
    expect(isInside("/p", "/p/../shared/reference-lanes")).toBe(false);
  });
});

describe("realPathOf", () => {
  it("resolves a symbolic link on the way even when the last parts do not exist yet", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "paths-test-"));
    made.push(base);
    mkdirSync(path.join(base, "real"));
    symlinkSync(path.join(base, "real"), path.join(base, "link"));
    const real = await realPathOf(base);
    expect(await realPathOf(path.join(base, "link", "a", "b.json"))).toBe(path.join(real, "real", "a", "b.json"));
    expect(isInside(path.join(real, "real"), await realPathOf(path.join(base, "link", "x")))).toBe(true);
  });
});

describe("shownPath", () => {
  it("is relative below the working directory and whole elsewhere (the directory itself, outside, ..cache inside)", () => {
    expect(shownPath("/p/lanes/echo/turn.json", "/p")).toBe(path.join("lanes", "echo", "turn.json"));
    expect(shownPath("/p/..cache/x", "/p")).toBe(path.join("..cache", "x"));
    expect(shownPath("/p", "/p")).toBe("/p");
    expect(shownPath("/shared/lanes/x.json", "/p")).toBe("/shared/lanes/x.json");
  });
});
