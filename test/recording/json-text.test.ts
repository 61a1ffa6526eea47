import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonProblem, MAX_JSON_DEPTH, parseJsonText, positionOf, tooDeepAt } from "../../harness/recording/json-text.js";
import { offsetOfPath } from "../../harness/recording/schema-issues.js";
import { repoRoot } from "../cli/run-cli.js";

// The shared JSON reader (issue 42 point 4): its own scanner must call a text JSON exactly when
// JSON.parse does, since it only explains JSON.parse's refusals; checked on real oracles and on
// every cut of one.

const oracles = readdirSync(path.join(repoRoot, "lanes"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".json"))
  .map((f) => path.join(repoRoot, "lanes", f));

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("jsonProblem agrees with JSON.parse", () => {
  it("finds no problem in any committed oracle", () => {
    expect(oracles.length).toBeGreaterThan(50);
    for (const file of oracles) expect(jsonProblem(readFileSync(file, "utf8")), file).toBeUndefined();
  });

  it("on every cut of a real oracle, and on every single-character deletion of its start, it finds a problem exactly when JSON.parse fails", () => {
    const text = readFileSync(path.join(repoRoot, "lanes", "echo", "turn.json"), "utf8");
    for (let cut = 0; cut <= text.length; cut += 7) expect(jsonProblem(text.slice(0, cut)) === undefined, `cut at ${cut}`).toBe(parses(text.slice(0, cut)));
    for (let i = 0; i < 600; i++) {
      const broken = text.slice(0, i) + text.slice(i + 1);
      expect(jsonProblem(broken) === undefined, `without character ${i}`).toBe(parses(broken));
    }
  });

  it.each([
    ["[1,]", 3, 'a trailing comma before "]"'],
    ["{'a': 1}", 1, 'expected a property name in double quotes, found "\'"'],
    ['{"a": "x\ny"}', 8, "a control character (a line break or tab) inside a string; write it as an escape such as \\n"],
    ['{"a": 1 "b": 2}', 8, 'expected "," or "}" (closing the "{" opened at line 1, column 1), found \'"\''],
    ["[1] 2", 4, 'unexpected "2" after the end of the JSON value'],
    ['["abc', 5, "the file ends inside the string opened at line 1, column 2"],
    ["[[1]", 4, 'the file ends before the "[" opened at line 1, column 1 is closed'],
  ])("%j: offset %i, %s", (text, offset, problem) => {
    expect(jsonProblem(text)).toEqual({ offset, problem, kind: "syntax" });
  });
});

describe("depth and places", () => {
  it("nesting past the limit is found at the bracket that crosses it, by both scanners", () => {
    const text = `${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    expect(tooDeepAt(text)).toBe(MAX_JSON_DEPTH);
    expect(jsonProblem(text)).toMatchObject({ offset: MAX_JSON_DEPTH, kind: "depth" });
    expect(tooDeepAt(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`)).toBe(-1);
    // Brackets inside strings do not count.
    expect(tooDeepAt(JSON.stringify(["[".repeat(MAX_JSON_DEPTH * 2)]))).toBe(-1);
    expect(() => parseJsonText(`\n${text}`, "f.json")).toThrow(`f.json:2:${MAX_JSON_DEPTH + 1}: nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it("a byte order mark is ignored; positions count from after it", () => {
    expect(parseJsonText("\ufeff[1]", "f.json")).toEqual([1]);
    expect(() => parseJsonText("\ufeff[1,]", "f.json")).toThrow('f.json:1:4: not valid JSON: a trailing comma before "]"');
  });

  it("offsetOfPath points at a member's key and an element's value", () => {
    const text = '{\n  "a": [10, {"b": 2}],\n  "c": 3\n}';
    const at = (p: PropertyKey[]) => positionOf(text, offsetOfPath(text, p)!);
    expect(at(["a"])).toEqual({ line: 2, column: 3 });
    expect(at(["a", 0])).toEqual({ line: 2, column: 9 });
    expect(at(["a", 1])).toEqual({ line: 2, column: 13 });
    expect(at(["a", 1, "b"])).toEqual({ line: 2, column: 14 });
    expect(at(["c"])).toEqual({ line: 3, column: 3 });
    expect(offsetOfPath(text, ["d"])).toBeUndefined();
  });
});
