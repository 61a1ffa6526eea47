/**
 * Test helper: bundles the fixture ACP agent (stack/acp/fixture-agent/main.ts) and the `bb-bridge`
 * MCP proxy (stack/acp/dynamic-tools/mcp-main.ts) with esbuild, from source, into
 * `<repo>/tmp/<name>-<hash>/<entry>.js` (git-ignored), and returns that path. The hash is of the
 * bundle itself, so a change in any file the entry imports, in any folder, gives a new build, and
 * nothing is ever written beside a source. npm packages stay external (resolved from the repo's
 * node_modules). Bundling from source keeps tests independent of a stale `dist/`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Returns the path of the bundled fixture agent entry (bundling it when its sources changed). */
export function fixtureAgentMain(): string {
  return bundleEntry(join(REPO_ROOT, "stack/acp/fixture-agent/main.ts"), "acp-fixture");
}

/** Returns the path of the bundled `bb-bridge` MCP proxy entry (stack/acp/dynamic-tools/mcp-main.ts). */
export function mcpProxyMain(): string {
  return bundleEntry(join(REPO_ROOT, "stack/acp/dynamic-tools/mcp-main.ts"), "acp-mcp-proxy");
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
