import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { referenceLanes, runCli } from "./run-cli.js";

const lanePath = (cell: string) => path.join(referenceLanes, `${cell}.events.json`);

describe("parity diff: lanes on one side only (new-user trial: a checkout vs a rerecord --out dir)", () => {
  let dir: string;
  let a: string;
  let b: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-ux-diff-"));
    a = path.join(dir, "a");
    b = path.join(dir, "b");
    for (const side of [a, b]) await mkdir(path.join(side, "lanes", "acp-cursor"), { recursive: true });
    await copyFile(lanePath("resume"), path.join(a, "lanes", "acp-cursor", "resume.json"));
    await copyFile(lanePath("resume"), path.join(b, "lanes", "acp-cursor", "resume.json"));
    await copyFile(lanePath("turn-tools"), path.join(b, "lanes", "acp-cursor", "turn-tools.json"));
    await copyFile(lanePath("subagent"), path.join(a, "lanes", "acp-cursor", "subagent.json"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("summarizes an added and a removed lane in one line each, whatever --context says", async () => {
    for (const context of [[], ["--context", "0"]]) {
      const result = await runCli(["diff", a, b, ...context]);
      expect(result.err).toBe("");
      expect(result.code).toBe(1);
      expect(result.out).toMatch(/^\+ lanes\/acp-cursor\/turn-tools\.json: added \(98 events\)$/m);
      expect(result.out).toMatch(/^- lanes\/acp-cursor\/subagent\.json: removed \(\d+ events\)$/m);
      expect(result.out).not.toContain('"type"');
      expect(result.out).toContain("0 changed, 1 added, 1 removed, 1 unchanged (3 lanes)");
      expect(result.out.split("\n").length).toBeLessThan(8);
    }
  });

  it("prints the whole lane with --full, and --json always keeps the full patch", async () => {
    const full = await runCli(["diff", a, b, "--full"]);
    expect(full.code).toBe(1);
    expect(full.out).toContain("added   acp-cursor/turn-tools  only in b (98 events)");
    // One row per event.
    expect(full.out.split("\n").filter((row) => row.startsWith("  + {")).length).toBe(98);

    const json = JSON.parse((await runCli(["diff", a, b, "--json"])).out);
    const added = json.lanes.find((l: { key: string }) => l.key === "acp-cursor/turn-tools");
    expect(added.status).toBe("added");
    expect(added.patch.split("\n").filter((row: string) => row.startsWith("+{")).length).toBe(98);
  });

  it("documents --full in diff --help", async () => {
    const help = await runCli(["diff", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("--full");
    expect(help.out).toContain("one line each");
  });
});
