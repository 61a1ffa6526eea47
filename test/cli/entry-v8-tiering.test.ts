import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./run-cli.js";

// Issue 25 (start-up): `bin/parity.js` raises V8's interrupt budget (how much bytecode a function
// runs before TurboFan is asked to optimise it) before it imports the CLI's bundle, so a short run
// does not pay for background optimising compiles (bench/README.md, "V8's tiering").
//
// The real entry is run with a preload that logs, in order, each `v8.setFlagsFromString` call and
// every module the process loads.

let dir = "";
let preload = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "parity-entry-flags-"));
  const hooks = path.join(dir, "hooks.mjs");
  await writeFile(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.ENTRY_FLAGS_LOG, "load " + url + "\\n");
  return next(url, context);
}
`,
  );
  preload = path.join(dir, "preload.mjs");
  await writeFile(
    preload,
    `import { register, syncBuiltinESMExports } from "node:module";
import v8 from "node:v8";
import { appendFileSync } from "node:fs";
register(${JSON.stringify(`file://${hooks}`)});
const set = v8.setFlagsFromString;
v8.setFlagsFromString = function (flags) {
  appendFileSync(process.env.ENTRY_FLAGS_LOG, "flags " + flags + "\\n");
  return set.call(this, flags);
};
syncBuiltinESMExports();
`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `node --import <preload> bin/parity.js <args>`; the log's lines in order. */
async function logged(args: string[]): Promise<{ code: number | null; stdout: string; lines: string[] }> {
  const log = path.join(dir, `log-${args.join("-")}.txt`);
  await writeFile(log, "");
  const child = spawn(process.execPath, ["--import", preload, path.join(repoRoot, "bin/parity.js"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ENTRY_FLAGS_LOG: log },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, lines: readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

/** V8's default of a numeric flag, as this Node prints it (`--interrupt-budget=67584`). */
function v8Default(flag: string): number {
  const text = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
  const match = new RegExp(`default: --${flag}=(\\d+)`).exec(text);
  if (!match) throw new Error(`node --v8-options names no default for --${flag}`);
  return Number(match[1]);
}

describe("bin/parity.js and V8's tiering", () => {
  it("raises the interrupt budget above V8's default before the CLI's bundle is loaded", async () => {
    const { code, stdout, lines } = await logged(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const flagsAt = lines.findIndex((l) => l.startsWith("flags --interrupt-budget="));
    const bundleAt = lines.findIndex((l) => l.startsWith("load ") && l.endsWith("/dist/bundle/cli.js"));
    expect(flagsAt).toBeGreaterThanOrEqual(0);
    expect(bundleAt).toBeGreaterThan(flagsAt);
    const budget = Number(lines[flagsAt]!.slice("flags --interrupt-budget=".length));
    expect(budget).toBeGreaterThan(v8Default("interrupt-budget"));
    // One call, and no other flag: the entry changes when code is optimised, nothing else.
    expect(lines.filter((l) => l.startsWith("flags "))).toEqual([lines[flagsAt]]);
  });
});
