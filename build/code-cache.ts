/**
 * `parity check`'s late part from one script and V8's code cache (build/README.md, issue 25).
 * Node 20 can give a code cache to a script (`vm.Script`), not to an ES module; the late part
 * (harness/cli/check-finish.ts: the rest of the gate, comparators, reporters, allowlists) is
 * bundled into one CommonJS script, {@link LATE_SCRIPT}, whose whole text is a function expression,
 * and its code cache is written beside it. Every light command (`--version`, `--help`, `list`…)
 * and `check`'s early part stay in the per-command ES module bundle and never read either file.
 *
 * Modules `check` has already loaded before its late part (the static import closure of
 * harness/cli/main.ts and harness/cli/check.ts) are not copied into the script: the script asks
 * for them by their repository-relative path (`__parityLoaded(key)`), and the CLI bundle's
 * `loadCheckFinish` (harness/cli/check-finish-load.ts, replaced by {@link lateLoaderPlugin}) hands
 * it their namespaces, so a module keeps one instance (zod evaluated once, `instanceof` of the
 * project's errors).
 *
 * V8 accepts a code cache only from a process with the same V8 flags: the cache is written by a
 * child process started with the flags `bin/parity.js` sets ({@link cliV8Flags}), after it ran the
 * script's top level (the module bodies, so the functions they call are in the cache too). A cache
 * V8 rejects still runs, from the source (harness/cli/cached-script.ts).
 */
import { build, type Metafile, type Plugin } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** The late part's script, relative to the package root; its cache is `<script>.cache` (cached-script.ts). */
export const LATE_SCRIPT = "dist/bundle/late/check-finish.js";

/** The module whose body the CLI bundle replaces with the loader of {@link LATE_SCRIPT}. */
const LATE_LOADER = "harness/cli/check-finish-load.ts";
/** The late part's entry. */
const LATE_ENTRY = "harness/cli/check-finish.ts";
/** What is loaded before the late part: these modules and their static imports. */
const EARLY_ROOTS = ["harness/cli/main.ts", "harness/cli/check.ts"];

/**
 * The script's first and last lines: the CommonJS bundle inside a strict function expression of
 * CommonJS's module variables and `__parityLoaded` (cached-script.ts, `runCachedScript`).
 * esbuild's own `"use strict"` comes after the banner, where it is no directive.
 */
const SCRIPT_HEAD = '(function (exports, require, module, __filename, __dirname, __parityLoaded) { "use strict";';
const SCRIPT_TAIL = "})";

/**
 * Repository-relative inputs reached from `roots` through static imports (`import … from`,
 * `require`), not `import()`, in an esbuild metafile: what is evaluated before a lazy import.
 */
export function staticClosure(metafile: Metafile, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = roots.filter((root) => metafile.inputs[root] !== undefined);
  for (const root of queue) seen.add(root);
  while (queue.length > 0) {
    for (const edge of metafile.inputs[queue.shift()!]!.imports) {
      if (edge.external === true || edge.kind === "dynamic-import" || seen.has(edge.path)) continue;
      seen.add(edge.path);
      queue.push(edge.path);
    }
  }
  return seen;
}

/**
 * The V8 flags `bin/parity.js` sets (each `v8.setFlagsFromString("…")` of it, string literals
 * only): the code cache is written with the same, since V8 rejects a cache of other flags.
 * @throws Error when a call's argument is not one string literal (the build cannot know it)
 */
export function cliV8Flags(binText: string): string[] {
  const calls = [...binText.matchAll(/setFlagsFromString\(([^)]*)\)/g)].map((m) => m[1]!.trim());
  return calls.flatMap((arg) => {
    const literal = /^(["'`])([^"'`$]*)\1$/.exec(arg);
    if (literal === null) throw new Error(`bin/parity.js: v8.setFlagsFromString(${arg}): the code cache needs the flags as one string literal`);
    return literal[2]!.split(/\s+/).filter((flag) => flag !== "");
  });
}

/**
 * The script's imports of modules in `early` become `__parityLoaded(key)` (a CommonJS module whose
 * exports are the loaded module's); `shared` collects the keys.
 */
function loadedModulesPlugin(root: string, early: ReadonlySet<string>, shared: Set<string>): Plugin {
  return {
    name: "parity-loaded-modules",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || (args.pluginData as { parityLoaded?: boolean } | undefined)?.parityLoaded === true) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { parityLoaded: true } });
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== "file") return undefined;
        const key = path.relative(root, resolved.path).split(path.sep).join("/");
        if (!early.has(key)) return undefined;
        shared.add(key);
        // A namespace of its own: no package.json (`"type": "module"`) makes the stand-in an ES module.
        return { path: key, namespace: "parity-loaded" };
      });
      b.onLoad({ filter: /.*/, namespace: "parity-loaded" }, (args) => ({ contents: `module.exports = __parityLoaded(${JSON.stringify(args.path)});`, loader: "js" }));
    },
  };
}

/**
 * The CLI bundle's body of `loadCheckFinish` (harness/cli/check-finish-load.ts): the namespaces
 * of `shared` (all loaded already by `check`, so importing them loads nothing more) and
 * `runCachedScript` of {@link LATE_SCRIPT}, found from the chunk the loader lands in
 * (`dist/bundle/chunks/`; {@link lateScriptBuild} checks that folder).
 */
export function lateLoaderPlugin(root: string, shared: readonly string[]): Plugin {
  const loaderFile = path.join(root, LATE_LOADER);
  const relative = path.posix.relative("dist/bundle/chunks", LATE_SCRIPT);
  return {
    name: "parity-late-loader",
    setup(b) {
      b.onLoad({ filter: /check-finish-load\.ts$/ }, (args) => {
        if (args.path !== loaderFile) return undefined;
        const imports = shared.map((key, i) => `import * as m${i} from ${JSON.stringify(path.join(root, key))};`);
        const table = shared.map((key, i) => `${JSON.stringify(key)}: m${i}`);
        return {
          contents: [
            `import { fileURLToPath } from "node:url";`,
            `import { runCachedScript } from ${JSON.stringify(path.join(root, "harness/cli/cached-script.ts"))};`,
            ...imports,
            `const loaded = { ${table.join(", ")} };`,
            `export async function loadCheckFinish() {`,
            `  return runCachedScript(fileURLToPath(new URL(${JSON.stringify(relative)}, import.meta.url)), loaded);`,
            `}`,
          ].join("\n"),
          loader: "js",
          resolveDir: path.dirname(loaderFile),
        };
      });
    },
  };
}

/**
 * Bundles the late part into {@link LATE_SCRIPT} (modules in `early` left to `__parityLoaded`).
 * Returns the keys the script asks for, sorted, and its metafile.
 */
export async function bundleLateScript(root: string, early: ReadonlySet<string>, plugins: readonly Plugin[]): Promise<{ shared: string[]; metafile: Metafile }> {
  const shared = new Set<string>();
  const result = await build({
    absWorkingDir: root,
    entryPoints: [LATE_ENTRY],
    tsconfig: "tsconfig.build.json",
    outfile: LATE_SCRIPT,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // The script has no import.meta; a module of it that reads its URL gets the script's.
    define: { "import.meta.url": "__parityModuleUrl" },
    banner: { js: `${SCRIPT_HEAD}\nconst __parityModuleUrl = require("node:url").pathToFileURL(__filename).href;` },
    footer: { js: SCRIPT_TAIL },
    metafile: true,
    plugins: [loadedModulesPlugin(root, early, shared), ...plugins],
    logLevel: "warning",
  });
  // The stand-ins of loaded modules are no files: the metafile lists the script's own inputs.
  const inputs = Object.fromEntries(Object.entries(result.metafile.inputs).filter(([input]) => !input.startsWith("parity-loaded:")));
  return { shared: [...shared].sort(), metafile: { ...result.metafile, inputs } };
}

/** What `check` loads before its late part, from a metafile of the CLI bundle. */
export function earlyModules(metafile: Metafile): Set<string> {
  return staticClosure(metafile, EARLY_ROOTS);
}

/**
 * Checks the CLI bundle's metafile: the late loader must sit in `dist/bundle/chunks/`, where its
 * relative path to {@link LATE_SCRIPT} points.
 * @throws Error naming the output it landed in otherwise
 */
export function lateScriptBuild(metafile: Metafile): void {
  const outputs = Object.entries(metafile.outputs).filter(([, meta]) => meta.inputs[LATE_LOADER] !== undefined);
  for (const [output] of outputs) {
    if (path.posix.dirname(output) !== "dist/bundle/chunks") throw new Error(`bundle: ${LATE_LOADER} landed in ${output}, not in dist/bundle/chunks/ where its path to ${LATE_SCRIPT} holds`);
  }
}

/** The child that writes the cache: loads the compiled modules for `__parityLoaded`, runs the script's top level, writes the cache atomically. */
const WRITER = `
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
const [root, file, keys] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];
const loaded = {};
for (const key of keys) {
  const compiled = key.startsWith("node_modules/") ? key : "dist/" + key.replace(/\\.ts$/, ".js");
  loaded[key] = await import(pathToFileURL(path.join(root, compiled)).href);
}
const script = new vm.Script(readFileSync(file, "utf8"), { filename: file });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), (key) => Object.create(loaded[key], { __esModule: { value: true } }));
if (typeof module.exports.finishCheck !== "function") throw new Error(file + ": no finishCheck");
const temp = file + ".cache.tmp-" + process.pid;
writeFileSync(temp, script.createCachedData());
renameSync(temp, file + ".cache");
`;

/**
 * Writes `<LATE_SCRIPT>.cache` (see the module comment) in a child `node` with `flags`.
 * @throws Error with the child's stderr when it fails (a broken script fails the build)
 */
export function writeLateCodeCache(root: string, shared: readonly string[], flags: readonly string[]): void {
  const file = path.join(root, LATE_SCRIPT);
  for (const key of shared) {
    const compiled = key.startsWith("node_modules/") ? key : `dist/${key.replace(/\.ts$/, ".js")}`;
    if (!existsSync(path.join(root, compiled))) throw new Error(`bundle: ${key} is asked for by ${LATE_SCRIPT} but ${compiled} does not exist`);
  }
  const run = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", WRITER, root, file, JSON.stringify(shared)], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`bundle: writing the code cache of ${LATE_SCRIPT} failed (exit ${run.status}): ${run.stderr.trim()}`);
}

/** The V8 flags of `bin/parity.js` under `root` ({@link cliV8Flags}). */
export function cliV8FlagsOf(root: string): string[] {
  return cliV8Flags(readFileSync(path.join(root, "bin/parity.js"), "utf8"));
}
