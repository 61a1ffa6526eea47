import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/run-cli.js";
import { DATA_TABLE_MARK, formatSpans, functionSpans, longFunctions } from "./function-length.js";

/** The longest a function may be; one past it is usually two concerns (style guide, item 2). */
const LIMIT = 120;
const SOURCE_FOLDERS = ["harness", "stack", "bench", "build", "bin"];

const body = (lines: number): string => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join("\n");
const table = (rows: number): string => Array.from({ length: rows }, (_, i) => `    k${i}: ${i},`).join("\n");

describe("function length", () => {
  it(`no function in the source folders spans more than ${LIMIT} lines`, () => {
    const offenders = longFunctions(repoRoot, SOURCE_FOLDERS, LIMIT);
    expect(formatSpans(offenders), `functions over ${LIMIT} lines; split them by concern`).toBe("");
  });

  it("measures declarations, arrow functions, methods and constructors from first to last line", () => {
    const text = [
      "function plain() {",
      body(3),
      "}",
      "const arrow = (x: number) => {",
      body(1),
      "};",
      "class Box {",
      "  constructor() {",
      body(2),
      "  }",
      "  method() {",
      "  }",
      "}",
      "const inline = () => 1;",
    ].join("\n");
    const spans = functionSpans("a.ts", text).map(({ name, line, lines }) => ({ name, line, lines }));
    expect(spans).toEqual([
      { name: "plain", line: 1, lines: 5 },
      { name: "arrow", line: 6, lines: 3 },
      { name: "constructor", line: 10, lines: 4 },
      { name: "method", line: 14, lines: 2 },
      { name: "inline", line: 17, lines: 1 },
    ]);
  });

  it("exempts a marked function only when it does nothing but return a literal", () => {
    const marked = `/** Rows. ${DATA_TABLE_MARK} */\nexport const rows = () => ({\n${table(5)}\n});`;
    const markedLogic = `// ${DATA_TABLE_MARK}\nfunction logic() {\n${body(5)}\n  return { a: 1 };\n}`;
    const unmarked = `function plainTable() {\n  return [\n${table(5)}\n  ];\n}`;
    const spans = functionSpans("b.ts", [marked, markedLogic, unmarked].join("\n"));
    expect(spans.map(({ name, dataTable }) => ({ name, dataTable }))).toEqual([
      { name: "rows", dataTable: true },
      { name: "logic", dataTable: false },
      { name: "plainTable", dataTable: false },
    ]);
  });
});
