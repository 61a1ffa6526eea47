import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBridgeModuleFlag } from "../../harness/cli/flag-checks.js";
import { probeBridgeModule } from "../../harness/cli/module-probe.js";
import { EXIT_CODES, InfrastructureTimeoutError } from "../../harness/errors.js";
import { repoRoot, runCli } from "./run-cli.js";

// A user's --module / --bridge is loaded in a child process for the flag check: its top-level
// process.exit is reported (exit 2, one line), never inherited as parity's own exit code.

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "parity-usermod-"));
  await writeFile(path.join(dir, "exit0.mjs"), "process.exit(0);\n");
  await writeFile(path.join(dir, "exit3.mjs"), "process.exit(3);\n");
  const echo = `export { experimental_providerBridge } from ${JSON.stringify(path.join(repoRoot, "dist/stack/echo/bridge.js"))};`;
  await writeFile(path.join(dir, "noisy-bridge.mjs"), ['console.log("hello from the top level");', echo, ""].join("\n"));
  // A timer that never ends keeps a process alive: the check's child must still answer and go.
  await writeFile(path.join(dir, "timer-bridge.mjs"), ['console.log("hello");', "setInterval(() => {}, 1000);", echo, ""].join("\n"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("user modules load in a child process", () => {
  it("check --module whose top level calls process.exit(0): exit 2 naming the module, never a silent pass", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", path.join(dir, "exit0.mjs")]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/^parity: --module \S+exit0\.mjs: its top level ended the process \(exit code 0\) while loading; a bridge module must not call process\.exit\n$/);
  });

  it("process.exit(3) does not borrow record's 'secret survived' code: exit 2", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", path.join(dir, "exit3.mjs")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/exit3\.mjs: its top level ended the process \(exit code 3\)/);
  });

  it("the same through the real executable (the parity process itself is not ended)", () => {
    for (const [file, code] of [
      ["exit0.mjs", "0"],
      ["exit3.mjs", "3"],
    ] as const) {
      const r = spawnSync(process.execPath, [path.join(repoRoot, "bin/parity.js"), "check", "--provider", "echo", "--module", path.join(dir, file)], {
        cwd: repoRoot,
        encoding: "utf8",
        env: { ...process.env, CI: "true" },
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`(exit code ${code}) while loading`);
    }
  });

  it("conform --bridge with a module that exits: exit 2, one line", async () => {
    const r = await runCli(["conform", "--bridge", path.join(dir, "exit0.mjs")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: --bridge \S+exit0\.mjs: its top level ended the process \(exit code 0\)/);
  });

  it("a bridge that prints (or keeps a timer) at its top level passes the flag check; its output does not leak into the report", async () => {
    expect(await probeBridgeModule(path.join(dir, "noisy-bridge.mjs"))).toEqual({ kind: "bridge" });
    expect(await probeBridgeModule(path.join(dir, "timer-bridge.mjs"))).toEqual({ kind: "bridge" });
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", path.join(dir, "noisy-bridge.mjs"), "--json"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain("hello from the top level");
  });
});

// Issue 38: the probe's bound on loading is a bound on the impossible, which a loaded machine can
// reach: an infrastructure timeout (exit 4), not a usage error (exit 2). The module here never
// finishes loading (a timer keeps its child alive under a top-level await that never settles), so
// the bound is reached whatever the machine: it is set to 1 ms only to keep the test short.
describe("a module that does not finish loading", () => {
  it("is an infrastructure timeout: InfrastructureTimeoutError, exit code 4, one line naming the flag", async () => {
    await writeFile(path.join(dir, "never-loads.mjs"), "setInterval(() => {}, 1000);\nawait new Promise(() => {});\n");
    const thrown = await checkBridgeModuleFlag("never-loads.mjs", dir, "module", { timeoutMs: 1 }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(InfrastructureTimeoutError);
    expect((thrown as InfrastructureTimeoutError).exitCode).toBe(EXIT_CODES.infrastructureTimeout);
    expect((thrown as Error).message).toBe("--module never-loads.mjs: did not finish loading within 0.001 s (its top-level code was still waiting); infrastructure timeout, nothing was replayed");
  });
});
