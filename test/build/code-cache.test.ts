import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliV8Flags, LATE_SCRIPT } from "../../build/code-cache.js";
import { CODE_CACHE_SUFFIX, runCachedScript } from "../../harness/cli/cached-script.js";
import { repoRoot } from "../helpers/run-cli.js";

// `parity check`'s late part runs from one script compiled with the V8 code cache `npm run build`
// wrote (build/code-cache.ts; npm test builds first). The real `parity` process is run with a
// preload that logs every file read through `fs.readFileSync` (how harness/cli/cached-script.ts
// reads the script and its cache) and, per script compiled with a cache, whether V8 rejected it.

const bin = path.join(repoRoot, "bin", "parity.js");
const script = path.join(repoRoot, LATE_SCRIPT);
const cache = `${script}${CODE_CACHE_SUFFIX}`;
// One committed cell: enough to load the late part.
const CHECK = ["check", "--recordings", "recordings", "--provider", "acp-cursor", "--cell", "approval-allow"];

let dir = "";
let preload = "";
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parity-code-cache-"));
  preload = path.join(dir, "preload.cjs");
  writeFileSync(
    preload,
    `const fs = require("node:fs"), vm = require("node:vm");
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) { fs.writeSync(2, "read " + String(file) + "\\n"); return readFileSync.call(this, file, ...rest); };
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options && options.cachedData) fs.writeSync(2, "cache " + options.filename + " rejected=" + this.cachedDataRejected + "\\n");
  }
};
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the real `node [nodeFlags] bin/parity.js <args>` with the preload; `said` is stderr without the preload's lines. */
function logged(args: string[], nodeFlags: string[] = []) {
  const run = spawnSync(process.execPath, [...nodeFlags, "-r", preload, bin, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", CI: "true" } });
  const lines = run.stderr.split("\n");
  return {
    status: run.status,
    stdout: run.stdout,
    reads: lines.filter((l) => l.startsWith("read ")).map((l) => l.slice(5)),
    caches: lines.filter((l) => l.startsWith("cache ")).map((l) => l.slice(6)),
    said: lines.filter((l) => l !== "" && !/^(read|cache) /.test(l)).join("\n"),
  };
}

/** The report without its timings, which differ between runs. */
const untimed = (out: string) => out.replace(/\d+(\.\d+)? m?s\b/g, "<time>");

describe("check's late part from a script with a V8 code cache (build/code-cache.ts)", () => {
  it("check reads the script and its cache, and V8 accepts the cache under bin/parity.js's own flags", () => {
    const run = logged(CHECK);
    expect(run.said).not.toMatch(/^parity:/m);
    expect(run.status).toBe(0);
    expect(run.reads).toEqual(expect.arrayContaining([script, cache]));
    expect(run.caches).toEqual([`${script} rejected=false`]);
  });

  it("--version and check --help read neither the script nor its cache", () => {
    for (const args of [["--version"], ["check", "--help"]]) {
      const run = logged(args);
      expect(run.status).toBe(0);
      expect(run.reads.filter((file) => file.startsWith(path.dirname(script)))).toEqual([]);
      expect(run.caches).toEqual([]);
    }
  });

  it("a cache of other V8 flags is rejected and the check runs from the source, with the same report", () => {
    const accepted = logged(CHECK);
    // Any V8 flag the cache was not written with: V8 checks the flags' hash and rejects it.
    const foreign = logged(CHECK, ["--max-old-space-size=2048"]);
    expect(foreign.caches).toEqual([`${script} rejected=true`]);
    expect({ status: foreign.status, out: untimed(foreign.stdout), said: untimed(foreign.said) }).toEqual({ status: accepted.status, out: untimed(accepted.stdout), said: untimed(accepted.said) });
  });

  it("holds no copy of a module check loaded before it: the project's errors are asked for (one instance)", () => {
    const text = readFileSync(script, "utf8");
    expect(text).toContain('__parityLoaded("harness/errors.ts")');
    expect(text).not.toContain("// harness/errors.ts\n");
    // Its own modules are in it (the markers are esbuild's: this test could fail).
    expect(text).toContain("// harness/compare/allowlist.ts\n");
  });

  it("zod is evaluated once in a check: the script holds it and no ES module chunk the check loads does", () => {
    // check builds no schema before its first bridge spawn (test/qa/check-path.test.ts), so zod
    // is one of the late modules; a second copy in an ES chunk would give two \`ZodError\` classes.
    const zodCore = /\/\/ node_modules\/zod\/v4\/core\/core\.js\n/;
    expect(readFileSync(script, "utf8")).toMatch(zodCore);
    const hooks = path.join(dir, "load-hooks.mjs");
    writeFileSync(hooks, `export async function load(url, context, next) { process._rawDebug("load " + url); return next(url, context); }\n`);
    const register = path.join(dir, "register.mjs");
    writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    const run = spawnSync(process.execPath, ["--import", register, bin, ...CHECK], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", CI: "true" } });
    expect(run.status).toBe(0);
    const chunks = run.stderr
      .split("\n")
      .filter((l) => l.startsWith("load file://") && l.includes("/dist/bundle/"))
      .map((l) => l.slice("load file://".length));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((file) => zodCore.test(readFileSync(file, "utf8")))).toEqual([]);
  });
});

describe("runCachedScript", () => {
  const source =
    '(function (exports, require, module, __filename, __dirname, __parityLoaded) { module.exports = { sum: __parityLoaded("a.ts").one + 1, base: require("node:path").basename(__filename) }; })';

  it("runs a script without its cache and with a corrupted one, to the same exports", () => {
    const file = path.join(dir, "late.js");
    writeFileSync(file, source);
    rmSync(`${file}${CODE_CACHE_SUFFIX}`, { force: true });
    const missing = runCachedScript(file, { "a.ts": { one: 1 } });
    writeFileSync(`${file}${CODE_CACHE_SUFFIX}`, "not a code cache");
    const corrupted = runCachedScript(file, { "a.ts": { one: 1 } });
    expect(missing).toEqual({ sum: 2, base: "late.js" });
    expect(corrupted).toEqual(missing);
  });

  it("names a module the script asks for that it was not handed", () => {
    const file = path.join(dir, "late-unknown.js");
    writeFileSync(file, source);
    expect(() => runCachedScript(file, {})).toThrow(`${file}: no loaded module a.ts`);
  });
});

describe("cliV8Flags", () => {
  it("reads the flags bin/parity.js sets, and refuses one it cannot read", () => {
    expect(cliV8Flags(readFileSync(bin, "utf8"))).toEqual(["--interrupt-budget=1081344"]);
    expect(cliV8Flags('setFlagsFromString("--a --b=2");\nv8.setFlagsFromString(`--c`);')).toEqual(["--a", "--b=2", "--c"]);
    expect(() => cliV8Flags("setFlagsFromString(FLAGS)")).toThrow(/one string literal/);
    expect(cliV8Flags("// no flags")).toEqual([]);
  });
});
