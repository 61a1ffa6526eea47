import { existsSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { readOracleVersion } from "../../harness/recording/oracle-version.js";
import type { CheckReport } from "../../harness/report/check-report.js";
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
