import { mkdtemp, rm, writeFile, mkdir, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { entryApplies, loadAllowlists, parseAllowlist, plainEntry } from "../../harness/compare/allowlist.js";
import { allowlistPathProblem } from "../../harness/compare/pointer.js";

const good = { provider: "acp-cursor", cell: "turn-tools", layer: "events", path: "/*/item/text", pr: "#12", reason: "text moved" };

describe("allowlist path validation", () => {
  it.each(["/", "/*", "/**", "/3", "/12", "//", "", "item/text", "/3/", "/3//text", "/*/item/*", "/0/item/**", "/0/item/args/2", "/text"])("rejects %j", (value) => {
    expect(allowlistPathProblem(value)).toBeTypeOf("string");
  });

  it.each(["/3/item/text", "/*/item/text", "/**/text", "/**/item/*/title", "/0/a~1b"])("accepts %j", (value) => {
    expect(allowlistPathProblem(value)).toBeUndefined();
  });
});

describe("parseAllowlist", () => {
  it("accepts good entries and records where they came from", () => {
    const entries = parseAllowlist([good, { ...good, provider: "*", cell: "*" }], "allowlists/a.json");
    expect(entries).toHaveLength(2);
    expect(entries[1]!.source).toEqual({ file: "allowlists/a.json", index: 1 });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["pr without #", { ...good, pr: "12" }, /entry 1: pr: pr must look like "#123"/],
    ["blank reason", { ...good, reason: "  " }, /entry 1: reason: /],
    ["whole-event path", { ...good, path: "/3" }, /entry 1: path: .*whole event/],
    ["wildcard last", { ...good, path: "/*/item/*" }, /entry 1: path: .*must end with a field name/],
    ["rows layer", { ...good, layer: "rows" }, /entry 1: layer: /],
    ["unknown key", { ...good, extra: 1 }, /entry 1: /],
    ["missing provider", { ...good, provider: undefined }, /entry 1: provider/],
  ];
  it.each(bad)("rejects %s naming file and entry index", (_name, entry, message) => {
    let caught: unknown;
    try {
      parseAllowlist([good, entry], "allowlists/bad.json");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).message).toMatch(/^allowlists\/bad\.json: /);
    expect((caught as InputError).message).toMatch(message);
    expect((caught as InputError).exitCode).toBe(2);
  });

  it("rejects a file that is not an array", () => {
    expect(() => parseAllowlist({ entries: [] }, "x.json")).toThrow(/x\.json: an allowlist file must be a JSON array/);
  });
});

describe("entryApplies", () => {
  it("matches exact names or *", () => {
    expect(entryApplies({ ...good, layer: "events" }, "acp-cursor", "turn-tools")).toBe(true);
    expect(entryApplies({ ...good, layer: "events" }, "acp-cursor", "resume")).toBe(false);
    expect(entryApplies({ ...good, layer: "events", provider: "*", cell: "resume" }, "echo", "resume")).toBe(true);
  });

  it("an entry with a recordings root applies only to cells recorded under it (resolved against the project dir)", () => {
    const [scoped] = parseAllowlist([{ ...good, recordings: "../shared/recordings" }], "a.json", "/work/proj");
    expect(scoped!.recordingsRoot).toBe("/work/shared/recordings");
    expect(entryApplies(scoped!, "acp-cursor", "turn-tools", "/work/shared/recordings/acp-cursor/turn-tools")).toBe(true);
    expect(entryApplies(scoped!, "acp-cursor", "turn-tools", "/work/proj/recordings/acp-cursor/turn-tools")).toBe(false);
    expect(entryApplies(scoped!, "acp-cursor", "turn-tools", "/work/shared/recordings-old/acp-cursor/turn-tools")).toBe(false);
    expect(entryApplies(scoped!, "acp-cursor", "turn-tools")).toBe(false);
    expect(entryApplies(scoped!, "acp-cursor", "resume", "/work/shared/recordings/acp-cursor/resume")).toBe(false);
    // Unscoped entries apply in every root.
    expect(entryApplies({ ...good, layer: "events" }, "acp-cursor", "turn-tools", "/anywhere/acp-cursor/turn-tools")).toBe(true);
    // The field survives a rewrite of the file (parity allow) in its place, and blank is refused.
    expect(Object.keys(plainEntry(scoped!))).toEqual(["provider", "cell", "recordings", "layer", "path", "pr", "reason"]);
    expect(Object.keys(plainEntry({ ...good, layer: "events" }))).not.toContain("recordings");
    expect(() => parseAllowlist([{ ...good, recordings: " " }], "a.json")).toThrow(/entry 0: recordings: /);
  });

  it("a root named through a symbolic link covers recordings reached by their real path, and the other way round", async () => {
    // Found by running `parity check --recordings /work/shared/recordings` from a checkout whose
    // `../shared` is a link to /work/shared: the lexical test missed every acp-cursor entry and
    // six cells failed that pass through `--recordings ../shared/recordings`.
    const base = await mkdtemp(path.join(os.tmpdir(), "parity-allowlist-link-"));
    try {
      await mkdir(path.join(base, "real", "recordings", "acp-cursor", "turn-tools"), { recursive: true });
      await mkdir(path.join(base, "proj"));
      await symlink(path.join(base, "real"), path.join(base, "shared"));
      const [scoped] = parseAllowlist([{ ...good, recordings: "../shared/recordings" }], "a.json", path.join(base, "proj"));
      expect(entryApplies(scoped!, "acp-cursor", "turn-tools", path.join(base, "real", "recordings", "acp-cursor", "turn-tools"))).toBe(true);
      expect(entryApplies(scoped!, "acp-cursor", "turn-tools", path.join(base, "shared", "recordings", "acp-cursor", "turn-tools"))).toBe(true);
      const [real] = parseAllowlist([{ ...good, recordings: "../real/recordings" }], "a.json", path.join(base, "proj"));
      expect(entryApplies(real!, "acp-cursor", "turn-tools", path.join(base, "shared", "recordings", "acp-cursor", "turn-tools"))).toBe(true);
      // A link elsewhere is still elsewhere.
      expect(entryApplies(scoped!, "acp-cursor", "turn-tools", path.join(base, "proj", "recordings", "acp-cursor", "turn-tools"))).toBe(false);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe("loadAllowlists", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-allowlist-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads allowlists/*.json sorted, then --allowlist files, and tolerates a missing directory", async () => {
    expect(await loadAllowlists({ cwd: dir })).toEqual([]);
    await mkdir(path.join(dir, "allowlists"));
    await writeFile(path.join(dir, "allowlists", "b.json"), JSON.stringify([{ ...good, pr: "#2" }]));
    await writeFile(path.join(dir, "allowlists", "a.json"), JSON.stringify([{ ...good, pr: "#1" }]));
    await writeFile(path.join(dir, "allowlists", "README.md"), "not json");
    await writeFile(path.join(dir, "extra.json"), JSON.stringify([{ ...good, pr: "#3" }]));
    const entries = await loadAllowlists({ cwd: dir, files: ["extra.json"] });
    expect(entries.map((e) => e.pr)).toEqual(["#1", "#2", "#3"]);
  });

  it("names the file for bad JSON and for a missing --allowlist", async () => {
    await mkdir(path.join(dir, "allowlists"));
    await writeFile(path.join(dir, "allowlists", "broken.json"), "[{");
    await expect(loadAllowlists({ cwd: dir })).rejects.toThrow(/broken\.json:1:3: not valid JSON: the file ends before the "\{" opened at line 1, column 2 is closed$/);
    await expect(loadAllowlists({ cwd: dir, dirs: [], files: ["nope.json"] })).rejects.toThrow(/nope\.json: allowlist file not found/);
  });
});
