/**
 * `npm run build`'s second step (after `tsc`): bundles the `parity` CLI from its TypeScript
 * sources (`harness/cli/main.ts`) into `dist/bundle/` with esbuild, one file per command plus
 * shared chunks (code splitting keeps the per-command lazy imports of `harness/cli/commands.ts`).
 * `bin/parity.js` imports only this bundle: built from the sources, it never lags behind a
 * compiled tree that a later bare `tsc` rewrote, so there is no second entry to choose.
 *
 * Why: Node 20 has no compile cache for ES modules (`module.enableCompileCache` is Node 22),
 * and resolving, reading and linking the ~400 small modules of a command and its packages
 * (yargs, zod, the ACP and MCP SDKs) cost more than compiling them. One bundle per command
 * loads in about a third of the time. The library export (`dist/index.js`) and the processes
 * a replay spawns keep the unbundled tree, so what a runtime loads is unchanged.
 *
 * A bundled module that finds files next to itself through `import.meta.url` would look in
 * `dist/bundle/` instead: the build fails unless every such module is known to resolve from
 * any depth of `dist/` ({@link LOCATION_INDEPENDENT}).
 *
 * Then every process a replay spawns from the compiled tree gets a bundle of its own, written
 * beside its entry as `<name>.bundle.js` ({@link BRIDGE_BUNDLE_SUFFIX}; shared code in chunks
 * under `dist/bundle/spawned/`): the bridge bootstrap,
 * the Node replay child, and every bridge module `dist/stack/<family>/bridge.js` — found by
 * that name, so a bridge family added under `stack/` is bundled without being listed here. A
 * bridge loads about 200 modules unbundled; the replay spawns the bundle when it exists
 * (harness/replay/bridge/repo-paths.ts) and the unbundled entry otherwise. Being beside its entry, a
 * bundle may also hold modules of the entry's own folder that find files through
 * `import.meta.url` (the ACP bridge's MCP proxy script).
 */
import { build, type Metafile, type Plugin } from "esbuild";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { lazyStringWidth } from "./lazy-string-width.js";

/**
 * Modules that use `import.meta.url` but find the package from any directory under `dist/`: as
 * compiled (the spawned entries' bundles) and as sources (the CLI bundle).
 */
const LOCATION_INDEPENDENT = [
  "dist/harness/recording/package-root.js",
  "dist/harness/runtime/spawn-bridge.js",
  "harness/recording/package-root.ts",
  "harness/runtime/spawn-bridge.ts",
  // `createRequire(import.meta.url)` for a package: resolved through `node_modules` from any folder of the package.
  "dist/stack/acp/interaction/elicitation-guards.js",
  "stack/acp/interaction/elicitation-guards.ts",
];

/**
 * zod's locales other than English, left out of every bundle: zod exports all its locales
 * (`z.locales`, `z.core.locales`; about 360 kB, half of zod's bundled source), only English is
 * used (zod registers it as the default itself), and nothing in this package calls
 * `z.config(z.locales.…)`. Every process parses what it loads: leaving them out measured about
 * 30 ms of CPU less per process (the CLI and each bridge), on this repository's 2-core machine.
 * `z.locales.en` stays; any other locale is `undefined` in the bundles.
 */
export const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), "../locales/index.js"), namespace: "zod-english-only" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), "en.js"))};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/** The bundled CLI entry `bin/parity.js` imports, relative to the package root. */
export const CLI_BUNDLE = "dist/bundle/cli.js";

/** Project modules in the bundle that read `import.meta.url` and are not known to be location-independent. */
function locationDependentInputs(metafile: Metafile, root: string): string[] {
  return Object.keys(metafile.inputs).filter(
    (input) =>
      !input.startsWith("node_modules/") && !input.includes("/node_modules/") && !LOCATION_INDEPENDENT.includes(input) && readFileSync(path.join(root, input), "utf8").includes("import.meta.url"),
  );
}

/** What a spawned entry's bundle is named: `bridge.js` → `bridge.bundle.js`, in the same folder. */
export const BRIDGE_BUNDLE_SUFFIX = ".bundle.js";

/** Entries the replay spawns as processes of their own, relative to the package root. */
const SPAWNED_ENTRIES = ["dist/stack/bridge-kit/bootstrap.js", "dist/harness/replay/stand-ins/replay-child.js"];

/** Every bridge module by convention, `dist/stack/<family>/bridge.js`, plus {@link SPAWNED_ENTRIES}. */
function spawnedEntries(root: string): string[] {
  const stack = path.join(root, "dist", "stack");
  const bridges = readdirSync(stack, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(stack, entry.name, "bridge.js")))
    .map((entry) => `dist/stack/${entry.name}/bridge.js`)
    .sort();
  return [...SPAWNED_ENTRIES, ...bridges];
}

/**
 * Bundles the spawned entries, each into one file beside it, the code they share (the bridge
 * kit, the protocol schemas, zod) in chunks under `dist/bundle/spawned/`, loaded and evaluated
 * once per process whether the bootstrap or the bridge imports it. Returns the inputs that read
 * `import.meta.url` and landed in an output outside their own folder.
 */
async function bundleSpawned(root: string, entries: readonly string[]): Promise<string[]> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [...entries],
    outbase: "dist",
    outdir: "dist",
    entryNames: `[dir]/[name]${BRIDGE_BUNDLE_SUFFIX.slice(0, -".js".length)}`,
    chunkNames: "bundle/spawned/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: 'import { createRequire as __parityRequire } from "node:module"; const require = __parityRequire(import.meta.url);' },
    metafile: true,
    plugins: [zodEnglishOnly],
    logLevel: "warning",
  });
  const dependent = new Set(locationDependentInputs(result.metafile, root));
  const stray: string[] = [];
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    for (const input of Object.keys(meta.inputs)) {
      if (dependent.has(input) && path.dirname(input) !== path.dirname(output)) stray.push(`${input} (in ${output})`);
    }
  }
  return stray;
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  // Chunk names carry a content hash: a stale chunk of an earlier build would stay forever.
  rmSync(path.join(root, path.dirname(CLI_BUNDLE)), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: "harness/cli/main.ts" },
    tsconfig: "tsconfig.build.json",
    outdir: path.dirname(CLI_BUNDLE),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunks/[name]-[hash]",
    // CommonJS packages inside the bundle call `require`; an ES module has none of its own.
    banner: { js: 'import { createRequire as __parityRequire } from "node:module"; const require = __parityRequire(import.meta.url);' },
    metafile: true,
    plugins: [zodEnglishOnly, lazyStringWidth],
    logLevel: "warning",
  });
  const stray = locationDependentInputs(result.metafile, root);
  const entries = spawnedEntries(root);
  for (const entry of entries) rmSync(path.join(root, entry.replace(/\.js$/, BRIDGE_BUNDLE_SUFFIX)), { force: true });
  stray.push(...(await bundleSpawned(root, entries)));
  if (stray.length > 0) {
    process.stderr.write(`bundle: these modules find files through import.meta.url and would look in the wrong folder once bundled: ${stray.join(", ")}\n`);
    process.exitCode = 1;
  }
}

await main();
