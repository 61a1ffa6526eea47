import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InputError, UsageError } from "../../harness/errors.js";
import { CELL_FILE, cellVariantPath, listCells, loadCell } from "../../harness/runtime/cells.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// Every committed echo recording must come back out of `parity record --provider echo --cell
// <cell>` with the same thread lane: the new-user trial found cells/ recording something else
// (zero-work echoed a sentence; turn had no cell at all). The committed recordings are listed
// from recordings/echo/, so a new one is covered without touching this file.

const cellsRoot = path.join(repoRoot, "cells");
const committedCells = readdirSync(path.join(repoRoot, "recordings", "echo"), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "echo-reproducible-"));
  dirs.push(dir);
  return dir;
}

describe("committed echo recordings are reproducible from cells/", () => {
  it("the committed echo cells are the four the echo was recorded for", () => {
    expect(committedCells).toEqual(["resume", "stop-interrupt", "turn", "zero-work"]);
  });

  it.each(committedCells)("parity record --provider echo --cell %s gives the committed oracle byte for byte", async (cell) => {
    const out = path.join(scratch(), "rec");
    const result = await runCli(["record", "--provider", "echo", "--cell", cell, "--cells", cellsRoot, "--out", out], { ci: true });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const recorded = readFileSync(path.join(out, "lanes", "echo", `${cell}.json`), "utf8");
    const committed = readFileSync(path.join(repoRoot, "lanes", "echo", `${cell}.json`), "utf8");
    expect(JSON.parse(recorded)).toEqual(JSON.parse(committed));
    expect(recorded).toBe(committed);

    // The manifest says the same thing made it: same thread, description, runs and line counts.
    const fresh = (await readRecording(path.join(out, "echo", cell))).manifest;
    const old = (await readRecording(path.join(repoRoot, "recordings", "echo", cell))).manifest;
    for (const field of ["provider", "cell", "threadId", "scope", "description", "bridgeRuns", "lines"] as const) {
      expect(fresh[field], field).toEqual(old[field]);
    }
  });
});

describe("cell variants (cells/<cell>/providers/<provider>.json)", () => {
  it("leave cell.json as it was for every other provider and for callers that name none", async () => {
    const plain = await loadCell(cellsRoot, "zero-work");
    expect(plain.variantFile).toBeNull();
    expect(plain.file).toBe(path.join(cellsRoot, "zero-work", CELL_FILE));
    expect(plain.definition.steps[2]).toMatchObject({ op: "turn/start", text: "Reply with nothing at all." });
    expect(plain.definition.threadId).toBe("thr_zero_work");
    expect((await loadCell(cellsRoot, "zero-work", "acp-opencode")).definition).toEqual(plain.definition);
    expect((await loadCell(cellsRoot, "stop-interrupt", "acp-omp")).definition).toEqual((await loadCell(cellsRoot, "stop-interrupt")).definition);
  });

  it("replace the fields they name, each whole, and keep the rest of cell.json", async () => {
    const base = (await loadCell(cellsRoot, "resume")).definition;
    const echo = await loadCell(cellsRoot, "resume", "echo");
    expect(echo.variantFile).toBe(cellVariantPath(cellsRoot, "resume", "echo"));
    expect(echo.definition.threadId).toBe("thr_echo_resume");
    expect(echo.definition.steps).toEqual(base.steps);
    expect(echo.definition.model).toEqual(base.model);
    const zero = await loadCell(cellsRoot, "zero-work", "echo");
    expect(zero.definition.steps).toEqual([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "/clear", until: "turn/completed" }]);
  });

  it("a cell with only a variant exists for that provider alone and stays out of the QA matrix", async () => {
    expect(await listCells(cellsRoot)).not.toContain("turn");
    const echo = await loadCell(cellsRoot, "turn", "echo");
    expect(echo.file).toBe(cellVariantPath(cellsRoot, "turn", "echo"));
    expect(echo.definition.steps.map((s) => s.op)).toEqual(["initialize", "thread/start", "turn/start"]);
    const error = await loadCell(cellsRoot, "turn", "acp-opencode").catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/^unknown cell "turn" \(no .*cell\.json\); cells\/turn has a variant only for echo; known: /);
    const result = await runCli(["record", "--provider", "acp-opencode", "--cell", "turn", "--cells", cellsRoot, "--out", path.join(scratch(), "rec")], { ci: true });
    expect(result.code).toBe(2);
    expect(result.err).toContain("cells/turn has a variant only for echo");
  });

  it("a bad variant is refused naming the variant file and field; a bad cell.json is still reported against cell.json", async () => {
    const root = path.join(scratch(), "cells");
    cpSync(path.join(cellsRoot, "zero-work"), path.join(root, "zero-work"), { recursive: true });
    const variant = cellVariantPath(root, "zero-work", "echo");
    const refusal = async (provider: string) => {
      const thrown = await loadCell(root, "zero-work", provider).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(InputError);
      return thrown as InputError;
    };

    writeFileSync(variant, JSON.stringify({ steps: [{ op: "thread/start" }] }));
    let error = await refusal("echo");
    expect(error.problem).toBe("invalid cell: field `steps.0.op`: the first step must be initialize");
    expect(error.file).toBe(variant);

    writeFileSync(variant, "[1]");
    error = await refusal("echo");
    expect(error.problem).toMatch(/^invalid cell variant: expected a JSON object/);
    expect(error.file).toBe(variant);

    writeFileSync(variant, "{not json");
    expect((await refusal("echo")).problem).toMatch(/^cell variant is not valid JSON/);

    writeFileSync(variant, JSON.stringify({ threadId: "thr_x" }));
    const cellFile = path.join(root, "zero-work", CELL_FILE);
    writeFileSync(cellFile, JSON.stringify({ ...JSON.parse(readFileSync(cellFile, "utf8")), description: "" }));
    error = await refusal("echo");
    expect(error.file).toBe(cellFile);
    expect(error.problem).toMatch(/^invalid cell: field `description`/);

    mkdirSync(path.join(root, "other", "providers"), { recursive: true });
    writeFileSync(cellVariantPath(root, "other", "echo"), JSON.stringify({ threadId: "thr_o", steps: [{ op: "initialize" }] }));
    const missing = await loadCell(root, "other", "echo").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(InputError);
    expect((missing as InputError).problem).toMatch(/^invalid cell: missing field `description`/);
  });
});
