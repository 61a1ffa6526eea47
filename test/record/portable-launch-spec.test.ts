/**
 * Portable recordings (issue 24): the launch spec a recording keeps names no directory of the
 * recording machine. The inherited `PATH` (from which every agent's env starts) is recorded as
 * `$PATH` behind the entries a profile put in front of it, which are rewritten like every other
 * path of the run (`/repo/…`). Input: a launch spec line as `parity record` wrote it before
 * (recordings/acp-pi, thread/start) with this machine's directories.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../harness/recording/redact.js";
import { machinePathDetectors, recordPathRewrites, packageRoot } from "../../harness/families/record-provider.js";
import { sweepFileText } from "../../harness/recording/redact-verify.js";
import { RECORDED_INHERITED_PATH } from "../../harness/recording/recorded-paths.js";

const dirs = { root: "/tmp/parity-x1", workspace: "/tmp/parity-x1/ws", home: "/tmp/parity-x1/home" } as Parameters<typeof recordPathRewrites>[0];

describe("the launch spec in a recording", () => {
  it("names the inherited PATH by a placeholder and the profile's entries by the project's placeholder", () => {
    const inherited = "/root/.npm/_npx/a7b5/node_modules/.bin:/work/wt/i24/node_modules/.bin:/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin";
    const redactor = createRedactor({ home: "/root", paths: recordPathRewrites(dirs, inherited) });
    const spec = { command: `${packageRoot()}/agents/node_modules/.bin/pi-acp`, env: { PATH: `${packageRoot()}/agents/node_modules/.bin:${inherited}`, HOME: dirs.home } };
    const line = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "thread/start", params: { options: { providerOptions: { acpLaunchSpec: spec } } } });
    const recorded = JSON.parse(redactor.redactLine(line)).params.options.providerOptions.acpLaunchSpec;
    expect(recorded).toEqual({
      command: "/repo/agents/node_modules/.bin/pi-acp",
      env: { PATH: `/repo/agents/node_modules/.bin:${RECORDED_INHERITED_PATH}`, HOME: "/home/user" },
    });
    expect(JSON.stringify(recorded)).not.toMatch(/\/root\/|\/work\/|_npx/);
  });

  it("names the loopback model endpoint by one origin, whatever port the run had (codex-acp quotes it in a 401)", () => {
    const redactor = createRedactor({ home: "/root", paths: recordPathRewrites(dirs, "/usr/bin:/bin", "http://127.0.0.1:41641") });
    const line = JSON.stringify({ detail: "unexpected status 401 Unauthorized, url: http://127.0.0.1:41641/v1/responses", env: { OPENAI_BASE_URL: "http://127.0.0.1:41641/v1" } });
    expect(JSON.parse(redactor.redactLine(line))).toEqual({
      detail: "unexpected status 401 Unauthorized, url: http://127.0.0.1:0/v1/responses",
      env: { OPENAI_BASE_URL: "http://127.0.0.1:0/v1" },
    });
  });

  it("a PATH of one directory is left to the path rules (no placeholder for a single path)", () => {
    expect(recordPathRewrites(dirs, "/usr/bin").map((r) => r.to)).not.toContain(RECORDED_INHERITED_PATH);
  });

  it("a launch PATH the rewrite missed (the inherited entries reordered) fails the sweep, naming each machine entry; system and project entries pass", () => {
    const inherited = `/root/.npm/_npx/a7b5/node_modules/.bin:${packageRoot()}/node_modules/.bin:/work/wt/node_modules/.bin:/node_modules/.bin:/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin`;
    const paths = recordPathRewrites(dirs, inherited);
    const redactor = createRedactor({ home: "/root", paths, forbidden: machinePathDetectors(inherited, createRedactor({ home: "/root", paths }).redactText) });
    // The shape of the committed codex/claude-code launch env before issue 24: PATH entries in another order.
    const reordered = inherited.split(":").reverse().join(":");
    const leaked = JSON.stringify({ ts: 1, run: 1, seq: 3, dir: "runtime→bridge", line: redactor.redactLine(JSON.stringify({ env: { PATH: reordered } })) });
    const rules = sweepFileText("runtime→bridge.ndjson", leaked, redactor).map((s) => s.rule);
    expect(rules).toHaveLength(4);
    expect(rules.join("\n")).toMatch(/_npx/);
    expect(rules.join("\n")).toMatch(/\\\/home\\\/user\\\/\\\.cargo/);
    // The same env as the record layer writes it: nothing survives.
    const written = JSON.stringify({ ts: 1, run: 1, seq: 3, dir: "runtime→bridge", line: redactor.redactLine(JSON.stringify({ env: { PATH: inherited }, cmd: "/repo/node_modules/.bin/opencode" })) });
    expect(written).toContain(`\\"PATH\\":\\"${RECORDED_INHERITED_PATH}\\"`);
    expect(sweepFileText("runtime→bridge.ndjson", written, redactor)).toEqual([]);
  });

  it("a directory named by its real path gets the same placeholder (copilot resolves a symlinked agents/node_modules)", () => {
    // A worktree whose agents/node_modules links to another checkout's install, and a TMPDIR behind a symlink.
    const links = new Map([
      [path.join(packageRoot(), "agents", "node_modules"), "/work/main/agents/node_modules"],
      [dirs.root, "/private/tmp/parity-x1"],
      [dirs.workspace, "/private/tmp/parity-x1/ws"],
    ]);
    const realpath = (p: string) => links.get(p) ?? p;
    const redactor = createRedactor({ home: "/root", paths: recordPathRewrites(dirs, "/usr/bin", undefined, realpath) });
    const line = JSON.stringify({ authMethods: [{ _meta: { command: "/work/main/agents/node_modules/@github/copilot/index.js" } }], cwd: "/private/tmp/parity-x1/ws/src" });
    expect(JSON.parse(redactor.redactLine(line))).toEqual({
      authMethods: [{ _meta: { command: "/repo/agents/node_modules/@github/copilot/index.js" } }],
      cwd: "/tmp/parity-workspace/src",
    });
  });

  it("a path that does not resolve keeps only its given spelling", () => {
    const rewrites = recordPathRewrites(dirs, "/usr/bin", undefined, () => {
      throw new Error("ENOENT");
    });
    expect(rewrites.map((r) => r.from)).toEqual([dirs.workspace, dirs.home, dirs.root, packageRoot()]);
  });
});
