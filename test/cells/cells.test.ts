import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InputError, UsageError } from "../../harness/errors.js";
import { CELL_FILE, listCells, loadCell, parseCellDefinition } from "../../harness/runtime/cells.js";
import { repoRoot } from "../cli/run-cli.js";

const cellsRoot = path.join(repoRoot, "cells");
const MATRIX = [
  "approval-allow",
  "approval-deny",
  "command-fails",
  "command-signal",
  "exact-bytes",
  "fork",
  "long-output",
  "model-error",
  "model-list",
  "new-file-folder",
  "resume",
  "steer",
  "stop-interrupt",
  "subagent",
  "turn-tools",
  "two-tool-calls",
  "user-question",
  "web-search",
  "zero-work",
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp copy of the committed cells with one cell's definition edited. */
function cellsWith(cell: string, edit: (definition: Record<string, any>) => void): string {
  const root = mkdtempSync(path.join(tmpdir(), "cells-test-"));
  dirs.push(root);
  cpSync(cellsRoot, root, { recursive: true });
  const file = path.join(root, cell, CELL_FILE);
  const definition = JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;
  edit(definition);
  writeFileSync(file, JSON.stringify(definition));
  return root;
}

describe("committed cells", () => {
  it("define the whole QA matrix, each valid", async () => {
    expect(await listCells(cellsRoot)).toEqual(MATRIX);
    for (const name of MATRIX) {
      const cell = await loadCell(cellsRoot, name);
      expect(cell.definition.steps[0]).toEqual({ op: "initialize" });
      expect(cell.definition.description.length).toBeGreaterThan(10);
    }
  });

  it("thread cells start a thread; model-list is process-scoped; approval cells answer", async () => {
    for (const name of MATRIX) {
      const { definition } = await loadCell(cellsRoot, name);
      if (name === "model-list") {
        expect(definition.scope).toBe("process");
        expect(definition.steps.map((s) => s.op)).toEqual(["initialize", "model/list"]);
      } else {
        expect(definition.scope).toBe("thread");
        expect(definition.steps[1]?.op).toBe("thread/start");
      }
    }
    expect((await loadCell(cellsRoot, "approval-allow")).definition.answers).toEqual([{ kind: "approval", decision: "allow_once" }]);
    expect((await loadCell(cellsRoot, "approval-deny")).definition.answers).toEqual([{ kind: "approval", decision: "deny" }]);
  });

  it("turn-tools copies its workspace fixture and scripts read, edit and bash", async () => {
    const cell = await loadCell(cellsRoot, "turn-tools");
    expect(cell.workspace).toBe(path.join(cellsRoot, "turn-tools", "workspace"));
    const tools = cell.definition.model?.responses.flatMap((r) => (r.toolCalls ?? []).map((c) => c.name));
    expect(tools).toEqual(["read", "edit", "bash"]);
  });
});

describe("bad cell definitions are rejected with their file and field", () => {
  const rejects = async (root: string, cell: string, field: string) => {
    const error = await loadCell(root, cell).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InputError);
    const input = error as InputError;
    expect(input.exitCode).toBe(2);
    expect(input.file).toBe(path.join(root, cell, CELL_FILE));
    expect(input.message).toContain(`field \`${field}\``);
    expect(input.message.split("\n")).toHaveLength(1);
  };

  it("an empty prompt", async () => {
    await rejects(cellsWith("turn-tools", (d) => (d.steps[2].text = "")), "turn-tools", "steps.2.text");
  });

  it("an unknown step op", async () => {
    await rejects(cellsWith("resume", (d) => (d.steps[1] = { op: "thread/explode" })), "resume", "steps.1.op");
  });

  it("an unknown top-level field", async () => {
    await rejects(cellsWith("steer", (d) => (d.extra = true)), "steer", "(cell)");
  });

  it("a bad approval decision", async () => {
    await rejects(cellsWith("approval-allow", (d) => (d.answers[0].decision = "maybe")), "approval-allow", "answers.0.decision");
  });

  it("a model response with neither text nor tool calls", async () => {
    await rejects(cellsWith("turn-tools", (d) => (d.model.responses[1] = {})), "turn-tools", "model.responses.1");
  });

  it("a script that does not start with initialize", async () => {
    await rejects(cellsWith("zero-work", (d) => d.steps.shift()), "zero-work", "steps.0.op");
  });

  it("text that is not JSON", () => {
    expect(() => parseCellDefinition("{ nope", "cells/x/cell.json")).toThrow(/^cells\/x\/cell\.json: cell definition is not valid JSON/);
  });

  it("an unknown cell names the known ones; a bad name is a usage error", async () => {
    await expect(loadCell(cellsRoot, "no-such-cell")).rejects.toThrow(UsageError);
    await expect(loadCell(cellsRoot, "no-such-cell")).rejects.toThrow(/known: approval-allow, approval-deny/);
    await expect(loadCell(cellsRoot, "../etc")).rejects.toThrow(/lowercase words/);
  });
});
