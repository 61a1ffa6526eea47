/**
 * `parity record --agent-version` (issue 41 build point 1): the version's install plan from the
 * real providers and the real pins; the install through npm from a local tarball (`npm pack` of a
 * fixture package: offline and fast), reused once complete, nothing written to HOME; and a whole
 * record with another "version" of pi — a fixture package that runs the pinned pi — whose manifest
 * names that version, read from the cache the provider was built over, not the project's agents.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordProviders } from "../../harness/families/index.js";
import { piCliPath } from "../../harness/agents/pi.js";
import { agentsDir } from "../../harness/families/record-provider.js";
import { agentInstallDir, agentInstallPlan, installAgentVersion, readAgentPins } from "../../harness/record/agent-install.js";
import { agentCacheRoot, outerTempDir } from "../../harness/cli/record-version.js";
import { readRecording } from "../../harness/recording/reader.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-agent-install-"));
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

const pins = await readAgentPins(path.join(repoRoot, "agents"));
const packagesOf = (id: string) => recordProviders()[id]!.agentPackages;

/** `npm pack` of a package made from `files` (path → text) with this package.json; the tarball's path. */
function packFixture(pkg: Record<string, unknown>, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(root, "pkg-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const dest = mkdtempSync(path.join(root, "tgz-"));
  execFileSync("npm", ["pack", dir, "--pack-destination", dest, "--cache", path.join(root, "npm-cache"), "--loglevel=error"], { env: offlineEnv(), stdio: "ignore" });
  return path.join(dest, readdirSync(dest)[0]!);
}

/** npm's environment here: offline (a local tarball needs no registry), HOME an empty temp dir to prove nothing is written there. */
function offlineEnv(home = path.join(root, "home")): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  return { ...process.env, HOME: home, npm_config_offline: "true", npm_config_userconfig: path.join(home, ".npmrc") };
}

describe("the install plan of a version", () => {
  it("names the version package at the version and the provider's other pinned packages at their pins", () => {
    expect(agentInstallPlan("codex", "0.170.0", packagesOf("codex"), pins).packages).toEqual({ "@openai/codex": "0.170.0" });
    // The platform binary is the version package's own optional dependency, not a pin: it comes with it.
    expect(packagesOf("claude-code")).toContain("@anthropic-ai/claude-code-linux-x64");
    expect(agentInstallPlan("claude-code", "2.1.325", packagesOf("claude-code"), pins).packages).toEqual({ "@anthropic-ai/claude-code": "2.1.325" });
    expect(agentInstallPlan("acp-pi", "0.0.22", packagesOf("acp-pi"), pins).packages).toEqual({ "pi-acp": "0.0.22", "@mariozechner/pi-coding-agent": pins["@mariozechner/pi-coding-agent"] });
    expect(agentInstallPlan("pi", "0.73.0", packagesOf("pi"), pins).versionPackage).toBe("@mariozechner/pi-coding-agent");
  });

  it("refuses a range, a tag, a provider without an npm agent and one whose agent is not pinned, in one line", () => {
    expect(() => agentInstallPlan("codex", "^0.170.0", packagesOf("codex"), pins)).toThrow("--agent-version ^0.170.0: not an exact version (e.g. 0.170.0; no ranges or tags)");
    expect(() => agentInstallPlan("codex", "latest", packagesOf("codex"), pins)).toThrow(/not an exact version/);
    expect(() => agentInstallPlan("echo", "1.0.0", packagesOf("echo"), pins)).toThrow("--agent-version 1.0.0: provider echo cannot be recorded at another version (it runs no npm agent)");
    expect(() => agentInstallPlan("acp-opencode", "1.0.0", packagesOf("acp-opencode"), pins)).toThrow(/is not pinned in agents\/package.json/);
    // parity drift asks with --from/--to: its refusals name that flag.
    expect(() => agentInstallPlan("codex", "0.17", packagesOf("codex"), pins, "--to")).toThrow("--to 0.17: not an exact version (e.g. 0.170.0; no ranges or tags)");
    expect(agentInstallPlan("codex", "0.170.0", packagesOf("codex"), pins).flag).toBe("--agent-version");
  });

  it("the cache is $PARITY_AGENT_CACHE, else beside (never inside) the command's session temp dir", () => {
    expect(agentCacheRoot({ PARITY_AGENT_CACHE: "/x/cache" }, "/tmp")).toBe("/x/cache");
    expect(agentCacheRoot({}, "/tmp/parity-abc123")).toBe("/tmp/parity-agent-cache");
    expect(agentCacheRoot(undefined, "/var/tmp")).toBe("/var/tmp/parity-agent-cache");
  });
});

describe("installing a version with npm", () => {
  it("installs from the package client into <cache>/<provider>@<version>, reuses it, writes nothing to HOME", async () => {
    const tarball = packFixture({ name: "@parity-test/agent", version: "1.2.3" }, { "cli.js": "console.log('1.2.3')\n" });
    const cacheRoot = path.join(root, "cache-a");
    const env = offlineEnv(path.join(root, "home-a"));
    const plan = { provider: "fixture", versionPackage: "@parity-test/agent", version: "1.2.3", packages: { "@parity-test/agent": "1.2.3" }, flag: "--agent-version" };
    const first = await installAgentVersion(plan, { cacheRoot, env, sources: { "@parity-test/agent": tarball } });
    expect(first).toEqual({ dir: agentInstallDir(cacheRoot, plan), reused: false });
    expect(first.dir).toBe(path.join(cacheRoot, "fixture@1.2.3"));
    expect(JSON.parse(readFileSync(path.join(first.dir, "node_modules", "@parity-test", "agent", "package.json"), "utf8")).version).toBe("1.2.3");
    expect(await installAgentVersion(plan, { cacheRoot, env, sources: { "@parity-test/agent": "/nonexistent.tgz" } })).toEqual({ dir: first.dir, reused: true });
    expect(readdirSync(env.HOME!)).toEqual([]);
    expect(existsSync(path.join(cacheRoot, ".npm"))).toBe(true);
  });

  it("an install that leaves another version is an install error (exit 5), never reused", async () => {
    const tarball = packFixture({ name: "@parity-test/agent", version: "1.2.3" });
    const cacheRoot = path.join(root, "cache-b");
    const plan = { provider: "fixture", versionPackage: "@parity-test/agent", version: "1.2.4", packages: { "@parity-test/agent": "1.2.4" }, flag: "--agent-version" };
    const failing = installAgentVersion(plan, { cacheRoot, env: offlineEnv(), sources: { "@parity-test/agent": tarball } });
    await expect(failing).rejects.toMatchObject({ exitCode: 5, message: expect.stringContaining("left @parity-test/agent at 1.2.3, not 1.2.4") });
    expect(existsSync(path.join(agentInstallDir(cacheRoot, plan), ".parity-agent-install.json"))).toBe(false);
  });

  it("a version npm does not have is one line naming the flag that asked for it (drift: --from), exit 2, nothing left", async () => {
    // npm's own words for a missing version (`npm install @openai/codex@99.99.99`), from an npm
    // stand-in: the registry is not needed to show how they are reported.
    const npm = path.join(root, "npm-etarget.sh");
    writeFileSync(npm, "#!/bin/sh\necho 'npm error code ETARGET' >&2\necho 'npm error notarget No matching version found for @openai/codex@99.99.99.' >&2\nexit 1\n", { mode: 0o755 });
    const cacheRoot = path.join(root, "cache-etarget");
    for (const flag of ["--agent-version", "--from"]) {
      const plan = agentInstallPlan("codex", "99.99.99", packagesOf("codex"), pins, flag);
      const failing = installAgentVersion(plan, { cacheRoot, npm, env: offlineEnv() });
      await expect(failing).rejects.toMatchObject({
        exitCode: 2,
        message: `${flag} 99.99.99: npm has no @openai/codex@99.99.99 (notarget No matching version found for @openai/codex@99.99.99.)`,
      });
      expect(existsSync(agentInstallDir(cacheRoot, plan))).toBe(false);
    }
  });
});

// A whole record with another version: pi's "0.73.1-parity.1" is a fixture package whose cli.js runs
// the pinned pi, so it needs the agents' install (`npm run agents:install`); under CI it must run.
const piInstalled = existsSync(piCliPath(agentsDir()));
const runHere = piInstalled || process.env.CI === "true";

describe("parity record --agent-version", () => {
  it("bad versions and providers are one line, exit 2, nothing written", async () => {
    const out = path.join(root, "bad-out");
    for (const [argv, line] of [
      [["--provider", "codex", "--agent-version", "0.17"], "parity: --agent-version 0.17: not an exact version (e.g. 0.170.0; no ranges or tags)\n"],
      [["--provider", "echo", "--agent-version", "1.0.0"], "parity: --agent-version 1.0.0: provider echo cannot be recorded at another version (it runs no npm agent)\n"],
      [["--provider", "codex"], "parity: --cell: missing (name the cell to record; only --all-cells, --agent-version or --repeat records every cell of the provider)\n"],
    ] as const) {
      const run = await runCli(["record", ...argv, "--out", out], { env: { PARITY_AGENT_CACHE: path.join(root, "bad-cache") } });
      expect(run.code).toBe(2);
      expect(run.err).toBe(line);
    }
    expect(existsSync(out)).toBe(false);
    expect(existsSync(path.join(root, "bad-cache"))).toBe(false);
  });

  it("without --out, a bad version or cell makes no new folder: checked before the install and the folder", async () => {
    const made = () => readdirSync(outerTempDir()).filter((name) => name.startsWith("parity-record-codex@") || name.startsWith("parity-drift-codex@"));
    const before = made();
    const env = { PARITY_AGENT_CACHE: path.join(root, "bad-cache-2") };
    const version = await runCli(["record", "--provider", "codex", "--agent-version", "0.17"], { env });
    expect([version.code, version.err]).toEqual([2, "parity: --agent-version 0.17: not an exact version (e.g. 0.170.0; no ranges or tags)\n"]);
    const cell = await runCli(["record", "--provider", "codex", "--agent-version", "0.170.0", "--cell", "no-such-cell"], { env });
    expect(cell.code).toBe(2);
    expect(cell.err).toMatch(/^parity: unknown cell "no-such-cell" \(no .*cell\.json\); known: /);
    const drift = await runCli(["drift", "--provider", "codex", "--from", "0.170.0", "--cell", "no-such-cell"], { env });
    expect(drift.code).toBe(2);
    expect(drift.err).toMatch(/^parity: unknown cell "no-such-cell"/);
    expect(made()).toEqual(before);
    expect(existsSync(env.PARITY_AGENT_CACHE)).toBe(false);
  });

  it.skipIf(!runHere)(
    "records with the cached version: its manifest names it, the project's agents are not used",
    async () => {
      const version = "0.73.1-parity.1";
      const realCli = piCliPath(agentsDir());
      const tarball = packFixture({ name: "@mariozechner/pi-coding-agent", version, type: "module" }, { "dist/cli.js": `await import(${JSON.stringify(realCli)});\n` });
      const cacheRoot = path.join(root, "cache-pi");
      const plan = agentInstallPlan("pi", version, packagesOf("pi"), pins);
      await installAgentVersion(plan, { cacheRoot, env: offlineEnv(), sources: { "@mariozechner/pi-coding-agent": tarball } });
      const out = path.join(root, "pi-out");
      const run = await runCli(["record", "--provider", "pi", "--agent-version", version, "--cell", "zero-work", "--out", out, "--json"], { env: { PARITY_AGENT_CACHE: cacheRoot } });
      expect(run.err).toContain(`pi ${version}: agents in ${path.join(cacheRoot, `pi@${version}`)} (reused)\n`);
      expect(run.err).toContain(`[1/1] pi@${version} zero-work: recording\n`);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.out) as { recorded: Array<{ cell: string; cliVersion: string }>; failed: unknown[] };
      expect(result.failed).toEqual([]);
      expect(result.recorded.map((r) => [r.cell, r.cliVersion])).toEqual([["zero-work", `pi ${version}`]]);
      const recording = await readRecording(path.join(out, "pi", "zero-work"), { expect: { provider: "pi", cell: "zero-work" } });
      expect(recording.manifest.cliVersion).toBe(`pi ${version}`);
      expect(existsSync(path.join(out, "lanes", "pi", "zero-work.json"))).toBe(true);
    },
    300_000,
  );
});
