import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

// Second new-user trial: `conform --bridge <not a bridge>` and a `--launch-spec` whose command
// does not exist ran all fourteen rules and exited 1; each is now exit 2 with one line, nothing run.

const scratch = mkdtempSync(path.join(tmpdir(), "parity-ux2-conform-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
};

/** Exit 2, nothing on stdout, exactly one stderr line matching `pattern`, no stack trace. */
function expectOneLine(r: { code: number; out: string; err: string }, pattern: RegExp): void {
  expect(r.code, r.err + r.out).toBe(2);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toHaveLength(2);
  expect(r.err).toMatch(pattern);
}

describe("conform --bridge <module> is checked as check --module is", () => {
  it("./dist/index.js (the package index, not a bridge): exit 2, one line", async () => {
    expectOneLine(await runCli(["conform", "--bridge", "./dist/index.js"]), /^parity: --bridge \.\/dist\/index\.js: does not export experimental_providerBridge .*\n$/);
  });

  it("a module that throws on load: exit 2 naming the error", async () => {
    const file = write("throws.mjs", 'throw new Error("kaboom on load");\n');
    expectOneLine(await runCli(["conform", "--bridge", file]), /: cannot load: kaboom on load\n$/);
  });

  it("a missing path that is not a known name keeps its message", async () => {
    expectOneLine(await runCli(["conform", "--bridge", "./nope.js"]), /^parity: --bridge \.\/nope\.js: no such module, and not a known bridge name \(echo/);
  });

  it("the known names and the echo bridge's module path still run", async () => {
    const byName = await runCli(["conform", "--bridge", "echo", "--json"]);
    expect(byName.code, byName.err).toBe(0);
    const byPath = await runCli(["conform", "--bridge", "dist/stack/echo/bridge.js", "--json"]);
    expect(byPath.code, byPath.err).toBe(0);
  });
});

describe("conform --launch-spec: the command must resolve", () => {
  it('{"command":"x"} (not on PATH): exit 2 naming the file and the command', async () => {
    write("x.json", JSON.stringify({ displayName: "x", command: "x", args: [], env: {} }));
    expectOneLine(await runCli(["conform", "--bridge", "acp", "--launch-spec", "x.json"], { cwd: scratch }), /^parity: x\.json: command "x" is not on PATH; install it, or give its path/);
  });

  it("a spec env.PATH is where the name is looked up", async () => {
    write("path.json", JSON.stringify({ displayName: "x", command: "node", args: [], env: { PATH: scratch } }));
    expectOneLine(await runCli(["conform", "--bridge", "acp", "--launch-spec", "path.json"], { cwd: scratch }), /command "node" is not on PATH/);
  });

  it("a relative path resolves against the working directory; missing or not executable is refused", async () => {
    write("rel.json", JSON.stringify({ displayName: "x", command: "./bin/agent", args: [], env: {} }));
    expectOneLine(
      await runCli(["conform", "--bridge", "acp", "--launch-spec", "rel.json"], { cwd: scratch }),
      new RegExp(`^parity: rel\\.json: command "\\./bin/agent": no executable file at ${scratch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/bin/agent\\n$`),
    );
    const plain = write("plain-agent", "#!/bin/sh\n");
    chmodSync(plain, 0o644);
    write("noexec.json", JSON.stringify({ displayName: "x", command: "./plain-agent", args: [], env: {} }));
    expectOneLine(await runCli(["conform", "--bridge", "acp", "--launch-spec", "noexec.json"], { cwd: scratch }), /no executable file at /);
  });
});
