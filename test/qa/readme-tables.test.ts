import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Tables that describe the code are checked against it (issue 40 build point 5: hand-kept, 6 of
// 15 rows of the "imports today" tables had gone stale). Each row of harness/README.md's "What
// each folder imports today" and of stack/README.md's folder table names, in backticks, what the
// folder's modules import of this project (`from "./…"` lines, type imports included); a detail
// in parentheses after a name is prose and not compared. The README's Layout block names every
// folder of harness/ and stack/. A row that says more or less than the code fails here, naming
// the folder and the difference.

const repoRoot = path.resolve(import.meta.dirname, "../..");

/** Every .ts file below `dir` (absolute paths). */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
}

/**
 * What the modules of `<top>/<folder>/` import of this project, named as the tables name it: a
 * folder of the same top (`recording`), a file directly under it (`errors.ts`), or
 * `stack/<package>` from harness/ (stack's own table names its folders bare).
 */
function measuredImports(top: "harness" | "stack", folder: string): string[] {
  const found = new Set<string>();
  for (const file of walk(path.join(repoRoot, top, folder))) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/^\s*(?:import|export)[^"']*from\s+["'](\.[^"']+)["']/gm)) {
      const rel = path.relative(repoRoot, path.resolve(path.dirname(file), match[1]!)).split(path.sep);
      if (rel[0] === top) {
        const name = rel.length === 2 ? rel[1]!.replace(/\.js$/, ".ts") : rel[1]!;
        if (name !== folder) found.add(name);
      } else if (rel[0] === "stack") found.add(`stack/${rel[1]}`);
    }
  }
  return [...found].sort();
}

/** The names a table cell lists: backticked tokens outside parentheses; "nothing" is none. */
function listed(cell: string): string[] {
  let depth = 0;
  let outside = "";
  for (const ch of cell) {
    if (ch === "(") depth += 1;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0) outside += ch;
  }
  return [...outside.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, "")).sort();
}

/** The rows of the first Markdown table after `heading` in `file`: cells of each body row. */
function tableAfter(file: string, heading: string): string[][] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const from = text.indexOf(heading);
  expect(from, `${file} has "${heading}"`).toBeGreaterThan(-1);
  const lines = text.slice(from).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const folders = (top: string): string[] =>
  readdirSync(path.join(repoRoot, top), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

describe("tables that describe code say what the code does", () => {
  it("harness/README.md: each folder's row names exactly what its modules import", () => {
    const rows = tableAfter("harness/README.md", "## What each folder imports today");
    const stale: string[] = [];
    for (const [name, imports] of rows) {
      const folder = listed(name!)[0]!;
      const want = measuredImports("harness", folder);
      const said = listed(imports!);
      if (JSON.stringify(said) !== JSON.stringify(want)) stale.push(`${folder}: the row says ${said.join(", ") || "nothing"}; the code imports ${want.join(", ") || "nothing"}`);
    }
    expect(stale).toEqual([]);
    expect(rows.map(([name]) => listed(name!)[0]).sort()).toEqual(folders("harness"));
  });

  it("stack/README.md: each folder's row names exactly what its modules import", () => {
    const rows = tableAfter("stack/README.md", "| folder | holds | imports today");
    const stale: string[] = [];
    for (const [name, , imports] of rows) {
      const folder = listed(name!)[0]!;
      const want = measuredImports("stack", folder);
      const said = listed(imports!);
      if (JSON.stringify(said) !== JSON.stringify(want)) stale.push(`${folder}: the row says ${said.join(", ") || "nothing"}; the code imports ${want.join(", ") || "nothing"}`);
    }
    expect(stale).toEqual([]);
    expect(rows.map(([name]) => listed(name!)[0]).sort()).toEqual(folders("stack"));
  });

  it("README.md's Layout names every folder of harness/ and stack/, and no folder that is gone", () => {
    const text = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const block = text.slice(text.indexOf("## Layout"));
    const code = block.slice(block.indexOf("```") + 3, block.indexOf("```", block.indexOf("```") + 3));
    const named = [...code.matchAll(/^(harness|stack)\/([\w-]+)\//gm)].map((m) => `${m[1]}/${m[2]}`).sort();
    const real = [...folders("harness").map((f) => `harness/${f}`), ...folders("stack").map((f) => `stack/${f}`)].sort();
    expect(named).toEqual(real);
  });
});
