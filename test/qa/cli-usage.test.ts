import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

// QA: usage errors must stop a command before it does anything, and help must go through
// the CLI context (tests and embedders run `main` in-process).
describe("parity usage errors and help", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-qa-usage-"));
    dirs.push(dir);
    return dir;
  }

  it.each([
    ["an unknown flag", ["--bogus"], "parity: Unknown argument: bogus\n"],
    [
      "an extra positional",
      ["extra-positional"],
      "parity: Unknown argument: extra-positional: parity lanes takes no such positional argument; a value goes after its flag (see parity lanes --help)\n",
    ],
  ])("lanes --out with %s writes nothing and exits 2", async (_what, extra, message) => {
    const out = path.join(await tempDir(), "lanes");
    const r = await runCli(["lanes", "--recordings", path.join(repoRoot, "recordings"), "--out", out, ...extra]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(message);
    expect(r.out).toBe("");
    await expect(readdir(out)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("an unknown command with --help is a usage error, not the top-level help", async () => {
    const r = await runCli(["rerecordd", "--help"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('parity: unknown command "rerecordd"; did you mean `parity rerecord`?: see `parity --help`\n');
    expect(r.out).toBe("");
  });

  it("no command is one line and exit 2", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: Name a command: see `parity --help`.\n");
  });

  it("help goes to ctx.out, never console.log", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.out).toMatch(/^parity <command> \[options\]\n/);
    expect(top.out.replace(/\s+/g, " ")).toContain(
      "Exit codes: 0 pass, 1 parity failure, 2 usage or input error, 3 a secret survived redaction (record, import), 4 infrastructure timeout (check, replay, rerecord, review, import: the wall-clock ceiling, no verdict); 5 internal error (a file, directory or stream that could not be read or written, named in one line); 129 parent gone (SIGHUP), 130 interrupted (SIGINT), 143 terminated (SIGTERM), temp files removed.",
    );
    expect(top.out).toMatch(/Examples:\n\s+parity check\s/);
    const lanes = await runCli(["lanes", "-h"]);
    expect(lanes.code).toBe(0);
    expect(lanes.out).toMatch(/Examples:\n\s+parity lanes/);
    expect(log).not.toHaveBeenCalled();
  });
});

// QA: `parity lanes --out` with no value wrote every lane under the working directory (yargs
// gives "" and "" resolves to the cwd); `--provider a --provider b` silently dropped the filter.
describe("ambiguous string flags", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it("--out with no value is refused and nothing is written", async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), "parity-qa-novalue-"));
    dirs.push(cwd);
    const r = await runCli(["lanes", "--recordings", path.join(repoRoot, "recordings"), "--out"], { cwd });
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: --out needs a value\n");
    expect(await readdir(cwd)).toEqual([]);
  });

  it.each([
    [["lanes", "--provider", "echo", "--provider", "acp-opencode"], "parity: --provider was given more than once; give it once\n"],
    [["list", "--cell", "turn", "--cell", "resume"], "parity: --cell was given more than once; give it once\n"],
    [["lanes", "--recordings"], "parity: --recordings needs a value\n"],
    [["list", "--lanes", ""], "parity: --lanes needs a value\n"],
  ])("%j is a usage error", async (argv, message) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toBe(message);
    expect(r.out).toBe("");
  });

  it("a repeatable flag may repeat", async () => {
    const root = path.join(repoRoot, "recordings");
    const r = await runCli(["lanes", "--recordings", root, "--recordings", root, "--provider", "echo", "--cell", "zero-work"]);
    expect(r.err).not.toContain("more than once");
  });
});

describe("flag defaults are not mistaken for missing values", () => {
  it("record's --redact defaults to [] and is not 'needs a value'", async () => {
    // CI=true refuses record before it does anything, after flag checks ran.
    const r = await runCli(["record", "--provider", "echo", "--cell", "zero-work"], { ci: true });
    expect(r.err).not.toContain("needs a value");
    expect(r.code).toBe(2);
  });
});
