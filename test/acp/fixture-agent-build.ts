/**
 * Test helper: compiles the fixture ACP agent (stack/acp/fixture-agent) and the MCP proxy
 * (stack/acp/dynamic-tools) once per source content into `<repo>/tmp/<name>-<hash>/` (git-ignored)
 * and returns the path of the entry's `.js`. The content hashed is the entry's folder plus the
 * lower layers it may import (`stack/protocol`, `stack/bridge-kit`), so a change there recompiles.
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
/** Where the compiled tree is rooted: the entry keeps its path below it, so `../../bridge-kit/…` resolves. */
const STACK_DIR = join(REPO_ROOT, "stack");
/** Folders an entry's folder may import from (stack/acp/fixture-agent/README.md). */
const LOWER_LAYERS = [join(STACK_DIR, "protocol"), join(STACK_DIR, "bridge-kit")];

/** Returns the path of the compiled fixture agent entry (compiling it when the sources changed). */
export function fixtureAgentMain(): string {
  return compileEntry(SOURCE_DIR, "main", "acp-fixture");
}

/**
 * Returns the path of the compiled `bb-bridge` MCP proxy entry (stack/acp/dynamic-tools/mcp-main.ts),
 * which also imports the scheduler of stack/bridge-kit.
 */
export function mcpProxyMain(): string {
  return compileEntry(join(REPO_ROOT, "stack/acp/dynamic-tools"), "mcp-main", "acp-mcp-proxy");
}

function compileEntry(sourceDir: string, entry: string, prefix: string): string {
  const hash = createHash("sha256");
  for (const dir of [sourceDir, ...LOWER_LAYERS]) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
      hash.update(relative(STACK_DIR, join(dir, file)));
      hash.update(readFileSync(join(dir, file)));
    }
  }
  const outDir = join(REPO_ROOT, "tmp", `${prefix}-${hash.digest("hex").slice(0, 16)}`);
  const main = join(outDir, relative(STACK_DIR, sourceDir), `${entry}.js`);
  if (!existsSync(main)) {
    execFileSync(
      process.execPath,
      [
        join(REPO_ROOT, "node_modules/typescript/bin/tsc"),
        "--outDir", outDir,
        "--rootDir", STACK_DIR,
        "--module", "nodenext",
        "--moduleResolution", "nodenext",
        "--target", "es2022",
        "--strict",
        "--skipLibCheck",
        "--types", "node",
        join(sourceDir, `${entry}.ts`),
      ],
      { cwd: REPO_ROOT, stdio: "pipe" },
    );
  }
  return main;
}
