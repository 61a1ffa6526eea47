/**
 * Test helper: compiles the fixture ACP agent (stack/acp/fixture-agent) and the MCP proxy
 * (stack/acp/dynamic-tools) once per source content into `<repo>/tmp/<name>-<hash>/` (git-ignored)
 * and returns the path of the entry's `.js`.
 * Compiling from source keeps tests independent of a stale `dist/`.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SOURCE_DIR = join(REPO_ROOT, "stack/acp/fixture-agent");

/** Returns the path of the compiled fixture agent entry (compiling it when the sources changed). */
export function fixtureAgentMain(): string {
  return compileEntry(SOURCE_DIR, "main", "acp-fixture");
}

/**
 * Returns the path of the compiled `bb-bridge` MCP proxy entry (stack/acp/dynamic-tools/mcp-main.ts),
 * which also imports the scheduler of stack/bridge-kit.
 */
export function mcpProxyMain(): string {
  return compileEntry(join(REPO_ROOT, "stack/acp/dynamic-tools"), "mcp-main", "acp-mcp-proxy", [join(REPO_ROOT, "stack/bridge-kit/scheduler.ts")]);
}

/**
 * Compiles `sourceDir/<entry>.ts` unless a build of the same sources exists. `extraSources` are
 * files outside `sourceDir` the entry imports: they join the content hash, and the build is then
 * rooted at `stack/` so their relative imports still resolve.
 */
function compileEntry(sourceDir: string, entry: string, prefix: string, extraSources: string[] = []): string {
  const SOURCE_DIR = sourceDir;
  const hash = createHash("sha256");
  for (const file of readdirSync(SOURCE_DIR).filter((f) => f.endsWith(".ts")).sort()) {
    hash.update(file);
    hash.update(readFileSync(join(SOURCE_DIR, file)));
  }
  for (const file of extraSources) {
    hash.update(file);
    hash.update(readFileSync(file));
  }
  const outDir = join(REPO_ROOT, "tmp", `${prefix}-${hash.digest("hex").slice(0, 16)}`);
  const rootDir = extraSources.length === 0 ? SOURCE_DIR : join(REPO_ROOT, "stack");
  const main = join(outDir, relative(rootDir, SOURCE_DIR), `${entry}.js`);
  if (!existsSync(main)) {
    execFileSync(
      process.execPath,
      [
        join(REPO_ROOT, "node_modules/typescript/bin/tsc"),
        "--outDir", outDir,
        "--rootDir", rootDir,
        "--module", "nodenext",
        "--moduleResolution", "nodenext",
        "--target", "es2022",
        "--strict",
        "--skipLibCheck",
        "--types", "node",
        join(SOURCE_DIR, `${entry}.ts`),
      ],
      { cwd: REPO_ROOT, stdio: "pipe" },
    );
  }
  return main;
}
