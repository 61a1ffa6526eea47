/**
 * QA (issue 40 point 5): the code cited a specification outside the repository about 1,400 times
 * (`spec 10 §4`, `00-product.md flow 2`, the spec folder's `40-style.md` by path); a clone could resolve none of
 * them. Every citation in stack/, harness/, test/, bin/, build/, bench/, cells/, allowlists/ and
 * the root's own files (*.ts, *.js, *.mjs, *.md; not node_modules, dist or fixtures) must name a
 * document of docs/design/ and, where it names a section, a heading of it (docs/design/README.md
 * says how a citation reads). Fails naming file:line and what is wrong.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { citingFiles, DESIGN_DIR, readDesignDocs, scanCitations } from "../helpers/design-citations.js";
import { repoRoot } from "../helpers/run-cli.js";

/** This file and its helper write citations as examples. */
const SELF = new Set(["test/qa/design-citations.test.ts", "test/helpers/design-citations.ts"]);

describe("design citations", () => {
  const docs = readDesignDocs(repoRoot);
  const files = citingFiles(repoRoot).filter((file) => !SELF.has(file));
  const { citations, problems } = scanCitations(repoRoot, files, docs);

  it("docs/design/ holds the documents the code cites, and an index", () => {
    expect([...docs.keys()]).toEqual(["00", "02", "10", "20", "30", "40", "50", "60"]);
    expect(existsSync(path.join(repoRoot, DESIGN_DIR, "README.md"))).toBe(true);
  });

  it("runs in a clone with no sibling folder (it reads only the repository)", async () => {
    // Imported when run: the exclusion scan would count a static import of its module as a read of
    // the sibling folder (its export's text mentions the folder).
    const { filesNeedingShared } = await import("../helpers/shared-files.js");
    expect(filesNeedingShared(repoRoot)).not.toContain("test/qa/design-citations.test.ts");
  });

  it("the scan finds the code's citations (well over a thousand)", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(citations.length).toBeGreaterThan(1000);
    expect(citations.filter((c) => c.section !== undefined).length).toBeGreaterThan(500);
  });

  it("every citation names an in-repo design document and an existing section", () => {
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  });

  it("every section that has no subsections says something (25 words or more), none is a stub", () => {
    const thin: string[] = [];
    for (const doc of docs.values()) {
      const text = readFileSync(path.join(repoRoot, DESIGN_DIR, doc.file), "utf8");
      const parts = text.split(/^(?=#{1,6} )/m).slice(1);
      parts.forEach((part, index) => {
        const [heading = "", ...body] = part.split("\n");
        const depth = (line: string) => /^#+/.exec(line)?.[0].length ?? 0;
        const hasSubsections = index + 1 < parts.length && depth(parts[index + 1]!) > depth(heading);
        const words = body.join(" ").split(/\s+/).filter(Boolean).length;
        if (!hasSubsections && words < 25) thin.push(`${doc.file}: "${heading}" has ${words} words`);
      });
    }
    expect(thin).toEqual([]);
  });

  it("every repository path a design document names in backticks exists", () => {
    const missing: string[] = [];
    for (const file of ["README.md", ...[...docs.values()].map((d) => d.file)]) {
      const text = readFileSync(path.join(repoRoot, DESIGN_DIR, file), "utf8");
      for (const m of text.matchAll(/`((?:stack|harness|test|bin|build|cells|bench|docs|lanes|recordings|allowlists)\/[\w./-]*)`/g)) {
        const rel = m[1]!.replace(/\/$/, "");
        if (!existsSync(path.join(repoRoot, rel))) missing.push(`${DESIGN_DIR}/${file}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every link of a design document resolves, its #anchor included (GitHub's heading slugs)", () => {
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
    const anchorsOf = (file: string) =>
      new Set(
        readFileSync(file, "utf8")
          .split("\n")
          .filter((line) => /^#{1,6} /.test(line))
          .map((line) => slug(line.replace(/^#+ /, ""))),
      );
    const broken: string[] = [];
    const dir = path.join(repoRoot, DESIGN_DIR);
    for (const file of ["README.md", ...[...docs.values()].map((d) => d.file)]) {
      for (const m of readFileSync(path.join(dir, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        const [target = "", anchor] = m[1]!.split("#");
        const linked = path.join(dir, target === "" ? file : target);
        if (!existsSync(linked)) broken.push(`${DESIGN_DIR}/${file}: ${m[1]} (no such file)`);
        else if (anchor !== undefined && linked.endsWith(".md") && !anchorsOf(linked).has(anchor)) broken.push(`${DESIGN_DIR}/${file}: ${m[1]} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("design citations: the scan itself", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "design-citations-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, DESIGN_DIR), { recursive: true });
  writeFileSync(path.join(root, DESIGN_DIR, "10-grammar.md"), "# 10\n\n## 2. Assembly\n\n### 2.3 Items\n");
  writeFileSync(path.join(root, DESIGN_DIR, "00-product.md"), "# 00\n\n## Determinism\n\n### Flow 2: check\n");
  writeFileSync(path.join(root, DESIGN_DIR, "60-native.md"), "# 60\n\n## pi\n\n### Turn end\n");
  const scan = (text: string) => {
    writeFileSync(path.join(root, "a.ts"), text);
    return scanCitations(root, ["a.ts"], readDesignDocs(root)).problems.map((p) => `${p.line}: ${p.message}`);
  };

  it("accepts sections that exist, bare sections after their document, ranges and named headings", () => {
    expect(scan("// spec 10 §2.3; spec 10 §2–§2.3\n// the assembler (spec 10\n// §2.3)\n")).toEqual([]);
    expect(scan('// docs/design/00-product.md flow 2; docs/design/00-product.md, Determinism; spec 60 pi "Turn end"\n')).toEqual([]);
    expect(scan("// JSON-RPC 2.0 §5 is another standard\n")).toEqual([]);
  });

  it("names file:line for a missing section, document or heading", () => {
    expect(scan("// ok\n// spec 10 §2.4\n")).toEqual(["2: cites spec 10 §2.4, which is no heading of docs/design/10-grammar.md"]);
    expect(scan("// spec 30 §1\n")).toEqual(["1: cites spec 30, but docs/design/ has no 30-*.md"]);
    expect(scan('// spec 60 "Codex"\n')).toEqual(['1: cites spec 60 "Codex", which no heading of docs/design/60-native.md contains']);
    expect(scan("// docs/design/00-product.md flow 4\n")).toEqual(['1: cites spec 00 "flow 4", which no heading of docs/design/00-product.md contains']);
  });

  it("fails a citation that points outside the repository, or a section without a document", () => {
    // Spelled so that test/helpers/shared-files.ts does not take this file for one that reads the
    // sibling folder: the citation check must run in a clone that has none.
    const outside = `..${"/"}shared/spec/40-style.md`;
    expect(scan(`// see ${outside}\n`)).toEqual([
      "1: points outside the repository (shared/spec); cite the in-repo document under docs/design/",
      "1: names the file 40-style.md outside docs/design/; write docs/design/40-style.md",
    ]);
    expect(scan("// 00-product.md flow 2\n")).toEqual(["1: names the file 00-product.md outside docs/design/; write docs/design/00-product.md"]);
    expect(scan("// a\n// b\n// c\n// d\n// e\n// §2.3\n")).toEqual(['6: cites §2.3 without a document (write "spec NN §2.3")']);
  });
});
