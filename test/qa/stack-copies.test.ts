import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// No exact copy of six or more lines in stack/ (issue 40): what two bridges both need lives once,
// in stack/bridge-kit or stack/protocol, and is imported. A copy is six consecutive non-blank
// lines equal after trimming their indentation, in two places of stack/ (two files, or two places
// of one file); each copy is named by both places.

const repoRoot = path.resolve(import.meta.dirname, "../..");
/** The shortest run of equal lines that counts as a copy. */
const COPY_LINES = 6;

/** Every .ts file below `dir`, repository-relative. */
function sources(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

/** `file:line = file:line` for each place whose next `lines` non-blank lines repeat an earlier place's (the first place of a longer copy only). */
export function copiesIn(files: ReadonlyArray<{ file: string; text: string }>, lines: number): string[] {
  const first = new Map<string, string>();
  const copies: string[] = [];
  for (const { file, text } of files) {
    const kept = text
      .split("\n")
      .map((line, i) => ({ line: i + 1, text: line.trim() }))
      .filter((l) => l.text !== "");
    let inCopy = false;
    for (let i = 0; i + lines <= kept.length; i += 1) {
      const key = kept
        .slice(i, i + lines)
        .map((l) => l.text)
        .join("\n");
      const at = `${file}:${kept[i]!.line}`;
      const earlier = first.get(key);
      if (earlier === undefined) {
        first.set(key, at);
        inCopy = false;
      } else if (!inCopy) {
        copies.push(`${earlier} = ${at}`);
        inCopy = true;
      }
    }
  }
  return copies;
}

describe("stack/ has no copied code", () => {
  it(`no ${COPY_LINES} consecutive non-blank lines appear twice in stack/`, () => {
    const files = sources("stack").map((file) => ({ file, text: readFileSync(path.join(repoRoot, file), "utf8") }));
    expect(copiesIn(files, COPY_LINES)).toEqual([]);
  });

  it("finds a copy across files and within a file, once per run of copied lines", () => {
    const body = ["a()", "b()", "c()", "d()", "e()", "f()", "g()"].join("\n");
    expect(copiesIn([{ file: "x.ts", text: `${body}\n\nz()\n${body}` }], 6)).toEqual(["x.ts:1 = x.ts:10"]);
    expect(
      copiesIn(
        [
          { file: "x.ts", text: body },
          { file: "y.ts", text: `  q()\n${body.replaceAll("\n", "\n    ")}` },
        ],
        6,
      ),
    ).toEqual(["x.ts:1 = y.ts:2"]);
    expect(
      copiesIn(
        [
          { file: "x.ts", text: body },
          { file: "y.ts", text: body.replace("d()", "D()") },
        ],
        6,
      ),
    ).toEqual([]);
  });
});
