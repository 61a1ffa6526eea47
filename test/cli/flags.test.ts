import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closestName } from "../../harness/cli/did-you-mean.js";
import { projectCommand } from "../../harness/cli/probe.js";
import { repoRoot, runCli } from "./run-cli.js";

// Consistent flags: --timeout on every command that waits (old spellings kept, hidden), -v for
// the version, did-you-mean for a mistyped command or flag; probe finds the project's agents.

const version = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

describe("flags", () => {
  it("-v, -V and --version print the package version", async () => {
    for (const flag of ["-v", "-V", "--version"]) {
      const r = await runCli([flag]);
      expect(r.code, flag).toBe(0);
      expect(r.out, flag).toBe(`${version}\n`);
    }
  });

  it("a mistyped command or flag gets a did-you-mean; a far-off one does not", async () => {
    expect((await runCli(["chek"])).err).toBe('parity: unknown command "chek"; did you mean `parity check`?: see `parity --help`\n');
    expect((await runCli(["reveiw"])).err).toContain("did you mean `parity review`?");
    const flag = await runCli(["check", "--provder", "echo"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toBe("parity: Unknown argument: provder; did you mean --provider?\n");
    expect((await runCli(["lanes", "--jsn"])).err).toContain("did you mean --json?");
    expect((await runCli(["check", "--xyzzy"])).err).toBe("parity: Unknown argument: xyzzy\n");
    // A value typed without its flag (`parity probe acp-opencode`) is said to be one.
    expect(await runCli(["probe", "bogus"])).toEqual({
      code: 2,
      out: "",
      err: "parity: Unknown argument: bogus: parity probe takes no such positional argument; a value goes after its flag (see parity probe --help)\n",
    });
    expect((await runCli(["frobnicate"])).err).toBe('parity: unknown command "frobnicate": see `parity --help`\n');
    expect(closestName("timout", ["timeout", "lanes"])).toBe("timeout");
    expect(closestName("x", ["timeout"])).toBeUndefined();
  });

  it("every command that waits takes --timeout; conform's and probe's old --timeout-ms still works but is not shown", async () => {
    for (const name of ["check", "replay", "rerecord", "record", "review", "conform", "probe"]) {
      const help = await runCli([name, "--help"]);
      expect(help.out, name).toMatch(/--timeout\b/);
      expect(help.out, name).not.toMatch(/--timeout-ms/);
    }
    const old = await runCli(["conform", "--bridge", "echo", "--timeout-ms", "60000", "--json"]);
    expect(old.code, old.err).toBe(0);
    const bad = await runCli(["conform", "--bridge", "echo", "--timeout", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe("parity: --timeout soon: expected a positive whole number of ms\n");
    expect((await runCli(["probe", "--provider", "acp-opencode", "--timeout", "0"])).err).toBe("parity: --timeout 0: expected a positive whole number of ms\n");
    expect((await runCli(["record", "--provider", "echo", "--cell", "turn", "--timeout", "1.5"])).code).toBe(2);
  });
});

describe("probe checks its input before it shows progress", () => {
  /** `parity probe <argv>` with a progress stream that is not a terminal (a line per wait) captured apart from errors. */
  async function probe(argv: string[]): Promise<{ code: number; err: string; progress: string }> {
    let progress = "";
    const r = await runCli(["probe", ...argv], { progress: { isTTY: false, write: (text) => void (progress += text) } });
    return { code: r.code, err: r.err, progress };
  }

  it("an unknown provider, a bad customAgents file or an unterminated quote is one error line and no 'probing …' (it printed 'probing x: answered' first)", async () => {
    for (const argv of [
      ["--provider", "acp-foo"],
      ["--provider", "bogus"],
      ["--provider", "acp-foo", "--custom-agents", "no-such-agents.json"],
      ["--command", "node 'x"],
    ]) {
      const r = await probe(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err.split("\n"), argv.join(" ")).toHaveLength(2);
      expect(r.progress, argv.join(" ")).toBe("");
    }
  });

  it("an agent that does not answer ends its progress line 'no answer', not 'answered'", async () => {
    const r = await probe(["--command", "no-such-agent-anywhere"]);
    expect(r.code).toBe(1);
    expect(r.progress).toMatch(/^probing no-such-agent-anywhere… \(starting the agent and asking initialize\)\nprobing no-such-agent-anywhere: no answer after [\d.]+ s\n$/);
  });
});

describe("probe finds agents in the project's node_modules/.bin", () => {
  it("projectCommand: a bare name from node_modules/.bin before PATH; a path or an unknown name as given", async () => {
    expect(await projectCommand("opencode", [repoRoot], "/usr/bin")).toBe(path.join(repoRoot, "node_modules/.bin/opencode"));
    expect(await projectCommand("./opencode", [repoRoot], "/usr/bin")).toBe("./opencode");
    expect(await projectCommand("no-such-agent-here", [repoRoot], "/usr/bin")).toBe("no-such-agent-here");
  });

  it("the real executable, outside npx (PATH without node_modules/.bin), reaches the shipped opencode", () => {
    const PATH = (process.env.PATH ?? "")
      .split(path.delimiter)
      .filter((d) => !d.includes("node_modules"))
      .join(path.delimiter);
    const r = spawnSync(process.execPath, [path.join(repoRoot, "bin/parity.js"), "probe", "--provider", "acp-opencode", "--json"], {
      cwd: repoRoot,
      env: { ...process.env, PATH },
      encoding: "utf8",
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ reachable: true });
  });
});
