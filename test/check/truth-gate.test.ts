import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cellStatus } from "../../harness/check/cell-status.js";
import type { TruthFinding } from "../../harness/compare/truth/judge.js";
import { factMatches, maskTruth, parseTruthAllowlist, staleTruthEntries } from "../../harness/compare/truth/truth-allowlist.js";
import { shownValue, visible } from "../../harness/report/truth-text.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

describe("cellStatus: untrue beside pass and fail", () => {
  const clean = { replay: "clean", oracle: "compared", verdictPassed: true } as const;
  it("a lane the same as its oracle that contradicts its facts is untrue; true or unjudged passes", () => {
    expect(cellStatus({ ...clean, truth: "untrue" })).toBe("untrue");
    expect(cellStatus({ ...clean, truth: "true" })).toBe("pass");
    expect(cellStatus({ ...clean, truth: "unjudged" })).toBe("pass");
    expect(cellStatus(clean)).toBe("pass");
  });
  it("a changed, diverged or timed-out cell keeps its status whatever its truth", () => {
    expect(cellStatus({ ...clean, verdictPassed: false, truth: "untrue" })).toBe("fail");
    expect(cellStatus({ ...clean, replay: "diverged", truth: "untrue" })).toBe("fail");
    expect(cellStatus({ ...clean, replay: "timeout", truth: "untrue" })).toBe("timeout");
  });
});

describe("truth allowlist entries", () => {
  const entry = (fields: Record<string, string>) =>
    parseTruthAllowlist([{ provider: "acp-x", cell: "*", layer: "truth", fact: "command.exit", pr: "#37", reason: "no exit code", ...fields }], "t.json", "/p")[0]!;
  const finding = (fact: string, cause: TruthFinding["cause"]): TruthFinding => ({ fact, kind: "lost", cause, field: "item.exitCode", why: "", evidence: [] });

  it("a fact selector names a kind, optionally the n-th step, and a field or *", () => {
    expect(factMatches("command.exit", "command#2.exit")).toBe(true);
    expect(factMatches("command#1.exit", "command#2.exit")).toBe(false);
    expect(factMatches("*.output", "command#1.output")).toBe(true);
    expect(factMatches("turn.*", "turn#1.end")).toBe(true);
    expect(factMatches("command.exit", "command+1.item")).toBe(false);
  });

  it("a bad entry is one line naming the file and entry", () => {
    expect(() => parseTruthAllowlist([{ provider: "p", cell: "c", layer: "truth", fact: "exit", pr: "#37", reason: "r" }], "t.json", "/p")).toThrow(/t\.json: entry 0: fact: fact must be a selector/);
    expect(() => parseTruthAllowlist([{ provider: "p", cell: "c", layer: "truth", fact: "command.exit", pr: "37", reason: "r" }], "t.json", "/p")).toThrow(/entry 0: pr:/);
  });

  it("masks the adapter's untruth, never the bridge's", () => {
    const e = entry({});
    const masked = maskTruth([finding("command#1.exit", "adapter"), finding("command#2.exit", "bridge")], [], [e], { provider: "acp-x", cell: "c" });
    expect(masked.findings.map((f) => f.fact)).toEqual(["command#2.exit"]);
    expect(masked.masked.map((f) => f.fact)).toEqual(["command#1.exit"]);
  });

  it("a wildcard entry is stale only when it masks nothing over every cell it applies to that has a fact it selects", () => {
    const e = entry({});
    const judged = [{ fact: "command#1.exit", verdict: "true" as const }];
    const cellA = maskTruth([], judged, [e], { provider: "acp-x", cell: "a" }).entries;
    const cellB = maskTruth([finding("command#1.exit", "adapter")], judged, [e], { provider: "acp-x", cell: "b" }).entries;
    const noCommands = maskTruth([], [{ fact: "turn#1.end", verdict: "true" }], [e], { provider: "acp-x", cell: "z" }).entries;
    expect(staleTruthEntries([cellA, cellB])).toEqual([]);
    expect(staleTruthEntries([cellA])).toEqual([e]);
    // A selection without a fact the entry selects (a zero-work cell) says nothing about it.
    expect(staleTruthEntries([noCommands])).toEqual([]);
  });
});

describe("strings from files are shown with their control characters visible", () => {
  it("escapes, carriage returns, bidi overrides and zero-width characters", () => {
    expect(visible("a\u001b[31mred\r\n\u202eevil\u200b\\")).toBe("a\\e[31mred\\r\\n\\u202eevil\\u200b\\\\");
    expect(shownValue("x\ty")).toBe('"x\\ty"');
    expect(shownValue(undefined)).toBe("(none)");
  });
});

describe("parity check and the facts files", () => {
  async function project(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-facts-gate-"));
    temps.push(dir);
    await cp(path.join(repoRoot, "cells", "command-fails"), path.join(dir, "cells", "command-fails"), { recursive: true });
    await cp(path.join(repoRoot, "recordings", "codex", "command-fails"), path.join(dir, "recordings", "codex", "command-fails"), { recursive: true });
    await mkdir(path.join(dir, "lanes", "codex"), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "codex", "command-fails.json"), path.join(dir, "lanes", "codex", "command-fails.json"));
    return dir;
  }
  const check = (dir: string, extra: string[] = []) => runCli(["check", "--provider", "codex", "--cell", "command-fails", ...extra], { cwd: dir, ci: true });

  it("fresh facts: the cell is judged and every fact is true", async () => {
    const dir = await project();
    const r = await check(dir, ["--reporter", "json"]);
    expect(r.code, r.err).toBe(0);
    const cell = JSON.parse(r.out).cells[0];
    expect(cell.truth).toMatchObject({ facts: "judged", file: path.join("cells", "command-fails", "facts.json"), findings: [] });
    expect(cell.truth.table.every((j: { verdict: string }) => j.verdict === "true")).toBe(true);
  });

  it("stale facts (the cell changed since they were computed): exit 2, one line naming the file and the command", async () => {
    const dir = await project();
    const file = path.join(dir, "cells", "command-fails", "cell.json");
    const cell = JSON.parse(await readFile(file, "utf8"));
    cell.model.responses[0].toolCalls[0].arguments.command = "sh -c 'echo other'";
    await writeFile(file, JSON.stringify(cell, null, 2));
    const r = await check(dir);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err.trimEnd().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(/cells\/command-fails\/facts\.json: stale facts: .*run `parity facts --cell command-fails`/);
  });

  it("a cell with no facts at all is not judged, and says so; once the cell has facts, a missing file fails the cell (untrue)", async () => {
    const dir = await project();
    await rm(path.join(dir, "cells", "command-fails", "facts.json"));
    const none = await check(dir);
    expect(none.code, none.err).toBe(0);
    expect(none.out).toContain("truth: no facts yet");

    await mkdir(path.join(dir, "cells", "command-fails", "facts"));
    const missing = await check(dir);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/UNTRUE codex\/command-fails/);
    expect(missing.out).toContain("missing facts cells/command-fails/facts.json");
  });
});
