/**
 * `parity drift --from <version> [--to <version>]` (issue 41 build point 2): a side that is an
 * agent version is recorded now with that version (record --agent-version's install and record),
 * `--to` defaulting to the pinned version recorded fresh, then compared as two folders. Offline:
 * pi's other "version" is a fixture package whose cli.js runs the pinned pi, installed from an `npm
 * pack` tarball into the agent cache before the command reuses it; so it needs the agents' install
 * (`npm run agents:install`) and runs under CI. A version whose agent cannot start breaks every cell,
 * which is a change of the lanes (exit 1), never bad input.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DriftReport } from "../../harness/cli/drift.js";
import { recordProviders } from "../../harness/families/index.js";
import { piCliPath } from "../../harness/agents/pi.js";
import { agentsDir } from "../../harness/families/record-provider.js";
import { agentInstallPlan, installAgentVersion, readAgentPins } from "../../harness/record/agent-install.js";
import { repoRoot, runCli } from "./run-cli.js";

let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-drift-versions-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

const runHere = existsSync(piCliPath(agentsDir())) || process.env.CI === "true";
const PI = "@mariozechner/pi-coding-agent";

/** pi at `version` from a fixture package whose dist/cli.js is `cli`, installed offline into `cacheRoot`. */
async function installPiVersion(cacheRoot: string, version: string, cli: string): Promise<void> {
  const dir = mkdtempSync(path.join(root, "pkg-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: PI, version, type: "module" }));
  mkdirSync(path.join(dir, "dist"));
  writeFileSync(path.join(dir, "dist", "cli.js"), cli);
  const home = path.join(root, "home");
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, npm_config_offline: "true", npm_config_userconfig: path.join(home, ".npmrc") };
  const dest = mkdtempSync(path.join(root, "tgz-"));
  execFileSync("npm", ["pack", dir, "--pack-destination", dest, "--cache", path.join(root, "npm-cache"), "--loglevel=error"], { env, stdio: "ignore" });
  const plan = agentInstallPlan("pi", version, recordProviders().pi!.agentPackages, await readAgentPins(path.join(repoRoot, "agents")));
  await installAgentVersion(plan, { cacheRoot, env, sources: { [PI]: path.join(dest, readdirSync(dest)[0]!) } });
}

describe("parity drift with agent versions", () => {
  it("a side that is neither a folder nor an exact version is one line, exit 2", async () => {
    const run = await runCli(["drift", "--provider", "pi", "--from", "0.73", "--to", "recordings"]);
    expect(run.code).toBe(2);
    expect(run.err).toBe("parity: --from 0.73: neither a recordings folder nor an exact agent version (e.g. 0.170.0)\n");
  });

  it("a version side's refusal names the flag given (--from, --to), not record's --agent-version", async () => {
    // The words a new user got before: `parity: --agent-version 1.0.0: provider echo cannot be recorded …`
    // for a command that has no --agent-version.
    const cache = path.join(root, "cache-flag");
    const from = await runCli(["drift", "--provider", "echo", "--from", "1.0.0", "--to", "recordings"], { env: { PARITY_AGENT_CACHE: cache } });
    expect([from.code, from.err]).toEqual([2, "parity: --from 1.0.0: provider echo cannot be recorded at another version (it runs no npm agent)\n"]);
    const to = await runCli(["drift", "--provider", "echo", "--from", "recordings", "--to", "1.0.0"], { env: { PARITY_AGENT_CACHE: cache } });
    expect([to.code, to.err]).toEqual([2, "parity: --to 1.0.0: provider echo cannot be recorded at another version (it runs no npm agent)\n"]);
    expect(existsSync(cache)).toBe(false);
  });

  it.skipIf(!runHere)(
    "records the version and the pinned version now, compares them, and the folders it printed are reused as given",
    async () => {
      const cacheRoot = path.join(root, "cache-same");
      const version = "0.73.1-parity.1";
      await installPiVersion(cacheRoot, version, `await import(${JSON.stringify(piCliPath(agentsDir()))});\n`);
      const run = await runCli(["drift", "--provider", "pi", "--from", version, "--cell", "zero-work", "--cell", "turn-tools", "--json"], { env: { PARITY_AGENT_CACHE: cacheRoot } });
      expect(run.err).toContain(`[2/2] pi@${version} turn-tools: recorded`);
      expect(run.err).toContain("[2/2] pi@0.73.1 turn-tools: recorded");
      const report = JSON.parse(run.out) as DriftReport;
      expect(report.from).toMatchObject({ agentVersion: version, versions: [`pi ${version}`], cells: 2, failed: [] });
      expect(report.to).toMatchObject({ agentVersion: "0.73.1", versions: ["pi 0.73.1"], cells: 2, failed: [] });
      // The same pi under two version names: nothing on its wire or in its lanes changed.
      expect([report.common, report.wire, report.lanes, report.brokenCells]).toEqual([["turn-tools", "zero-work"], [], [], []]);
      expect(run.code).toBe(0);
      const from = /--from \S+: reuse these recordings with --from (\S+)\n/.exec(run.err)![1]!;
      const to = /--to \S+: reuse these recordings with --to (\S+)\n/.exec(run.err)![1]!;
      try {
        const again = await runCli(["drift", "--provider", "pi", "--from", from, "--to", to, "--json"]);
        expect(again.err).not.toContain("recording");
        expect(JSON.parse(again.out)).toMatchObject({ from: { root: from, versions: [`pi ${version}`] }, to: { root: to, versions: ["pi 0.73.1"] }, wire: [], lanes: [] });
      } finally {
        rmSync(from, { recursive: true, force: true });
        rmSync(to, { recursive: true, force: true });
      }
    },
    600_000,
  );

  it.skipIf(!runHere)(
    "a version whose agent does not start breaks its cells: named per cell, exit 1",
    async () => {
      const cacheRoot = path.join(root, "cache-broken");
      const version = "0.73.1-parity.2";
      await installPiVersion(cacheRoot, version, `process.stderr.write("pi: cannot start\\n");\nprocess.exit(1);\n`);
      const run = await runCli(["drift", "--provider", "pi", "--from", version, "--cell", "zero-work", "--json"], { env: { PARITY_AGENT_CACHE: cacheRoot } });
      const report = JSON.parse(run.out) as DriftReport;
      expect(report.from.failed!.map((f) => f.cell)).toEqual(["zero-work"]);
      expect(report.brokenCells).toEqual([{ cell: "zero-work", failedOn: "from", error: report.from.failed![0]!.error }]);
      expect(run.code).toBe(1);
      for (const m of run.err.matchAll(/reuse these recordings with --(?:from|to) (\S+)\n/g)) rmSync(m[1]!, { recursive: true, force: true });
    },
    600_000,
  );
});
