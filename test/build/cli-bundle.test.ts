import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI_SCRIPT, CODE_CACHE_SUFFIX } from "../../build/code-cache.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Spawns bin/parity.js, whose one entry is the script `npm run build` bundles from the sources
// and runs from its code cache (build/code-cache.ts; npm test builds first; a later bare tsc,
// which some tests run, does not touch it).
const bin = path.join(repoRoot, "bin", "parity.js");
const script = path.join(repoRoot, CLI_SCRIPT);
const COMMAND_WORDS = ["check", "list", "lanes", "diff", "allow", "replay", "record", "rerecord", "conform", "probe"];

function spawnParity(args: string[], env: NodeJS.ProcessEnv = {}, entry = bin) {
  return spawnSync(process.execPath, [entry, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
}

/** What V8 ran while running `parity <args>`, from Node's own coverage output (NODE_V8_COVERAGE): per script its URL and functions with their call counts. */
function ranScripts(args: string[]): Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "parity-coverage-"));
  try {
    expect(spawnParity(args, { NODE_V8_COVERAGE: dir }).status).toBe(0);
    return readdirSync(dir).flatMap((file) => (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { result: ReturnType<typeof ranScripts> }).result);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Command modules whose bodies ran: esbuild wraps each lazily imported module of the one-file
 * bundle in a function named after its path (`"harness/cli/<command>.ts"() { … }`), run on the
 * module's first import; a command module ran when that function was called.
 */
const commandModules = (args: string[]): string[] =>
  ranScripts(args)
    .filter((s) => s.url === pathToFileURL(script).href)
    .flatMap((s) => s.functions)
    .flatMap((f) => {
      const word = /^harness\/cli\/(\w+)\.ts$/.exec(f.functionName)?.[1];
      return word !== undefined && COMMAND_WORDS.includes(word) && f.ranges[0]!.count > 0 ? [word] : [];
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
    expect(commandModules(["--version"])).toEqual([]);
    expect(commandModules(["check", "--help"])).toEqual(["check"]);
  });

  it("has one entry, the bundled script: nothing of the compiled harness/ is loaded", () => {
    const urls = ranScripts(["--version"]).map((s) => s.url);
    expect(urls).toContain(pathToFileURL(script).href);
    expect(urls.some((u) => u.includes("/dist/harness/"))).toBe(false);
    expect(readFileSync(bin, "utf8")).not.toMatch(/statSync|mtime|dist\/harness/);
  });

  it("runs from the code cache the build wrote: V8 accepts it in a plain node process", () => {
    const probe = `const vm = require("node:vm"), fs = require("node:fs");
      const s = new vm.Script(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[1], cachedData: fs.readFileSync(process.argv[1] + "${CODE_CACHE_SUFFIX}") });
      process.stdout.write(String(s.cachedDataRejected));`;
    const run = spawnSync(process.execPath, ["-e", probe, script], { encoding: "utf8" });
    expect({ status: run.status, rejected: run.stdout }).toEqual({ status: 0, rejected: "false" });
  });

  it("runs without its code cache, and with one V8 rejects, as with a good one", () => {
    const good = spawnParity(["--version"]);
    const root = mkdtempSync(path.join(os.tmpdir(), "parity-cache-"));
    try {
      mkdirSync(path.join(root, "bin"));
      mkdirSync(path.join(root, path.dirname(CLI_SCRIPT)), { recursive: true });
      copyFileSync(bin, path.join(root, "bin", "parity.js"));
      copyFileSync(path.join(repoRoot, "package.json"), path.join(root, "package.json"));
      copyFileSync(script, path.join(root, CLI_SCRIPT));
      const copy = path.join(root, "bin", "parity.js");
      const missing = spawnParity(["--version"], {}, copy);
      // Bytes that are no V8 code cache at all: V8 rejects them and compiles from the source.
      writeFileSync(path.join(root, `${CLI_SCRIPT}${CODE_CACHE_SUFFIX}`), "not a code cache");
      const rejected = spawnParity(["--version"], {}, copy);
      for (const run of [missing, rejected]) expect({ status: run.status, out: run.stdout, err: run.stderr }).toEqual({ status: good.status, out: good.stdout, err: good.stderr });
      expect(good.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
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
