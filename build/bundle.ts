/**
 * `npm run build`'s second step (after `tsc`): bundles the `parity` CLI from the compiled
 * `dist/` tree into `dist/bundle/` with esbuild, one file per command plus shared chunks
 * (code splitting keeps the per-command lazy imports of `harness/cli/commands.ts`).
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
 */
import { build, type Metafile } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Compiled modules that use `import.meta.url` but find the package from any directory under `dist/`. */
const LOCATION_INDEPENDENT = ["dist/harness/replay/repo-paths.js", "dist/harness/runtime/spawn-bridge.js"];

/** The bundled CLI entry `bin/parity.js` imports, relative to the package root. */
export const CLI_BUNDLE = "dist/bundle/cli.js";

/** Project modules in the bundle that read `import.meta.url` and are not known to be location-independent. */
function locationDependentInputs(metafile: Metafile, root: string): string[] {
  return Object.keys(metafile.inputs).filter(
    (input) =>
      input.startsWith("dist/") &&
      !LOCATION_INDEPENDENT.includes(input) &&
      readFileSync(path.join(root, input), "utf8").includes("import.meta.url"),
  );
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  // Chunk names carry a content hash: a stale chunk of an earlier build would stay forever.
  rmSync(path.join(root, path.dirname(CLI_BUNDLE)), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { cli: "dist/harness/cli/main.js" },
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
    logLevel: "warning",
  });
  const stray = locationDependentInputs(result.metafile, root);
  if (stray.length > 0) {
    process.stderr.write(`bundle: these modules find files through import.meta.url and would look in dist/bundle/: ${stray.join(", ")}\n`);
    process.exitCode = 1;
  }
}

await main();
