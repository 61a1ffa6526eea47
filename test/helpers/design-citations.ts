/**
 * Reads the design-document citations of the repository's code and prose (docs/design/README.md says
 * how a citation is written) and checks each against docs/design/: the document must exist, and a
 * cited section must be a heading of it. A citation that points outside the repository is a problem
 * whatever it names.
 *
 * Shapes: {@link scanCitations} returns every citation found and every problem, each with the file
 * (relative to the root, `/`-separated) and its 1-based line. Reads files synchronously; throws only
 * what `node:fs` throws.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The folders whose files are scanned, relative to the repository root, besides the root's own
 * files (`index.ts`, `README.md`, the configs). Recorded data (`recordings/`, `lanes/`) is not prose.
 */
export const CITING_ROOTS = ["stack", "harness", "test", "bin", "build", "bench", "cells", "allowlists"];

/** The file kinds scanned. */
const CITING_EXTENSIONS = [".ts", ".js", ".mjs", ".md"];

/** Folders never scanned: installed packages, build output and recorded data. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", "fixtures"]);

/** Where the design documents live, relative to the repository root. */
export const DESIGN_DIR = "docs/design";

/** One design document: its number (`"10"`), file name and headings. */
export interface DesignDoc {
  readonly number: string;
  readonly file: string;
  /** Section numbers that lead a heading (`"2.3"` of `### 2.3 Item construction`). */
  readonly sections: ReadonlySet<string>;
  /** Every heading's text, lower-cased, for citations by name (`spec 60 "pi"`). */
  readonly headings: readonly string[];
}

/** One citation found: the document number and, when one is cited, its section or heading name. */
export interface Citation {
  readonly file: string;
  readonly line: number;
  readonly doc: string;
  readonly section?: string;
  readonly name?: string;
}

/** A citation that does not resolve, with the reason in one sentence. */
export interface CitationProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Reads docs/design/NN-*.md under `root` into documents keyed by number. */
export function readDesignDocs(root: string): Map<string, DesignDoc> {
  const docs = new Map<string, DesignDoc>();
  const dir = path.join(root, DESIGN_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return docs;
  }
  for (const file of names.filter((name) => /^\d{2}-[a-z0-9-]+\.md$/.test(name)).sort()) {
    const text = readFileSync(path.join(dir, file), "utf8");
    const sections = new Set<string>();
    const headings: string[] = [];
    for (const line of text.split("\n")) {
      const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
      if (heading === undefined) continue;
      headings.push(heading.toLowerCase());
      const number = /^§?\s*(\d+(?:\.\d+)*)\.?\s/.exec(heading)?.[1];
      if (number !== undefined) sections.add(number);
    }
    docs.set(file.slice(0, 2), { number: file.slice(0, 2), file, sections, headings });
  }
  return docs;
}

/** The files under `root` that may cite, relative and `/`-separated, sorted. */
export function citingFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(rel);
      } else if (CITING_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) files.push(rel);
    }
  };
  for (const dir of CITING_ROOTS) walk(dir);
  for (const entry of readdirSync(root, { withFileTypes: true })) if (entry.isFile() && CITING_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) files.push(entry.name);
  return files.sort();
}

/** Document numbers a citation may name: every spec number the code has ever used. */
const DOC_NUMBER = "(?:00|10|20|30|40|50|60)";

/** `spec 10`, `Spec 30`, `spec30 ` (never an identifier such as `spec30Expectation`). */
const SPEC_DOC = new RegExp(`\\bspec ?(\\d{2})(?![\\w])`, "gi");
/** A section sign with the document number before it, if any: `30 §6.2`, `§2.3–2.4`, `§5–§6`. */
const SECTION = new RegExp(`(?:\\b(${DOC_NUMBER}) ?)?§ ?(\\d+(?:\\.\\d+)*)(?:\\s*[–-]\\s*§?\\s*(\\d+(?:\\.\\d+)*))?`, "g");
/** `spec 40 point 9`: a numbered point of the style document is its section. */
const POINT = /\bspec ?(\d{2}) point (\d+)/gi;
/** `spec 60 "pi"`, `spec 60 pi "Approvals"`: a heading cited by name. */
const NAMED = /\bspec ?(\d{2}) (?:[a-z]+ )?"([^"]+)"/gi;
/** A spec document named by file: `00-product.md`, with or without the docs/design/ folder. */
const FILE_NAME = /(docs\/design\/)?\b(\d{2})-[a-z][a-z-]*\.md\b/g;
/** After a product-document citation: `flow 2`, `flows 2–3`, `, flow 5`. */
const FLOWS = /^,?:? ?flows? (\d)(?:\s*[–-]\s*(\d))?/;
/** After a product-document citation: one of its named parts (`, Determinism`, ` CLI`). */
const PRODUCT_PARTS = /^,?:? ?"?(Words|Layout|Determinism|CLI|Public API|Real input|Who uses it|What good looks like)\b/;
/** Text that places a `§` in another standard (`JSON-RPC 2.0 §5`, `RFC 8259 §7`). */
const OTHER_STANDARD = /(?:\d\.\d+|RFC \d+|ECMA-\d+)\s*$/;

/** How many lines back a bare `§X` may take its document from (`…spec 30\n * §6.5)`). */
const BARE_SECTION_REACH = 4;

/**
 * Scans `files` (relative to `root`) for citations and checks each against `docs`.
 * Returns every citation found and every one that does not resolve.
 */
export function scanCitations(root: string, files: readonly string[], docs: ReadonlyMap<string, DesignDoc>): { citations: Citation[]; problems: CitationProblem[] } {
  const citations: Citation[] = [];
  const problems: CitationProblem[] = [];
  for (const file of files) {
    const lines = readFileSync(path.join(root, file), "utf8").split("\n");
    let lastDoc: { doc: string; line: number } | undefined;
    lines.forEach((text, index) => {
      const line = index + 1;
      const said = new Set<string>();
      // One problem once per line, however many citations on it share it (`spec 10 §4` is a document and a section).
      const problem = (message: string): void => {
        if (!said.has(message)) problems.push({ file, line, message });
        said.add(message);
      };
      const cite = (doc: string, cited: { section?: string; name?: string }): void => {
        citations.push({ file, line, doc, ...cited });
        lastDoc = { doc, line };
        const design = docs.get(doc);
        if (design === undefined) return problem(`cites spec ${doc}, but ${DESIGN_DIR}/ has no ${doc}-*.md`);
        if (cited.section !== undefined && !design.sections.has(cited.section)) problem(`cites spec ${doc} §${cited.section}, which is no heading of ${DESIGN_DIR}/${design.file}`);
        if (cited.name !== undefined && !design.headings.some((heading) => heading.includes(cited.name!.toLowerCase())))
          problem(`cites spec ${doc} "${cited.name}", which no heading of ${DESIGN_DIR}/${design.file} contains`);
      };

      const citeFile = (m: RegExpExecArray | RegExpMatchArray): void => {
        const at = m.index ?? 0;
        if (m[1] === undefined) return problem(`names the file ${m[0]} outside docs/design/; write ${DESIGN_DIR}/${m[0]}`);
        const doc = m[2]!;
        const design = docs.get(doc);
        if (design === undefined || design.file !== m[0].slice(DESIGN_DIR.length + 1)) return problem(`names ${m[0]}, which does not exist`);
        cite(doc, {});
        const after = text.slice(at + m[0].length);
        const flows = FLOWS.exec(after);
        if (flows !== null) for (const n of [flows[1], flows[2]]) if (n !== undefined) cite(doc, { name: `flow ${n}` });
        const part = PRODUCT_PARTS.exec(after)?.[1];
        if (part !== undefined) cite(doc, { name: part });
      };
      const citeSection = (m: RegExpExecArray | RegExpMatchArray): void => {
        const at = m.index ?? 0;
        let doc = m[1];
        if (doc === undefined) {
          if (OTHER_STANDARD.test(text.slice(0, at))) return;
          if (lastDoc === undefined || line - lastDoc.line > BARE_SECTION_REACH) return problem(`cites §${m[2]} without a document (write "spec NN §${m[2]}")`);
          doc = lastDoc.doc;
        }
        for (const section of [m[2], m[3]]) if (section !== undefined) cite(doc, { section });
      };

      if (/shared\/spec\b/.test(text)) problem("points outside the repository (shared/spec); cite the in-repo document under docs/design/");
      // The provider-bridge notes the reference ships beside its spec ("seed 002 …") are outside the repository too: spec 02 holds what the code needs of them.
      if (/shared\/seeds\b|\bseed \d{3}\b|\bthe seed's\b/.test(text)) problem("points outside the repository (a reference seed); cite docs/design/02-provider-bridge.md (spec 02 §N)");

      // In the order they are written, so a bare `§X` takes the document named last before it.
      const found = [
        ...[...text.matchAll(FILE_NAME)].map((m) => ({ kind: "file" as const, m })),
        ...[...text.matchAll(SPEC_DOC)].map((m) => ({ kind: "doc" as const, m })),
        ...[...text.matchAll(POINT)].map((m) => ({ kind: "point" as const, m })),
        ...[...text.matchAll(NAMED)].map((m) => ({ kind: "named" as const, m })),
        ...[...text.matchAll(SECTION)].map((m) => ({ kind: "section" as const, m })),
      ].sort((a, b) => a.m.index - b.m.index);
      for (const { kind, m } of found) {
        if (kind === "file") citeFile(m);
        else if (kind === "doc") cite(m[1]!, {});
        else if (kind === "point") cite(m[1]!, { section: m[2]! });
        else if (kind === "named") {
          if (m[1] === "50" || m[1] === "60") cite(m[1], { name: m[2]! });
        } else citeSection(m);
      }
    });
  }
  return { citations, problems };
}
