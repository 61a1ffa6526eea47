/**
 * build/lazy-string-width.ts: every installed copy of string-width, bundled with the plugin,
 * builds no `Intl.Segmenter` when imported and measures every sample as the published module
 * does; the CLI bundle builds none for `--version`; a source of another shape fails the build.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { deferStringWidthBody, lazyStringWidth } from "../../build/lazy-string-width.js";
import { repoRoot } from "../helpers/run-cli.js";

const work = mkdtempSync(path.join(tmpdir(), "parity-lazy-width-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every `node_modules/…/string-width/index.js` of this installation (yargs', cliui's, wrap-ansi's). */
function installedCopies(): string[] {
  return readdirSync(path.join(repoRoot, "node_modules"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(`string-width${path.sep}index.js`) && !file.includes(`${path.sep}test${path.sep}`))
    .map((file) => path.join(repoRoot, "node_modules", file));
}

const SAMPLES = ["", "abc", "古池や", "\u001B[31mred\u001B[39m", "👩‍👩‍👧", "e\u0301", "1\u20E3", "한국어", "\t", "x\u200By"];

/** Counts `new Intl.Segmenter()` from now on (the subclass stands in for the global one). */
function countSegmenters(): { count: () => number; restore: () => void } {
  const original = Intl.Segmenter;
  // Intl's members are writable at run time; its TypeScript declaration says read-only.
  const intl = Intl as { Segmenter: typeof Intl.Segmenter };
  let made = 0;
  intl.Segmenter = class extends original {
    constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
      super(...args);
      made += 1;
    }
  };
  return { count: () => made, restore: () => void (intl.Segmenter = original) };
}

describe("lazyStringWidth", () => {
  const copies = installedCopies();

  it("finds the copies the CLI bundles", () => {
    expect(copies.length).toBeGreaterThanOrEqual(2);
  });

  it("each bundled copy builds its Segmenter on the first call, not at import, and measures as published", async () => {
    for (const [i, file] of copies.entries()) {
      const outfile = path.join(work, `width-${i}.mjs`);
      await build({ entryPoints: [file], bundle: true, format: "esm", platform: "node", outfile, plugins: [lazyStringWidth], logLevel: "silent" });
      const segmenters = countSegmenters();
      try {
        const lazy = ((await import(pathToFileURL(outfile).href)) as { default: (s: string) => number }).default;
        expect([file, segmenters.count()]).toEqual([file, 0]);
        const published = ((await import(pathToFileURL(file).href)) as { default: (s: string) => number }).default;
        expect([file, SAMPLES.map((s) => lazy(s))]).toEqual([file, SAMPLES.map((s) => published(s))]);
      } finally {
        segmenters.restore();
      }
    }
  });

  it("the CLI bundle builds no Segmenter for --version (the published copies build one each at import)", () => {
    const preload = `data:text/javascript,${encodeURIComponent(
      "const O=Intl.Segmenter;let n=0;Intl.Segmenter=class extends O{constructor(...a){super(...a);n++}};process.on('exit',()=>process.stderr.write('segmenters '+n+'\\n'));",
    )}`;
    const run = spawnSync(process.execPath, ["--import", preload, path.join(repoRoot, "bin", "parity.js"), "--version"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("segmenters 0");
  });

  it("refuses a source of another shape, naming the file", () => {
    const twoExports = "import a from 'a';\nconst s = new Intl.Segmenter();\nexport default function stringWidth(x) { return 1; }\nexport const other = 1;\n";
    expect(() => deferStringWidthBody(twoExports, "/x/string-width/index.js")).toThrow(/\/x\/string-width\/index\.js: not the string-width shape/);
    expect(() => deferStringWidthBody("export function stringWidth() {}\n", "/y/index.js")).toThrow(/\/y\/index\.js/);
  });
});
