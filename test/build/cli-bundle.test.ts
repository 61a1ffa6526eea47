import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Spawns bin/parity.js, whose one entry is the bundle `npm run build` writes from the sources
// (npm test builds first; a later bare tsc, which some tests run, does not touch it).
const bin = path.join(repoRoot, "bin", "parity.js");
const bundle = path.join(repoRoot, "dist", "bundle", "cli.js");
const COMMAND_WORDS = ["check", "list", "lanes", "diff", "allow", "replay", "record", "facts", "rerecord", "conform", "probe"];

function spawnParity(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
}

/** Files (absolute paths) Node's ESM loader stored while running `parity <args>` (its own NODE_DEBUG=esm trace). */
function loadedFiles(args: string[]): string[] {
  const run = spawnParity(args, { NODE_DEBUG: "esm" });
  return [...run.stderr.matchAll(/Storing file:\/\/(\S+)/g)].map((m) => m[1]!);
}

/**
 * Command modules among loaded files: `dist/harness/cli/<command>.js` unbundled; in the bundle,
 * esbuild names a lazily imported command's chunk after its file (`chunks/<command>-<hash>.js`).
 */
const commandModules = (files: string[]): string[] =>
  files.flatMap((file) => {
    const match = /\/dist\/(?:harness\/cli\/(\w+)\.js|bundle\/chunks\/(\w+)-[A-Z0-9]+\.js)$/.exec(file);
    const word = match?.[1] ?? match?.[2];
    return word !== undefined && COMMAND_WORDS.includes(word) ? [word] : [];
  });

describe("the bundled CLI", () => {
  it("prints what the unbundled CLI prints, for help, a usage error and an unknown command", async () => {
    for (const args of [["--help"], ["check", "--help"], ["check", "--jobs", "x"], ["lsit"], ["--version"]]) {
      const bundled = spawnParity(args);
      const source = await runCli(args);
      expect({ args, code: bundled.status, out: bundled.stdout, err: bundled.stderr }).toEqual({ args, code: source.code, out: source.out, err: source.err });
    }
  });

  it("loads no command for --version and only the named one for check --help", () => {
    expect(commandModules(loadedFiles(["--version"]))).toEqual([]);
    expect(commandModules(loadedFiles(["check", "--help"]))).toEqual(["check"]);
  });

  it("has one entry, the bundle: nothing of the compiled harness/ is loaded", () => {
    const loaded = loadedFiles(["--version"]);
    expect(loaded).toContain(bundle);
    expect(loaded.some((f) => f.includes("/dist/harness/"))).toBe(false);
    expect(readFileSync(bin, "utf8")).not.toMatch(/statSync|mtime|dist\/harness/);
  });

  it("keeps zod's English locale only, in the CLI bundle and in every spawned bundle (build/bundle.ts, zodEnglishOnly)", () => {
    const dist = path.join(repoRoot, "dist");
    const bundles = readdirSync(dist, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".js") && (file.startsWith(`bundle${path.sep}`) || file.endsWith(".bundle.js")))
      .map((file) => path.join(dist, file));
    // esbuild heads each bundled module with a `// <its path>` comment line.
    const locales = new Set(bundles.flatMap((file) => [...readFileSync(file, "utf8").matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/(\S+)$/gm)].map((m) => m[1]!)));
    expect(bundles.length).toBeGreaterThan(10);
    expect([...locales]).toEqual(["en.js"]);
  });
});
