import { existsSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { readOracleVersion } from "../../harness/recording/oracle-version.js";
import type { CheckReport } from "../../harness/report/check-report.js";
import { addCommandToRecording } from "../helpers/catalog-edit.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 41 build point 2: `parity drift --accept` makes the --to side the project's version — the
// pin moved by the package client (npm, lockfile only) and the new recordings and oracles pending
// for `parity review`. Without network: the --to side is a folder (the committed codex recordings
// as a re-record with 0.172.0 would name them), and `npm` is a stand-in on PATH that edits the
// manifest the way `npm install --package-lock-only --save-exact` does and logs its arguments.

const NEXT = "0.172.0";
const cells = ["turn-tools", "zero-work"];
let work = "";
let fakeBin = "";

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-drift-accept-"));
  fakeBin = path.join(work, "bin");
  await mkdir(fakeBin);
  await writeFile(
    path.join(fakeBin, "npm"),
    `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_NPM_LOG, JSON.stringify({ cwd: process.cwd(), args }) + "\\n");
if (process.env.FAKE_NPM_FAIL) { process.stderr.write("npm error code ETARGET\\nnpm error notarget No matching version found\\n"); process.exit(1); }
const spec = args.at(-1); const at = spec.lastIndexOf("@"); const name = spec.slice(0, at); const version = spec.slice(at + 1);
const field = args.includes("--save-dev") ? "devDependencies" : "dependencies";
const manifest = JSON.parse(fs.readFileSync("package.json", "utf8"));
manifest[field][name] = version;
fs.writeFileSync("package.json", JSON.stringify(manifest, null, 2) + "\\n");
fs.writeFileSync("package-lock.json", JSON.stringify({ lockfileVersion: 3, packages: { ["node_modules/" + name]: { version } } }, null, 2) + "\\n");
`,
  );
  await chmod(path.join(fakeBin, "npm"), 0o755);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
/** A project with two committed codex cells, their oracles and sidecars, and the agents' pins; and a --to folder of the same recordings naming codex 0.172.0. */
async function setup(): Promise<{ cwd: string; to: string; env: NodeJS.ProcessEnv; log: string }> {
  n += 1;
  const cwd = path.join(work, `p${n}`);
  const to = path.join(work, `to${n}`);
  for (const cell of cells) {
    await cp(path.join(repoRoot, "recordings", "codex", cell), path.join(cwd, "recordings", "codex", cell), { recursive: true });
    for (const ext of [".json", ".version"]) await cp(path.join(repoRoot, "lanes", "codex", `${cell}${ext}`), path.join(cwd, "lanes", "codex", `${cell}${ext}`));
    await cp(path.join(repoRoot, "recordings", "codex", cell), path.join(to, "codex", cell), { recursive: true });
    const manifestFile = path.join(to, "codex", cell, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
    await writeFile(manifestFile, `${JSON.stringify({ ...manifest, cliVersion: `codex ${NEXT}` }, null, 2)}\n`);
  }
  await mkdir(path.join(cwd, "agents"));
  await cp(path.join(repoRoot, "agents", "package.json"), path.join(cwd, "agents", "package.json"));
  await writeFile(path.join(cwd, "agents", "package-lock.json"), "{}\n");
  const log = path.join(work, `npm-${n}.log`);
  return { cwd, to, log, env: { ...process.env, PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ""}`, FAKE_NPM_LOG: log } };
}

describe("parity drift --accept", () => {
  it("moves the pin with npm, writes the new recordings and oracles as pending; review accepts them and the gate then holds the new version", async () => {
    const { cwd, to, env, log } = await setup();
    const before = await readFile(path.join(cwd, "recordings", "codex", "turn-tools", "provider→bridge.ndjson"), "utf8");
    const r = await runCli(["drift", "--provider", "codex", "--from", "recordings", "--to", to, "--accept"], { cwd, env });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`parity: pinned @openai/codex 0.171.0 → ${NEXT} in ${path.join("agents", "package.json")} and its lockfile (install it: npm run agents:install)\n`);
    expect(r.err).toContain("parity: 2 cells of codex pending");
    const calls = (await readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cwd: string; args: string[] });
    expect(calls).toEqual([
      { cwd: path.join(cwd, "agents"), args: ["install", "--package-lock-only", "--save-exact", "--save-prod", "--no-audit", "--no-fund", "--ignore-scripts", `@openai/codex@${NEXT}`] },
    ]);
    expect((JSON.parse(await readFile(path.join(cwd, "agents", "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["@openai/codex"]).toBe(NEXT);
    // Pending, never overwritten: the committed recording and oracle are as they were.
    expect(await readFile(path.join(cwd, "recordings", "codex", "turn-tools", "provider→bridge.ndjson"), "utf8")).toBe(before);
    expect((await readdir(path.join(cwd, "recordings", "codex"))).sort()).toEqual([".turn-tools.pending", ".zero-work.pending", "turn-tools", "zero-work"]);
    // The lanes did not change with the version here: no pending oracle, only its sidecar.
    expect(existsSync(path.join(cwd, "lanes", "codex", "turn-tools.json.pending"))).toBe(false);
    expect(await readFile(path.join(cwd, "lanes", "codex", "turn-tools.version.pending"), "utf8")).toBe(`{"cliVersion":"codex ${NEXT}"}\n`);
    // A check meanwhile neither replays the pending recordings nor clears their pending oracles.
    expect((await runCli(["check"], { cwd })).code).toBe(0);
    expect(existsSync(path.join(cwd, "lanes", "codex", "turn-tools.version.pending"))).toBe(true);
    expect(existsSync(path.join(cwd, "recordings", "codex", ".turn-tools.pending"))).toBe(true);

    // A second --accept over pending results is refused before anything is written.
    const again = await runCli(["drift", "--provider", "codex", "--from", "recordings", "--to", to, "--accept"], { cwd, env });
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/is already pending; review or reject it first/);

    let out = "";
    const review = createReviewCommand({ input: Readable.from(["a\n", "r\n"]) });
    const code = await review.run({}, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
    expect(out).toContain(`accepted: ${path.join("lanes", "codex", "turn-tools.version")}, ${path.join("recordings", "codex", "turn-tools")}\n`);
    expect(code, out).toBe(1); // zero-work rejected: its oracle is still the old version's
    expect((await readdir(path.join(cwd, "recordings", "codex"))).sort()).toEqual(["turn-tools", "zero-work"]);
    expect(await readOracleVersion(path.join(cwd, "lanes", "codex", "turn-tools.json"))).toBe(`codex ${NEXT}`);
    expect(await readOracleVersion(path.join(cwd, "lanes", "codex", "zero-work.json"))).toBe("codex 0.171.0");
    const gate = JSON.parse((await runCli(["check", "--reporter", "json"], { cwd, ci: true })).out) as CheckReport;
    expect(gate.failed).toBe(0);
    expect(gate.versions).toEqual([{ provider: "codex", recordings: ["codex 0.171.0", `codex ${NEXT}`], oracles: ["codex 0.171.0", `codex ${NEXT}`], oracleUnknown: 0, differ: [] }]);
  });

  it("a pin npm cannot move takes back every pending file and leaves the manifest as it was; under CI nothing is recorded or written", async () => {
    const { cwd, to, env } = await setup();
    const pins = await readFile(path.join(cwd, "agents", "package.json"), "utf8");
    const r = await runCli(["drift", "--provider", "codex", "--from", "recordings", "--to", to, "--accept"], { cwd, env: { ...env, FAKE_NPM_FAIL: "1" } });
    expect(r.code).toBe(5);
    expect(r.err).toContain(`parity: npm could not pin @openai/codex@${NEXT} in ${path.join(cwd, "agents", "package.json")}: notarget No matching version found\n`);
    expect(await readFile(path.join(cwd, "agents", "package.json"), "utf8")).toBe(pins);
    expect((await readdir(path.join(cwd, "recordings", "codex"))).sort()).toEqual(["turn-tools", "zero-work"]);
    expect((await readdir(path.join(cwd, "lanes", "codex"))).filter((f) => f.endsWith(".pending"))).toEqual([]);

    const ci = await runCli(["drift", "--provider", "codex", "--from", "recordings", "--to", to, "--accept"], { cwd, env, ci: true });
    expect(ci.code).toBe(2);
    expect(ci.err).toBe("parity: --accept: under CI=true nothing writes the project's pins, recordings or oracles; run it locally and commit the result\n");
  });
});

// The path where the new version's lanes differ from the committed oracles: real acp-claude
// recordings as the next claude-agent-acp release would make them, one slash command added to the
// catalog the agent sends and the bridge passes on (test/helpers/catalog-edit.ts).
describe("parity drift --accept of a version whose lanes changed", () => {
  const PROVIDER = "acp-claude";
  const ADAPTER = "@agentclientprotocol/claude-agent-acp";
  const both = ["turn-tools", "zero-work"];
  const command = { name: "ultrareview", description: "Review the branch in the cloud", input: null };

  async function upgradeProject(): Promise<{ cwd: string; to: string; env: NodeJS.ProcessEnv; pinned: string; next: string }> {
    n += 1;
    const cwd = path.join(work, `u${n}`);
    const to = path.join(work, `uto${n}`);
    const pins = JSON.parse(await readFile(path.join(repoRoot, "agents", "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const pinned = pins.dependencies[ADAPTER]!;
    const next = pinned.replace(/\.(\d+)\.(\d+)$/, (_m, minor: string) => `.${Number(minor) + 1}.0`);
    for (const cell of both) {
      await cp(path.join(repoRoot, "recordings", PROVIDER, cell), path.join(cwd, "recordings", PROVIDER, cell), { recursive: true });
      for (const ext of [".json", ".version"]) await cp(path.join(repoRoot, "lanes", PROVIDER, `${cell}${ext}`), path.join(cwd, "lanes", PROVIDER, `${cell}${ext}`));
      const dir = path.join(to, PROVIDER, cell);
      await cp(path.join(repoRoot, "recordings", PROVIDER, cell), dir, { recursive: true });
      const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as { cliVersion: string };
      expect(manifest.cliVersion).toBe(`claude-agent-acp ${pinned}`);
      await writeFile(path.join(dir, "manifest.json"), `${JSON.stringify({ ...manifest, cliVersion: `claude-agent-acp ${next}` }, null, 2)}\n`);
      // The agent's update and the bridge's recorded catalog, and its current lane where a rerecord wrote one.
      expect(await addCommandToRecording(dir, command)).toBe(existsSync(path.join(dir, "bridge→runtime.current.ndjson")) ? 3 : 2);
    }
    await mkdir(path.join(cwd, "agents"));
    await cp(path.join(repoRoot, "agents", "package.json"), path.join(cwd, "agents", "package.json"));
    await writeFile(path.join(cwd, "agents", "package-lock.json"), "{}\n");
    const log = path.join(work, `npm-u${n}.log`);
    return { cwd, to, pinned, next, env: { ...process.env, PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ""}`, FAKE_NPM_LOG: log } };
  }

  it("the pending oracles hold the new lanes, review shows the inserted command, accepting makes check pass naming the new version, rejecting a cell leaves it as committed and the pin stays for the cell kept", async () => {
    const { cwd, to, env, pinned, next } = await upgradeProject();
    const committed = Object.fromEntries(await Promise.all(both.map(async (c) => [c, await readFile(path.join(cwd, "lanes", PROVIDER, `${c}.json`), "utf8")] as const)));

    const r = await runCli(["drift", "--provider", PROVIDER, "--from", "recordings", "--to", to, "--accept"], { cwd, env });
    expect(r.code, r.err).toBe(0);
    // The drift names the change once, keyed by name, in both cells.
    expect(r.out).toContain("thread lanes: 1 change\n");
    expect(r.out).toMatch(/add {5}thread \/ thread\/extensionState\/updated \[bb\/provider-commands\]: payload\.commands\.name=ultrareview .*\(all 2 cells\)\n/);
    expect(r.err).toContain(`parity: pinned ${ADAPTER} ${pinned} → ${next} in ${path.join("agents", "package.json")}`);

    // Each pending oracle is the committed one with the command added to its catalog, nothing else.
    for (const cell of both) {
      const pendingOracle = JSON.parse(await readFile(path.join(cwd, "lanes", PROVIDER, `${cell}.json.pending`), "utf8")) as Array<{ kind?: string; payload?: { commands?: unknown[] } }>;
      const old = JSON.parse(committed[cell]!) as typeof pendingOracle;
      expect(pendingOracle.length).toBe(old.length);
      const at = old.findIndex((e) => e.kind === "bb/provider-commands");
      expect(pendingOracle[at]!.payload!.commands).toEqual([...old[at]!.payload!.commands!, command]);
      expect(pendingOracle.filter((_e, i) => i !== at)).toEqual(old.filter((_e, i) => i !== at));
      expect(await readFile(path.join(cwd, "lanes", PROVIDER, `${cell}.version.pending`), "utf8")).toBe(`{"cliVersion":"claude-agent-acp ${next}"}\n`);
      expect(await readFile(path.join(cwd, "lanes", PROVIDER, `${cell}.json`), "utf8")).toBe(committed[cell]);
    }
    // Meanwhile the committed cells still pass: nothing pending is replayed.
    expect((await runCli(["check"], { cwd })).code).toBe(0);

    let out = "";
    const review = createReviewCommand({ input: Readable.from(["a\n", "r\n"]) });
    const code = await review.run({}, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
    expect(out).toContain("2 cells have pending results from parity drift --accept: reviewing them as they are");
    expect(out).toContain(`  pending from parity drift --accept, a new recording of claude-agent-acp ${next} (accepting puts it and its oracle in place): `);
    // The catalog change reads as the entry inserted, not as two cut lists.
    expect(out).toMatch(/replace thread \/ thread\/extensionState\/updated \[bb\/provider-commands\]: payload\.commands {2}entries \+ name=ultrareview {2}\(\/1\/payload\/commands\)\n/);
    expect(out).toContain(`accepted: ${path.join("lanes", PROVIDER, "turn-tools.json")}, ${path.join("lanes", PROVIDER, "turn-tools.version")}, ${path.join("recordings", PROVIDER, "turn-tools")}\n`);
    // A cell of the new version was kept: its pin stays, and the upgrade's undo is gone.
    expect(out).toContain(`  rejected: the new recording and its oracle deleted; the committed ones stand; ${ADAPTER} stays pinned at ${next}: 1 cell of it accepted\n`);
    expect(existsSync(path.join(cwd, "agents", `.parity-upgrade-${PROVIDER}.pending`))).toBe(false);
    expect((JSON.parse(await readFile(path.join(cwd, "agents", "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies[ADAPTER]).toBe(next);
    expect(code, out).toBe(1); // a rejected cell leaves the upgrade open

    // Accepted: the new recording, its oracle with the command, the new version; rejected: byte for byte the committed cell.
    expect((await readdir(path.join(cwd, "recordings", PROVIDER))).sort()).toEqual(both);
    expect((await readdir(path.join(cwd, "lanes", PROVIDER))).filter((f) => f.endsWith(".pending"))).toEqual([]);
    expect(await readFile(path.join(cwd, "lanes", PROVIDER, "turn-tools.json"), "utf8")).toContain('"name": "ultrareview"');
    expect(await readFile(path.join(cwd, "lanes", PROVIDER, "zero-work.json"), "utf8")).toBe(committed["zero-work"]);
    expect(await readFile(path.join(cwd, "recordings", PROVIDER, "zero-work", "provider→bridge.ndjson"), "utf8")).toBe(
      await readFile(path.join(repoRoot, "recordings", PROVIDER, "zero-work", "provider→bridge.ndjson"), "utf8"),
    );
    expect(await readOracleVersion(path.join(cwd, "lanes", PROVIDER, "turn-tools.json"))).toBe(`claude-agent-acp ${next}`);
    expect(await readOracleVersion(path.join(cwd, "lanes", PROVIDER, "zero-work.json"))).toBe(`claude-agent-acp ${pinned}`);

    const gate = await runCli(["check", "--cell", "turn-tools"], { cwd, ci: true });
    expect(gate.code, gate.out).toBe(0);
    expect(gate.out).toContain(`versions ${PROVIDER}: claude-agent-acp ${next} (recordings and oracles)\n`);
    expect(gate.out).toMatch(new RegExp(`PASS ${PROVIDER}/turn-tools .*unhandled 0→0`));
    expect((await runCli(["check"], { cwd, ci: true })).code).toBe(0);
  });

  it("rejecting every cell of the upgrade puts the pin back: the manifest and lockfile as they were before --accept", async () => {
    const { cwd, to, env, pinned, next } = await upgradeProject();
    const manifest = await readFile(path.join(cwd, "agents", "package.json"), "utf8");
    const lock = await readFile(path.join(cwd, "agents", "package-lock.json"), "utf8");
    expect((await runCli(["drift", "--provider", PROVIDER, "--from", "recordings", "--to", to, "--accept"], { cwd, env })).code).toBe(0);
    expect(await readFile(path.join(cwd, "agents", "package.json"), "utf8")).not.toBe(manifest);
    // The undo waits beside the pin, ignored by git as every .pending file.
    expect(existsSync(path.join(cwd, "agents", `.parity-upgrade-${PROVIDER}.pending`))).toBe(true);

    let out = "";
    const review = createReviewCommand({ input: Readable.from(["r\n", "r\n"]) });
    const code = await review.run({}, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
    expect(code, out).toBe(1);
    expect(out).toContain(`  rejected: the new recording and its oracle deleted; the committed ones stand; ${ADAPTER} stays pinned at ${next} while 1 more cell of it is pending\n`);
    expect(out).toContain(
      `  rejected: the new recording and its oracle deleted; the committed ones stand; no cell of ${next} accepted: ${ADAPTER} pinned back at ${pinned} (${path.join("agents", "package.json")} and ${path.join("agents", "package-lock.json")} as they were)\n`,
    );
    expect(await readFile(path.join(cwd, "agents", "package.json"), "utf8")).toBe(manifest);
    expect(await readFile(path.join(cwd, "agents", "package-lock.json"), "utf8")).toBe(lock);
    expect(existsSync(path.join(cwd, "agents", `.parity-upgrade-${PROVIDER}.pending`))).toBe(false);
    expect((await readdir(path.join(cwd, "recordings", PROVIDER))).sort()).toEqual(both);
    expect((await readdir(path.join(cwd, "lanes", PROVIDER))).filter((f) => f.endsWith(".pending"))).toEqual([]);
    expect((await runCli(["check"], { cwd, ci: true })).code).toBe(0);
  });

  it("a pin put back by hand meanwhile (git restore) is left as it is", async () => {
    const { cwd, to, env, pinned, next } = await upgradeProject();
    const manifest = await readFile(path.join(cwd, "agents", "package.json"), "utf8");
    expect((await runCli(["drift", "--provider", PROVIDER, "--from", "recordings", "--to", to, "--accept"], { cwd, env })).code).toBe(0);
    await writeFile(path.join(cwd, "agents", "package.json"), manifest);
    await writeFile(path.join(cwd, "agents", "package-lock.json"), "{}\n");
    let out = "";
    const review = createReviewCommand({ input: Readable.from(["r\n", "r\n"]) });
    await review.run({}, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
    expect(out).toContain(`; no cell of ${next} accepted: ${ADAPTER} is pinned at ${pinned} again\n`);
    expect(await readFile(path.join(cwd, "agents", "package.json"), "utf8")).toBe(manifest);
    expect(existsSync(path.join(cwd, "agents", `.parity-upgrade-${PROVIDER}.pending`))).toBe(false);
  });
});
