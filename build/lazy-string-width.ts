/**
 * The esbuild plugin that defers string-width's module body to its first call (build/README.md),
 * in a module of its own so a test can bundle with it without running the build.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Plugin } from "esbuild";

/**
 * string-width's module source with its body deferred to the first call: the imports stay at the
 * top, everything else (the `Intl.Segmenter`, the Unicode-property regular expressions, the
 * helpers) moves into a function run once, on the first call of the default export
 * `stringWidth`, which is the module's only export.
 *
 * @throws Error naming `file` when the source is not of that shape (a new string-width version:
 *   the build fails rather than bundle a module it does not understand)
 */
export function deferStringWidthBody(source: string, file: string): string {
  const lines = source.split("\n");
  let split = 0;
  // The leading import declarations (and the blank or comment lines between them).
  while (split < lines.length && /^(import\s[^;]*;|\s*|\/\/.*)$/.test(lines[split]!)) split += 1;
  const imports = lines.slice(0, split).join("\n");
  const body = lines.slice(split).join("\n");
  const exports = [...body.matchAll(/^export\s.*$/gm)].map((m) => m[0]);
  if (exports.length !== 1 || !exports[0]!.startsWith("export default function stringWidth(") || /^\s*import[\s{(]/m.test(body)) {
    throw new Error(`${file}: not the string-width shape lazyStringWidth knows (leading imports, one \`export default function stringWidth\`); update build/bundle.ts`);
  }
  return [
    imports,
    "let __stringWidth;",
    "export default function stringWidth(...args) {",
    "  __stringWidth ??= __defineStringWidth();",
    "  return __stringWidth(...args);",
    "}",
    "function __defineStringWidth() {",
    body.replace("export default function stringWidth(", "function stringWidth("),
    "return stringWidth;",
    "}",
    "",
  ].join("\n");
}

/**
 * Every copy of string-width (yargs' and cliui's, for help and usage text) with its module body
 * deferred to the first call ({@link deferStringWidthBody}). Evaluated as published, each copy
 * builds an `Intl.Segmenter` and compiles Unicode-property regular expressions (`\p{RGI_Emoji}`
 * among them) when the CLI starts, whatever the command: 0.27 G of the 2.8 G instructions of a
 * cursor `parity check` under callgrind (Node 20), about 0.08 s of CPU on this repository's
 * machine, for text only `--help` and a usage error lay out.
 */
export const lazyStringWidth: Plugin = {
  name: "lazy-string-width",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](?:.+[\\/])?string-width[\\/]index\.js$/ }, async (args) => ({
      contents: deferStringWidthBody(await readFile(args.path, "utf8"), args.path),
      loader: "js",
      resolveDir: path.dirname(args.path),
    }));
  },
};
