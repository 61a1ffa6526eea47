import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stablePathFor } from "../../harness/compare/migrate.js";
import { maskLane } from "../../harness/compare/mask.js";
import { recordingIdentity } from "../../harness/recording/identity.js";
import { referenceLanes, repoRoot, runCli } from "./run-cli.js";

const base = { provider: "acp-cursor", recordings: "../shared/recordings", layer: "events", pr: "#5", reason: "intended" };
const COMMAND_OUTPUT = /^\/\*\[turn=1\]\[item=commandExecution:\d+\]\[type=item\/completed\]\/item\/aggregatedOutput$/;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "allow-migrate-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parity allow --migrate", () => {
  // Positions count after the cell's whole-event entries remove their events (allowlists/acp-cursor.json
  // removes the reference bridge's generic Edit File events, #37): the command's completion is /84.
  it("rewrites positional entries as selectors checked on the replayed cell, and keeps the rest", async () => {
    const file = path.join(dir, "positional.json");
    const entries = [
      { ...base, cell: "turn-tools", path: "/84/item/aggregatedOutput" },
      { ...base, cell: "turn-tools", path: "/*/item/arguments" },
      { ...base, cell: "*", path: "/3/scope/kind" },
    ];
    await writeFile(file, `${JSON.stringify(entries, null, 2)}\n`);
    const result = await runCli(["allow", "--migrate", file]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const migrated = JSON.parse(await readFile(file, "utf8")) as Array<{ path: string }>;
    expect(migrated[0]!.path).toMatch(COMMAND_OUTPUT);
    expect(migrated[1]!.path).toBe("/*/item/arguments");
    expect(migrated[2]!.path).toBe("/3/scope/kind");
    expect(result.out).toContain(`entry 0: /84/item/aggregatedOutput → ${migrated[0]!.path}`);
    expect(result.out).toContain("entry 2: /3/scope/kind kept: applies to several cells");
    expect(result.out).toMatch(/1 of 2 positional entries now use stable selectors; the rest still load as they are/);
  });

  it("parity allow writes the selector for a position it can check on the cell's lanes", async () => {
    const file = path.join(dir, "new.json");
    const result = await runCli([
      "allow",
      ...["--provider", "acp-cursor", "--cell", "turn-tools", "--recordings", "../shared/recordings"],
      ...["--path", "/84/item/aggregatedOutput", "--pr", "#5", "--reason", "stdout", "--file", file],
    ]);
    expect(result.code).toBe(0);
    const [entry] = JSON.parse(await readFile(file, "utf8")) as Array<{ path: string }>;
    expect(entry!.path).toMatch(COMMAND_OUTPUT);
    expect(result.out).toContain("is a position; writing the selector that masks the same values");
  });

  // From a project not beside shared/ (as a clone elsewhere is), an entry whose root is not there is
  // found by its recordingId under --recordings, as check applies it (compare/allowlist.ts entryApplies);
  // before, --migrate looked under the root alone and kept the entry ("no replayable recording").
  it("finds an entry's recording by its recordingId when its root is not there (--recordings)", async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), "allow-migrate-elsewhere-"));
    try {
      const recordings = path.join(project, "copy", "recordings");
      await cp(path.join(repoRoot, "recordings", "acp-cursor", "turn-tools"), path.join(recordings, "acp-cursor", "turn-tools"), { recursive: true });
      const recordingId = recordingIdentity(path.join(recordings, "acp-cursor", "turn-tools"))!;
      const file = path.join(project, "elsewhere.json");
      // The project's turn-tools fixture: its command's completion is event 15 of the lane.
      const entries = [{ ...base, cell: "turn-tools", recordingId, path: "/15/item/aggregatedOutput" }];
      await writeFile(file, `${JSON.stringify(entries, null, 2)}\n`);
      const without = await runCli(["allow", "--migrate", file], { cwd: project });
      expect(without.out).toContain(
        `entry 0: /15/item/aggregatedOutput kept: no replayable recording of acp-cursor/turn-tools under ../shared/recordings, nor its recording ${recordingId} under recordings`,
      );
      const result = await runCli(["allow", "--migrate", file, "--recordings", recordings], { cwd: project });
      expect([result.code, result.err]).toEqual([0, ""]);
      const [migrated] = JSON.parse(await readFile(file, "utf8")) as Array<{ path: string; recordingId: string; recordings: string }>;
      expect(migrated!.path).toMatch(COMMAND_OUTPUT);
      expect([migrated!.recordings, migrated!.recordingId]).toEqual(["../shared/recordings", recordingId]);
      expect(result.out).toContain("1 of 1 positional entries now use stable selectors");
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it("names a file outside the project by its absolute path, as the README's tour migrates a copy in a scratch dir", async () => {
    const file = path.join(dir, "acp-cursor.json");
    await writeFile(file, await readFile(path.join(repoRoot, "allowlists", "acp-cursor.json"), "utf8"));
    const result = await runCli(["allow", "--migrate", file]);
    expect([result.code, result.err]).toEqual([0, ""]);
    expect(result.out).toBe(`${file}: no positional entries, nothing to migrate\n`);
  });

  it("refuses entry flags beside --migrate, and asks for them without it", async () => {
    const both = await runCli(["allow", "--migrate", "x.json", "--cell", "turn-tools"]);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--migrate rewrites a whole file: drop --cell/);
    const none = await runCli(["allow", "--provider", "acp-cursor"]);
    expect(none.code).toBe(2);
    expect(none.err).toBe("parity: missing --cell, --path, --pr, --reason (or --migrate <file>, or --prune): see parity allow --help\n");
  });
});

describe("stablePathFor", () => {
  it("names the item by its place in the turn when the change is the item's type itself", async () => {
    const oracle = JSON.parse(await readFile(path.join(referenceLanes, "subagent.events.json"), "utf8")) as Array<Record<string, any>>;
    const at = oracle.findIndex((e) => e.type === "item/started" && e.item?.type === "toolCall");
    const live = structuredClone(oracle);
    live[at]!.item.type = "delegation";
    const entry = { provider: "acp-cursor", cell: "subagent", layer: "events" as const, path: `/${at}/item/type`, pr: "#5", reason: "r" };
    const result = stablePathFor(entry, [], [live, oracle]);
    expect(result).toHaveProperty("path");
    const selector = (result as { path: string }).path;
    // The typed form would name a delegation on one side and a toolCall on the other.
    expect(selector).toMatch(/^\/\*\[turn=1\]\[item=\d+\]\[type=item\/started\]\/item\/type$/);
    for (const lane of [live, oracle]) {
      expect(maskLane(lane, [{ ...entry, path: selector }]).lane).toEqual(maskLane(lane, [entry]).lane);
    }
  });

  it("reports a position that masks nothing", () => {
    const entry = { provider: "p", cell: "c", layer: "events" as const, path: "/0/item/nothing", pr: "#5", reason: "r" };
    expect(stablePathFor(entry, [], [[{ type: "turn/started" }]])).toEqual({ problem: "masks nothing on the cell's 1 lane(s)" });
  });
});
