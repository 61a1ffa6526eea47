import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FactsFileError, parseFactsText, readFactsFile } from "../../harness/facts/reader.js";
import { formatFacts } from "../../harness/facts/format.js";
import { factsSource, hashFactsSource, readCellSource } from "../../harness/facts/source.js";
import type { CellFacts } from "../../harness/facts/schema.js";

const GOOD: CellFacts = {
  facts: 1,
  cell: "command-fails",
  variant: null,
  source: `sha256:${"a".repeat(64)}`,
  steps: [
    {
      response: 0,
      call: 0,
      tool: "bash",
      kind: "command",
      command: "sh -c 'exit 3'",
      cwd: ".",
      approval: null,
      ran: true,
      stdout: "first line\n",
      stderr: "",
      exit: { code: 3 },
    },
    { response: 1, call: 0, tool: "read", kind: "read", path: "notes.txt", exists: true, content: "a\r\nb" },
  ],
  model: [{ response: 0, error: null, toolCalls: 1, text: "I'll run it.", hold: false }],
  turns: [{ prompt: 1, responses: [0, 1], end: "completed" }],
};

/** The one-line message `parseFactsText` throws for `text`. */
function errorOf(text: string): string {
  try {
    parseFactsText(text, "cells/x/facts.json");
  } catch (error) {
    expect(error).toBeInstanceOf(FactsFileError);
    expect((error as FactsFileError).exitCode).toBe(2);
    const message = (error as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    return message;
  }
  throw new Error("no error");
}

describe("facts reader", () => {
  it("reads what formatFacts writes, field for field", () => {
    const text = formatFacts(GOOD);
    expect(text.endsWith("}\n")).toBe(true);
    expect(parseFactsText(text, "f.json")).toEqual(GOOD);
  });

  it("a JSON syntax error names the file, line and column", () => {
    const text = formatFacts(GOOD).replace('"cell": "command-fails",', '"cell": "command-fails",,');
    // The problem is V8's own words (they differ between Node versions); the place is ours.
    expect(errorOf(text)).toMatch(/^cells\/x\/facts\.json:3:27: not valid JSON: [^\n]+$/);
  });

  it("a truncated file is a syntax error at its end", () => {
    expect(errorOf('{\n  "facts": 1,\n')).toMatch(/^cells\/x\/facts\.json:3:1: not valid JSON: [^\n]+$/);
    expect(errorOf('{\n  "facts": 1')).toMatch(/^cells\/x\/facts\.json:2:13: not valid JSON: [^\n]+$/);
  });

  it("a bad field names the field and the line of its value", () => {
    const text = JSON.stringify({ ...GOOD, steps: [{ ...GOOD.steps[0]!, exit: { code: 300 } }] }, null, 2);
    const line = text.split("\n").findIndex((l) => l.includes('"code": 300')) + 1;
    expect(errorOf(text)).toBe(`cells/x/facts.json:${line}:17: invalid facts: field \`steps.0.exit.code\`: Too big: expected number to be <=255`);
  });

  it("an unknown kind names the step's kind", () => {
    const text = formatFacts(GOOD).replace('"kind": "read"', '"kind": "glance"');
    expect(errorOf(text)).toMatch(/^cells\/x\/facts\.json:\d+:\d+: invalid facts: field `steps\.1\.kind`: /);
  });

  it("a missing field is reported at its object", () => {
    const text = formatFacts(GOOD).replace('      "exists": true,\n', "");
    expect(errorOf(text)).toMatch(/^cells\/x\/facts\.json:\d+:\d+: invalid facts: field `steps\.1\.exists`: /);
  });

  it("another version says which version this harness reads", () => {
    const text = formatFacts(GOOD).replace('"facts": 1', '"facts": 2');
    expect(errorOf(text)).toMatch(/^cells\/x\/facts\.json:2:12: invalid facts: field `facts`: .*reads facts version 1/);
  });

  it("a bad source hash names the field", () => {
    expect(errorOf(formatFacts(GOOD).replace(/sha256:a+/, "md5:00"))).toMatch(/field `source`: expected sha256: and 64 lowercase hex digits$/);
  });

  it("an unknown field is refused", () => {
    expect(errorOf(formatFacts(GOOD).replace('"facts": 1,', '"facts": 1,\n  "extra": true,'))).toMatch(/^cells\/x\/facts\.json:1:1: invalid facts: field `\(facts\)`: Unrecognized key: "extra"$/);
  });

  it("not an object", () => {
    expect(errorOf("[]")).toMatch(/^cells\/x\/facts\.json:1:1: invalid facts: field `\(facts\)`: /);
  });
});

describe("facts files on disk and their source", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "facts-reader-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a missing file is one line naming it", async () => {
    await expect(readFactsFile(path.join(dir, "none.json"))).rejects.toThrow(`${path.join(dir, "none.json")}: no facts file`);
  });

  it("the source hash moves with the definition, a variant and each workspace byte, not with key order or whitespace", async () => {
    const cell = path.join(dir, "cells", "c");
    mkdirSync(path.join(cell, "workspace", "sub"), { recursive: true });
    mkdirSync(path.join(cell, "providers"), { recursive: true });
    writeFileSync(path.join(cell, "cell.json"), '{"description":"d","threadId":"t","steps":[{"op":"initialize"}]}');
    writeFileSync(path.join(cell, "workspace", "sub", "a.txt"), "a\n");
    writeFileSync(path.join(cell, "providers", "p.json"), '{"description":"v"}');
    const cells = path.join(dir, "cells");
    const base = await factsSource(cells, "c", null);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
    writeFileSync(path.join(cell, "cell.json"), '{ "threadId": "t", "description": "d",\n "steps": [ {"op": "initialize"} ] }\n');
    expect(await factsSource(cells, "c", null)).toBe(base);
    const variant = await factsSource(cells, "c", "p");
    expect(variant).not.toBe(base);
    writeFileSync(path.join(cell, "workspace", "sub", "a.txt"), "a\r\n");
    expect(await factsSource(cells, "c", null)).not.toBe(base);
    const source = await readCellSource(cells, "c", "p");
    expect(source.definition).toEqual({ description: "v", threadId: "t", steps: [{ op: "initialize" }] });
    expect(source.files.map((f) => f.path)).toEqual(["sub/a.txt"]);
    // A file's path is part of the hash: the same bytes elsewhere are another source.
    expect(hashFactsSource({ definition: {}, files: [{ path: "a", bytes: Buffer.from("x") }] })).not.toBe(hashFactsSource({ definition: {}, files: [{ path: "b", bytes: Buffer.from("x") }] }));
  });

  it("a variant that does not exist is one line naming it", async () => {
    await expect(factsSource(path.join(dir, "cells"), "c", "nobody")).rejects.toThrow(/providers\/nobody\.json: no variant of cell c for nobody$/);
  });
});
