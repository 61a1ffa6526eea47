import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { DriftReport } from "../../harness/cli/drift.js";
import { keyedListChange, keyedLists } from "../../harness/compare/lane-drift.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 41: `parity drift` names what changed between two sets of recordings of one provider —
// on the agent's own wire and in the thread lanes — once per change, with the cells it is in.
// The "new version" here is a copy of the committed opencode recordings with three changes an
// agent release makes: a new field on every tool update, a field renamed, and one more model in
// its catalog.
describe("parity drift", () => {
  let work: string;
  let from: string;
  let to: string;
  const cells = ["command-fails", "turn-tools"];
  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), "parity-drift-"));
    from = path.join(work, "pinned");
    to = path.join(work, "next");
    for (const cell of cells) {
      await cp(path.join(repoRoot, "recordings", "acp-opencode", cell), path.join(from, "acp-opencode", cell), { recursive: true });
      await cp(path.join(repoRoot, "recordings", "acp-opencode", cell), path.join(to, "acp-opencode", cell), { recursive: true });
      const agentLane = path.join(to, "acp-opencode", cell, "provider→bridge.ndjson");
      const doctored = (await readFile(agentLane, "utf8"))
        .split("\n")
        .map((text) => {
          if (text === "") return text;
          const entry = JSON.parse(text) as { line: string };
          const message = JSON.parse(entry.line) as { params?: { update?: Record<string, unknown> } };
          const update = message.params?.update;
          if (update?.sessionUpdate === "tool_call_update") {
            update._meta = { opencode: { elapsedMs: 12 } };
            if ("locations" in update) {
              update.places = update.locations;
              delete update.locations;
            }
          }
          return JSON.stringify({ ...entry, line: JSON.stringify(message) });
        })
        .join("\n");
      await writeFile(agentLane, doctored);
      // The bridge lane the thread lane is built from: today's bridge's (.current) when the recording has one.
      const current = path.join(to, "acp-opencode", cell, "bridge→runtime.current.ndjson");
      const bridgeLane = existsSync(current) ? current : path.join(to, "acp-opencode", cell, "bridge→runtime.ndjson");
      const text = await readFile(bridgeLane, "utf8");
      const model = '{\\"value\\":\\"opencode/big-pickle\\",';
      expect(text).toContain(model);
      await writeFile(bridgeLane, text.replace(model, `{\\"value\\":\\"opencode/new-model\\",\\"name\\":\\"OpenCode Zen/New Model\\"},${model}`));
    }
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test("names each wire change once with its cells, and an inserted catalog entry as one insertion", async () => {
    const r = await runCli(["drift", "--provider", "acp-opencode", "--from", from, "--to", to, "--json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(1); // the lanes changed
    const report = JSON.parse(r.out) as DriftReport;
    expect(report.common).toEqual(cells);
    const kind = "provider→bridge session/update:tool_call_update";
    const wire = report.wire.map((w) => [w.change, w.kind, w.path, w.cells]);
    expect(wire).toContainEqual(["field added", kind, "params.update._meta.opencode.elapsedMs", cells]);
    expect(wire).toContainEqual(["field added", kind, "params.update.places", cells]);
    expect(wire).toContainEqual(["field removed", kind, "params.update.locations", cells]);
    // Once each: no change is repeated per cell.
    expect(new Set(report.wire.map((w) => `${w.change} ${w.kind} ${w.path}`)).size).toBe(report.wire.length);
    // The catalog grew by one model: one insertion, in both cells.
    expect(report.lanes).toHaveLength(1);
    expect(report.lanes[0]).toMatchObject({ op: "add", new: { value: "opencode/new-model", name: "OpenCode Zen/New Model" }, cells });
  });

  test("the same recordings on both sides: no change, exit 0; the text names the versions", async () => {
    const r = await runCli(["drift", "--provider", "acp-opencode", "--from", from, "--to", from]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("drift of acp-opencode: opencode 1.18.33");
    expect(r.out).toContain("wire (the agent's own lanes): 0 changes");
    expect(r.out).toContain("the thread lanes did not change");
  });

  test("one cell is said as one cell (a drift of one cell read `1 cells compared`)", async () => {
    const one = path.join(work, "one");
    await cp(path.join(from, "acp-opencode", "turn-tools"), path.join(one, "acp-opencode", "turn-tools"), { recursive: true });
    const r = await runCli(["drift", "--provider", "acp-opencode", "--from", one, "--to", one]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe(`drift of acp-opencode: opencode 1.18.33 (${one}, 1 cell) → opencode 1.18.33 (${one}, 1 cell); 1 cell compared`);
  });

  test("the versions each side's oracles were accepted from: the project's lanes/ for its recordings/, <root>/lanes/ beside a recorded folder", async () => {
    await cp(path.join(repoRoot, "lanes", "acp-opencode", "turn-tools.version"), path.join(to, "lanes", "acp-opencode", "turn-tools.version"));
    await writeFile(path.join(to, "lanes", "acp-opencode", "command-fails.version"), `${JSON.stringify({ cliVersion: "opencode 1.18.34" })}\n`);
    const r = await runCli(["drift", "--provider", "acp-opencode", "--from", "recordings", "--to", to, "--cell", "turn-tools", "--json"]);
    const report = JSON.parse(r.out) as DriftReport;
    expect(report.from.oracleVersions).toEqual(["opencode 1.18.33"]);
    expect(report.to.oracleVersions).toEqual(["opencode 1.18.33", "opencode 1.18.34"]);
    const text = await runCli(["drift", "--provider", "acp-opencode", "--from", "recordings", "--to", to]);
    expect(text.out).toContain("\n  --from oracles accepted from opencode 1.18.33\n  --to oracles accepted from opencode 1.18.33, opencode 1.18.34\n");
    await rm(path.join(to, "lanes"), { recursive: true });
  });

  test("a folder with no recording of the provider: one line, exit 2", async () => {
    const r = await runCli(["drift", "--provider", "codex", "--from", from, "--to", to]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: --from .*: no recording of codex under it\n$/);
  });

  test("keyedLists turns a list of named things into a map by its key", () => {
    expect(keyedLists([{ value: "a", n: 1 }, { value: "b" }])).toEqual({ "value=a": { value: "a", n: 1 }, "value=b": { value: "b" } });
    expect(keyedLists([{ name: "x" }, { name: "x" }])).toEqual([{ name: "x" }, { name: "x" }]);
    expect(keyedLists([1, 2])).toEqual([1, 2]);
  });

  test("keyedListChange names a keyed list's entries added, changed and removed; undefined for what is not such a list", () => {
    const old = [{ id: "a" }, { id: "b", label: "B" }, { id: "c" }];
    expect(keyedListChange(old, [{ id: "a" }, { id: "n" }, { id: "b", label: "B2" }])).toEqual(["+ id=n", "~ id=b", "- id=c"]);
    expect(keyedListChange(old, old)).toBeUndefined();
    expect(keyedListChange([1, 2], [1, 3])).toBeUndefined();
    expect(keyedListChange(old, [{ name: "a" }, { name: "b" }])).toBeUndefined(); // keyed differently
    expect(keyedListChange("x", "y")).toBeUndefined();
  });
});
