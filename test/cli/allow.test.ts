import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { entryApplies, loadAllowlists, parseAllowlist } from "../../harness/compare/allowlist.js";
import { InputError } from "../../harness/errors.js";
import { runCli } from "./run-cli.js";

const flags = (overrides: Record<string, string> = {}) => {
  const values = { provider: "acp-cursor", cell: "turn-tools", path: "/86/item/exitCode", pr: "#42", reason: "exit code now reported", ...overrides };
  return Object.entries(values).flatMap(([key, value]) => [`--${key}`, value]);
};

describe("parity allow", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-allow-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const file = () => path.join(dir, "allowlists", "acp-cursor.json");

  it("appends validated entries to allowlists/<provider>.json that the loader reads back", async () => {
    const first = await runCli(["allow", ...flags()], { cwd: dir });
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain("added entry 0 to allowlists/acp-cursor.json: acp-cursor/turn-tools /86/item/exitCode (#42)");
    const second = await runCli(["allow", ...flags({ cell: "*", path: "/**/durationMs", pr: "#43", reason: "timing" })], { cwd: dir });
    expect(second.code).toBe(0);
    const onDisk = JSON.parse(await readFile(file(), "utf8"));
    expect(onDisk).toEqual([
      { provider: "acp-cursor", cell: "turn-tools", layer: "events", path: "/86/item/exitCode", pr: "#42", reason: "exit code now reported" },
      { provider: "acp-cursor", cell: "*", layer: "events", path: "/**/durationMs", pr: "#43", reason: "timing" },
    ]);
    expect((await loadAllowlists({ cwd: dir })).map((e) => e.source.index)).toEqual([0, 1]);
    expect((await readdir(path.dirname(file()))).sort()).toEqual(["acp-cursor.json"]);
  });

  it("keeps the pair entries (parity compare) of the file it appends to", async () => {
    const pair = { pair: "codex/acp-codex", class: "usage", cell: "*", pr: "#39", reason: "no token breakdown" };
    await mkdir(path.dirname(file()), { recursive: true });
    await writeFile(file(), `${JSON.stringify([pair])}\n`);
    const added = await runCli(["allow", ...flags()], { cwd: dir });
    expect(added.err).toBe("");
    expect(added.out).toContain("added entry 0 to allowlists/acp-cursor.json");
    const onDisk = JSON.parse(await readFile(file(), "utf8")) as unknown[];
    expect(onDisk).toHaveLength(2);
    expect(onDisk[1]).toEqual(pair);
  });

  it("writes to --file and uses allowlists/all.json for provider *", async () => {
    expect((await runCli(["allow", ...flags({ provider: "*" })], { cwd: dir })).code).toBe(0);
    expect(JSON.parse(await readFile(path.join(dir, "allowlists", "all.json"), "utf8"))).toHaveLength(1);
    expect((await runCli(["allow", ...flags(), "--file", "custom/x.json"], { cwd: dir })).code).toBe(0);
    expect(JSON.parse(await readFile(path.join(dir, "custom", "x.json"), "utf8"))[0].pr).toBe("#42");
  });

  it.each([
    [{ pr: "42" }, /^parity: --pr: pr must look like "#123"/],
    [{ reason: " " }, /^parity: --reason: /],
    [{ path: "/3" }, /^parity: --path: path "\/3" would mask a whole event/],
    [{ path: "/*" }, /^parity: --path: /],
    [{ path: "/**" }, /^parity: --path: /],
    [{ path: "/" }, /^parity: --path: /],
    [{ path: "/3/item/*" }, /^parity: --path: .*must end with a field name/],
  ])("refuses %j with exit 2 and writes nothing", async (overrides, message) => {
    const result = await runCli(["allow", ...flags(overrides as Record<string, string>)], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    await expect(readdir(dir)).resolves.toEqual([]);
  });

  it("accepts event selectors, by type and by type and kind, and the loader reads them back", async () => {
    const byType = "/*[type=thread/extensionState/updated]";
    const byKind = "/*[type=thread/extensionState/updated][kind=bb/session-options]";
    const first = await runCli(["allow", ...flags({ cell: "*", path: byType })], { cwd: dir });
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain(`added entry 0 to allowlists/acp-cursor.json: acp-cursor/* ${byType} (#42)`);
    expect((await runCli(["allow", ...flags({ path: byKind })], { cwd: dir })).code).toBe(0);
    expect((await loadAllowlists({ cwd: dir })).map((e) => e.path)).toEqual([byType, byKind]);
  });

  it("writes --recordings into the entry, scoping it to that root when loaded", async () => {
    const result = await runCli(["allow", ...flags({ recordings: "../shared/recordings" })], { cwd: dir });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain("acp-cursor/turn-tools in ../shared/recordings /86/item/exitCode (#42)");
    const onDisk = JSON.parse(await readFile(file(), "utf8"));
    expect(Object.keys(onDisk[0])).toEqual(["provider", "cell", "recordings", "layer", "path", "pr", "reason"]);
    expect(onDisk[0].recordings).toBe("../shared/recordings");
    const [loaded] = await loadAllowlists({ cwd: dir });
    const shared = path.resolve(dir, "../shared/recordings/acp-cursor/turn-tools");
    expect(loaded!.recordingsRoot).toBe(path.resolve(dir, "../shared/recordings"));
    expect(entryApplies(loaded!, "acp-cursor", "turn-tools", shared)).toBe(true);
    expect(entryApplies(loaded!, "acp-cursor", "turn-tools", path.join(dir, "recordings/acp-cursor/turn-tools"))).toBe(false);
    // The same provider/cell/path for another root (or none) is a different entry, not a duplicate.
    expect((await runCli(["allow", ...flags()], { cwd: dir })).code).toBe(0);
    const again = await runCli(["allow", ...flags({ recordings: "../shared/recordings", pr: "#9" })], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.err).toContain("entry 0 already allows /86/item/exitCode");
  });

  it("refuses a blank --recordings", async () => {
    const result = await runCli(["allow", ...flags({ recordings: " " })], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toBe("parity: --recordings: recordings must name a recordings root directory\n");
    await expect(readdir(dir)).resolves.toEqual([]);
  });

  // The command validates with the loader's schema: each refusal is the loader's problem sentence.
  it.each(["/3", "/*", "/**", "/*[kind=bb/session-options]", "/*[type=a][type=b]", "/*[type=a]/item/*", "/*[type=]"])("refuses %s with the loader's message", async (bad) => {
    let loaderProblem = "";
    try {
      parseAllowlist([{ provider: "acp-cursor", cell: "turn-tools", layer: "events", path: bad, pr: "#1", reason: "r" }], "x.json");
    } catch (error) {
      if (error instanceof InputError) loaderProblem = error.problem.replace(/^entry 0: path: /, "");
    }
    expect(loaderProblem).toContain(`path "${bad}"`);
    const result = await runCli(["allow", ...flags({ path: bad })], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toBe(`parity: --path: ${loaderProblem}\n`);
    await expect(readdir(dir)).resolves.toEqual([]);
  });

  it("refuses a duplicate entry", async () => {
    await runCli(["allow", ...flags()], { cwd: dir });
    const result = await runCli(["allow", ...flags({ pr: "#50" })], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toContain("allowlists/acp-cursor.json entry 0 already allows /86/item/exitCode for acp-cursor/turn-tools (#42)");
  });

  it("refuses under CI=true and leaves the file untouched", async () => {
    await mkdir(path.dirname(file()), { recursive: true });
    await writeFile(file(), "[]\n");
    const result = await runCli(["allow", ...flags()], { cwd: dir, ci: true });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^parity: CI=true: `parity allow` writes allowlist files/);
    expect(await readFile(file(), "utf8")).toBe("[]\n");
  });

  it("names the file and entry index of a bad existing file and leaves it untouched", async () => {
    await mkdir(path.dirname(file()), { recursive: true });
    const bad = `${JSON.stringify([
      { provider: "acp-cursor", cell: "x", layer: "events", path: "/1/a", pr: "#1", reason: "ok" },
      { provider: "acp-cursor", cell: "x", layer: "events", path: "/1/a", pr: "1", reason: "ok" },
    ])}\n`;
    await writeFile(file(), bad);
    const result = await runCli(["allow", ...flags()], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err).toBe(`parity: ${file()}: entry 1: pr: pr must look like "#123" (the PR that made the difference)\n`);
    expect(await readFile(file(), "utf8")).toBe(bad);
  });

  it("has help with examples", async () => {
    const result = await runCli(["allow", "--help"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/Examples:\n\s+parity allow --provider acp-cursor/);
  });
});
