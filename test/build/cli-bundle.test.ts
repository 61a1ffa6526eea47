import { spawnSync } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Spawns bin/parity.js, which imports the bundle `npm run build` writes (npm test builds first).
const bin = path.join(repoRoot, "bin", "parity.js");
const COMMAND_WORDS = ["check", "list", "lanes", "diff", "allow", "replay", "record", "rerecord", "conform", "probe"];

function spawnParity(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
}

/** Files Node's ESM loader stored while running `parity <args>` (from its own NODE_DEBUG=esm trace). */
function loadedFiles(args: string[]): string[] {
  const run = spawnParity(args, { NODE_DEBUG: "esm" });
  return [...run.stderr.matchAll(/Storing (file:\/\/\S+)/g)].map((m) => path.basename(m[1]!));
}

/** Command modules among loaded files: esbuild names a lazily imported command's chunk after its file. */
const commandChunks = (files: string[]): string[] => files.filter((f) => COMMAND_WORDS.some((w) => f.startsWith(`${w}-`)));

describe("the bundled CLI", () => {
  it("prints what the unbundled CLI prints, for help, a usage error and an unknown command", async () => {
    for (const args of [["--help"], ["check", "--help"], ["check", "--jobs", "x"], ["lsit"], ["--version"]]) {
      const bundled = spawnParity(args);
      const source = await runCli(args);
      expect({ args, code: bundled.status, out: bundled.stdout, err: bundled.stderr }).toEqual({ args, code: source.code, out: source.out, err: source.err });
    }
  });

  it("loads no command for --version and only the named one for check --help", () => {
    const version = loadedFiles(["--version"]);
    expect(version.some((f) => f === "cli.js")).toBe(true);
    expect(commandChunks(version)).toEqual([]);
    const check = commandChunks(loadedFiles(["check", "--help"]));
    expect(check).toHaveLength(1);
    expect(check[0]).toMatch(/^check-/);
  });

  it("runs the compiled tree instead of a bundle older than it (a bare tsc after the last npm run build)", () => {
    const bundle = path.join(repoRoot, "dist", "bundle", "cli.js");
    const { atime, mtime } = statSync(bundle);
    utimesSync(bundle, new Date(0), new Date(0));
    try {
      const files = [...spawnParity(["--version"], { NODE_DEBUG: "esm" }).stderr.matchAll(/Storing file:\/\/(\S+)/g)].map((m) => m[1]!);
      expect(files.some((f) => f.endsWith("/dist/harness/cli/main.js"))).toBe(true);
      expect(files.some((f) => f.includes("/dist/bundle/"))).toBe(false);
    } finally {
      utimesSync(bundle, atime, mtime);
    }
    expect(loadedFiles(["--version"])).toContain("cli.js");
  });
});
