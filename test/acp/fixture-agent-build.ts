/**
 * Test helper: bundles the fixture ACP agent (stack/acp/fixture-agent/main.ts) and the `bb-bridge`
 * MCP proxy (stack/acp/dynamic-tools/mcp-main.ts) with esbuild, from source, into
 * `<repo>/tmp/<name>-<hash>/<entry>.js` (git-ignored), and returns that path. The hash is of the
 * bundle itself, so a change in any file the entry imports, in any folder, gives a new build, and
 * nothing is ever written beside a source. npm packages stay external (resolved from the repo's
 * node_modules). Bundling from source keeps tests independent of a stale `dist/`.
 *
 * A bundle costs 50–80 ms of CPU, and the ACP tests ask for the fixture agent hundreds of times, so
 * `test/helpers/bundles-setup.ts` (vitest's global setup) bundles each entry of `TEST_BUNDLES` once
 * per run and provides the paths; a test asks for them with `bundled`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { inject } from "vitest";

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The entries tests run as processes, by bundle name (the `tmp/<name>-<hash>/` prefix), as repo-relative sources. */
export const TEST_BUNDLES = {
  "acp-fixture": "stack/acp/fixture-agent/main.ts",
  "acp-mcp-proxy": "stack/acp/dynamic-tools/mcp-main.ts",
  "pi-fixture": "stack/pi/fixture-agent/main.ts",
} as const;

/** A bundle name of `TEST_BUNDLES`. */
export type TestBundleName = keyof typeof TEST_BUNDLES;

/** Bundles every entry of `TEST_BUNDLES`; returns their paths by name (the global setup's work). */
export function bundleAll(): Record<TestBundleName, string> {
  const names = Object.keys(TEST_BUNDLES) as TestBundleName[];
  return Object.fromEntries(names.map((name) => [name, bundleEntry(join(REPO_ROOT, TEST_BUNDLES[name]), name)])) as Record<TestBundleName, string>;
}

/**
 * The path of bundle `name`: the one the global setup made for this run, or, outside a run that
 * has it (another config), a bundle made now.
 */
export function bundled(name: TestBundleName): string {
  return inject("testBundles")?.[name] ?? bundleEntry(join(REPO_ROOT, TEST_BUNDLES[name]), name);
}

/** Returns the path of the bundled fixture agent entry (stack/acp/fixture-agent/main.ts). */
export function fixtureAgentMain(): string {
  return bundled("acp-fixture");
}

/** Returns the path of the bundled `bb-bridge` MCP proxy entry (stack/acp/dynamic-tools/mcp-main.ts). */
export function mcpProxyMain(): string {
  return bundled("acp-mcp-proxy");
}

/**
 * Bundles `entry` (an absolute `.ts` path) in memory and writes it to `tmp/<prefix>-<hash>/` unless
 * that file exists; written through a temp name and a rename, so a test file running beside this
 * one never reads half a bundle. Throws esbuild's error for source that does not build.
 */
export function bundleEntry(entry: string, prefix: string): string {
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    write: false,
    outfile: "bundle.js",
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.contents;
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  const outDir = join(REPO_ROOT, "tmp", `${prefix}-${hash}`);
  const main = join(outDir, entry.replace(/^.*[\\/]/, "").replace(/\.ts$/, ".js"));
  if (!existsSync(main)) {
    mkdirSync(outDir, { recursive: true });
    const temp = `${main}.${process.pid}.tmp`;
    writeFileSync(temp, code);
    renameSync(temp, main);
  }
  return main;
}
