/**
 * What an agent CLI needs of the host is checked before a recording starts (issue 38): Codex
 * without bubblewrap puts "could not find bubblewrap on PATH" into the lane, so `parity record`
 * refuses in one line naming the Debian package. bwrap is hidden from PATH here, never
 * uninstalled: the PATHs are temp dirs of symbolic links (the machine is shared).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { fillProfileTemplate } from "../../harness/families/agent-profile.js";
import { CODEX_HOST_PROGRAMS } from "../../harness/agents/codex.js";
import { CODEX_PROFILE } from "../../harness/families/codex/profile.js";
import { missingHostProgramLine, missingHostPrograms } from "../../harness/families/host-programs.js";
import { agentsDir, packageRoot } from "../../harness/families/record-provider.js";
import { runCli } from "../cli/run-cli.js";

const root = mkdtempSync(path.join(tmpdir(), "parity-host-programs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh PATH directory holding a link per name, each to an executable of this machine (node itself). */
function pathDir(programs: string[]): string {
  const dir = mkdtempSync(path.join(root, "path-"));
  for (const program of programs) symlinkSync(process.execPath, path.join(dir, program));
  return dir;
}

describe("host programs an agent CLI needs", () => {
  it("codex needs bwrap from the Debian package bubblewrap", () => {
    expect(CODEX_HOST_PROGRAMS.map((p) => [p.program, p.debianPackage])).toEqual([["bwrap", "bubblewrap"]]);
  });

  it("a PATH without bwrap misses it; one with an executable bwrap does not; empty PATH parts are ignored", () => {
    const without = pathDir(["git"]);
    const withIt = pathDir(["bwrap"]);
    expect(missingHostPrograms(CODEX_HOST_PROGRAMS, without)).toEqual([...CODEX_HOST_PROGRAMS]);
    expect(missingHostPrograms(CODEX_HOST_PROGRAMS, `${without}${path.delimiter}${path.delimiter}${withIt}`)).toEqual([]);
    expect(missingHostPrograms(CODEX_HOST_PROGRAMS, undefined)).toEqual([...CODEX_HOST_PROGRAMS]);
  });

  it("the line names the provider, the program and the package to install", () => {
    expect(missingHostProgramLine("codex", CODEX_HOST_PROGRAMS[0]!)).toBe(
      "codex: bwrap is not on PATH (install the Debian package bubblewrap): codex sandboxes its commands with it and writes a warning into the lane without it",
    );
  });
});

const codexInstalled = existsSync(fillProfileTemplate(CODEX_PROFILE.command, { agents: agentsDir(), repo: packageRoot() }));

describe("parity record with a PATH that hides bwrap", () => {
  // Needs the real Codex CLI (`npm run agents:install`): the check runs once the CLI is found.
  it.skipIf(!codexInstalled)("codex: exit 2, the one line naming bubblewrap, nothing written", async () => {
    const out = mkdtempSync(path.join(root, "rec-"));
    vi.stubEnv("PATH", pathDir(["git"]));
    try {
      const run = await runCli(["record", "--provider", "codex", "--cell", "turn-tools", "--out", path.join(out, "rec"), "--lanes", path.join(out, "lanes")]);
      expect(run.code).toBe(2);
      expect(run.err).toContain(`parity: ${missingHostProgramLine("codex", CODEX_HOST_PROGRAMS[0]!)}\n`);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(readdirSync(out)).toEqual([]);
  });
});

// Issue 41: a run of many cells (`--all-cells`, `--agent-version`, `--repeat`) said the missing
// program once per cell, after a progress line "recording" each time, and `--agent-version` would
// install the version first. It is checked once, before anything is installed, made or recorded.
// No agent is needed: the check reads only the provider's `hostPrograms` and PATH.
describe("a run of every cell with a PATH that hides bwrap", () => {
  for (const how of [["--all-cells"], ["--agent-version", "0.171.0"], ["--repeat", "2"]]) {
    it(`codex ${how.join(" ")}: exit 2, the one line only, nothing installed or written`, async () => {
      const out = mkdtempSync(path.join(root, "many-"));
      vi.stubEnv("PATH", pathDir(["git"]));
      vi.stubEnv("PARITY_AGENT_CACHE", path.join(out, "cache"));
      try {
        const run = await runCli(["record", "--provider", "codex", ...how, "--out", path.join(out, "rec")]);
        expect(run.code).toBe(2);
        expect(run.err).toBe(`parity: ${missingHostProgramLine("codex", CODEX_HOST_PROGRAMS[0]!)}\n`);
      } finally {
        vi.unstubAllEnvs();
      }
      expect(readdirSync(out)).toEqual([]);
    });
  }
});

// The request's own faults come before the host's (session 14 for `record --agent-version`):
// `--repeat 2 --agent-version 0.17` said bwrap was missing instead of naming the bad version.
describe("a bad version request with a PATH that hides bwrap", () => {
  for (const how of [
    ["--agent-version", "0.17"],
    ["--repeat", "2", "--agent-version", "0.17"],
  ]) {
    it(`codex ${how.join(" ")}: the version's line, exit 2, nothing installed or written`, async () => {
      const out = mkdtempSync(path.join(root, "bad-version-"));
      vi.stubEnv("PATH", pathDir(["git"]));
      vi.stubEnv("PARITY_AGENT_CACHE", path.join(out, "cache"));
      try {
        const run = await runCli(["record", "--provider", "codex", ...how, "--out", path.join(out, "rec")]);
        expect([run.code, run.err]).toEqual([2, "parity: --agent-version 0.17: not an exact version (e.g. 0.170.0; no ranges or tags)\n"]);
      } finally {
        vi.unstubAllEnvs();
      }
      expect(readdirSync(out)).toEqual([]);
    });
  }
});
