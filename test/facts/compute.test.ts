import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeCellFacts } from "../../harness/facts/compute.js";
import { factsSource } from "../../harness/facts/source.js";
import type { CellFacts, CommandFact, FileChangeFact, ReadFact } from "../../harness/facts/schema.js";
import { detectNetworkIsolation } from "../../harness/record/network.js";

// One tiny cell, written here, whose facts are computed for real (commands run in the record
// sandbox: a network namespace with only loopback where this machine allows it).
const root = mkdtempSync(path.join(os.tmpdir(), "facts-compute-"));
const cellsRoot = path.join(root, "cells");
const isolation = detectNetworkIsolation("auto");

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const CELL = {
  description: "Facts of every kind of step.",
  threadId: "thr_facts",
  options: { permissionMode: "ask" },
  steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "Go." }],
  answers: [
    { kind: "approval", decision: "allow_once" },
    { kind: "approval", decision: "deny" },
  ],
  model: {
    responses: [
      {
        text: "Two at once.",
        toolCalls: [call("bash", { command: "sh -c 'echo first line; echo second line; echo something went wrong >&2; exit 3'" }), call("read", { filePath: "{{cwd}}/notes.txt" })],
      },
      { toolCalls: [call("bash", { command: "touch denied.txt" })] },
      { toolCalls: [call("bash", { command: "sh -c 'kill -TERM $$'" })] },
      { toolCalls: [call("write", { filePath: "{{cwd}}/src/new/file.txt", content: "made\n" })] },
      { toolCalls: [call("bash", { command: "printf 'tab\\there\\r\\nback\\\\slash \\033[1mbold\\033[0m\\r' ; pwd; ls src/new denied.txt" })] },
      { toolCalls: [call("edit", { filePath: "notes.txt", oldString: "draft", newString: "final" }), call("edit", { filePath: "notes.txt", oldString: "absent", newString: "x" })] },
      { toolCalls: [call("read", { filePath: "missing.txt" }), call("websearch", { query: "ACP" })] },
      { text: "Done." },
    ],
  },
};

let facts: CellFacts;

beforeAll(async () => {
  mkdirSync(path.join(cellsRoot, "tiny", "workspace"), { recursive: true });
  writeFileSync(path.join(cellsRoot, "tiny", "cell.json"), JSON.stringify(CELL, null, 2));
  writeFileSync(path.join(cellsRoot, "tiny", "workspace", "notes.txt"), "status: draft\r\nowner: \u00e9\n");
  facts = await computeCellFacts({ cellsRoot, cell: "tiny", variant: null, isolation, tempParent: root });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const step = <T>(response: number, index: number) => facts.steps.find((s) => s.response === response && s.call === index) as T;

describe("computeCellFacts on a tiny cell", () => {
  it("carries the cell, its source hash and one step per tool call in script order, two from one answer", async () => {
    expect(facts.cell).toBe("tiny");
    expect(facts.variant).toBeNull();
    expect(facts.source).toBe(await factsSource(cellsRoot, "tiny", null));
    expect(facts.steps.map((s) => [s.response, s.call, s.tool, s.kind])).toEqual([
      [0, 0, "bash", "command"],
      [0, 1, "read", "read"],
      [1, 0, "bash", "command"],
      [2, 0, "bash", "command"],
      [3, 0, "write", "write"],
      [4, 0, "bash", "command"],
      [5, 0, "edit", "edit"],
      [5, 1, "edit", "edit"],
      [6, 0, "read", "read"],
      [6, 1, "websearch", "other"],
    ]);
  });

  it("a command's exact stdout and stderr with their trailing newlines, and its exit code", () => {
    expect(step<CommandFact>(0, 0)).toMatchObject({ cwd: ".", approval: "allow_once", ran: true, stdout: "first line\nsecond line\n", stderr: "something went wrong\n", exit: { code: 3 } });
  });

  it("a read's exact bytes, \\r and non-ASCII kept", () => {
    expect(step<ReadFact>(0, 1)).toEqual({ response: 0, call: 1, tool: "read", kind: "read", path: "notes.txt", exists: true, content: "status: draft\r\nowner: \u00e9\n" });
  });

  it("a denied command did not run: no output, no exit, no file", () => {
    expect(step<CommandFact>(1, 0)).toMatchObject({ approval: "deny", ran: false, stdout: null, stderr: null, exit: null });
    expect(step<CommandFact>(4, 0).stderr).toContain("denied.txt");
  });

  it("a command ended by a signal is that signal, not an exit code", () => {
    expect(step<CommandFact>(2, 0)).toMatchObject({ approval: null, ran: true, stdout: "", stderr: "", exit: { signal: "SIGTERM" } });
  });

  it("a new file in a new folder: before null, created, and there for the next command", () => {
    expect(step<FileChangeFact>(3, 0)).toMatchObject({ kind: "write", path: "src/new/file.txt", before: null, after: "made\n", created: true, error: null });
    expect(step<CommandFact>(4, 0).stdout).toContain("{{cwd}}\nsrc/new:\nfile.txt\n");
  });

  it("exact bytes of an output: tabs, escapes, carriage returns, the workspace path as {{cwd}}", () => {
    expect(step<CommandFact>(4, 0).stdout).toBe("tab\there\r\nback\\slash \u001b[1mbold\u001b[0m\r{{cwd}}\nsrc/new:\nfile.txt\n");
    expect(step<CommandFact>(4, 0).exit).toEqual({ code: 2 });
  });

  it("an edit sees the file as earlier steps left it; one that cannot apply says why and changes nothing", () => {
    expect(step<FileChangeFact>(5, 0)).toMatchObject({ before: "status: draft\r\nowner: \u00e9\n", after: "status: final\r\nowner: \u00e9\n", created: false, error: null });
    expect(step<FileChangeFact>(5, 1)).toMatchObject({ before: "status: final\r\nowner: \u00e9\n", after: null, error: "old text not found" });
  });

  it("a missing file read, and a tool with no local truth", () => {
    expect(step<ReadFact>(6, 0)).toMatchObject({ path: "missing.txt", exists: false, content: null });
    expect(step(6, 1)).toEqual({ response: 6, call: 1, tool: "websearch", kind: "other" });
  });

  it("model responses and the turn's end", () => {
    expect(facts.model.map((m) => m.toolCalls)).toEqual([2, 1, 1, 1, 1, 2, 2, 0]);
    expect(facts.turns).toEqual([{ prompt: 1, responses: [0, 1, 2, 3, 4, 5, 6, 7], end: "completed" }]);
  });
});
