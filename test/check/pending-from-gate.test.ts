import { readFileSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURRENT_BRIDGE_LANE_FILE } from "../../harness/recording/lane-entry.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { copyProviderProject } from "../helpers/provider-project.js";

// A local failing `parity check` writes each changed cell's pending results from its own replay of
// that cell (harness/check/pending.ts), on the real acp-cursor recordings: the files are byte for
// byte what `parity rerecord` writes for the cell, and the check starts no bridge for them beyond
// the one replay that verifies a current lane before it is written (as `parity rerecord` does).

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-pending-gate-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
/** A project holding a copy of the committed acp-cursor recordings and oracles. */
async function project(): Promise<string> {
  n += 1;
  return copyProviderProject(repoRoot, "acp-cursor", path.join(work, `p${n}`));
}

/**
 * The ACP bridge as a `--module` that appends a line to a file each time a bridge process loads it;
 * with `shout`, every "the " it writes becomes "THE " (a deliberate change of its output).
 */
async function countingBridge(shout: boolean): Promise<{ module: string; spawns: () => number }> {
  const dir = await mkdtemp(path.join(work, "bridge-"));
  const spawnsFile = path.join(dir, "spawns");
  const module = path.join(dir, "bridge.mjs");
  const acp = path.join(repoRoot, "dist/stack/acp/bridge.js");
  await writeFile(spawnsFile, "");
  const wrapped = `const shout = (v) => typeof v === "string" ? v.replace(/the /g, "THE ") : Array.isArray(v) ? v.map(shout) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shout(x)])) : v;
const wrapped = new WeakMap();
const wrap = (ctx) => {
  if (!wrapped.has(ctx)) {
    const io = new Proxy(ctx.io, { get: (t, k) => (typeof t[k] === "function" ? (...a) => t[k](...a.map(shout)) : t[k]) });
    wrapped.set(ctx, Object.create(ctx, { io: { value: io } }));
  }
  return wrapped.get(ctx);
};
export const experimental_providerBridge = {
  handleLine: (line, ctx, message) => acp.handleLine(line, wrap(ctx), message),
  ...(acp.start ? { start: (ctx) => acp.start(wrap(ctx)) } : {}),
  ...(acp.onClose ? { onClose: (ctx) => acp.onClose(wrap(ctx)) } : {}),
};
`;
  await writeFile(
    module,
    `import { appendFileSync } from "node:fs";
import { experimental_providerBridge as acp } from ${JSON.stringify(acp)};
appendFileSync(${JSON.stringify(spawnsFile)}, "spawn\\n");
${shout ? wrapped : "export const experimental_providerBridge = acp;\n"}`,
  );
  return { module, spawns: () => readFileSync(spawnsFile, "utf8").split("\n").filter(Boolean).length };
}

/** The `.pending` files under `dir`, relative, sorted. */
async function pendingFiles(dir: string): Promise<string[]> {
  const all = (await readdir(dir, { recursive: true })).map(String);
  return all.filter((f) => f.endsWith(".pending")).sort();
}

/** Runs `parity rerecord` of one cell in a fresh copy of the project and returns that copy. */
async function rerecorded(module: string, cell: string, prepare: (dir: string) => Promise<void> = async () => {}): Promise<string> {
  const dir = await project();
  await prepare(dir);
  const r = await runCli(["rerecord", "--module", module, "--provider", "acp-cursor", "--cell", cell], { cwd: dir });
  expect(r.code, r.out + r.err).toBe(0);
  return dir;
}

// Each test runs the gate twice and rerecords: a budget for a loaded machine, no verdict.
describe("pending results from the gate's own replay", { timeout: 180_000 }, () => {
  it("an oracle edited by hand: the pending oracle is what parity rerecord writes, and the local check starts no more bridges than under CI", async () => {
    const { module, spawns } = await countingBridge(false);
    const alter = async (dir: string) => {
      const file = path.join(dir, "lanes/acp-cursor/approval-allow.json");
      const oracle = JSON.parse(await readFile(file, "utf8")) as unknown[];
      await writeFile(file, `${JSON.stringify(oracle.slice(0, -1), null, 2)}\n`);
    };
    const ci = await project();
    await alter(ci);
    expect((await runCli(["check", "--module", module], { cwd: ci, ci: true })).code).toBe(1);
    const underCi = spawns();
    expect(underCi).toBeGreaterThan(0);
    expect(await pendingFiles(ci)).toEqual([]);

    const local = await project();
    await alter(local);
    const r = await runCli(["check", "--module", module], { cwd: local });
    expect(r.code, r.out + r.err).toBe(1);
    expect(spawns() - underCi).toBe(underCi);
    expect(await pendingFiles(local)).toEqual([path.join("lanes", "acp-cursor", "approval-allow.json.pending")]);
    const pending = await readFile(path.join(local, "lanes/acp-cursor/approval-allow.json.pending"));

    const byRerecord = await rerecorded(module, "approval-allow", alter);
    expect(pending.equals(await readFile(path.join(byRerecord, "lanes/acp-cursor/approval-allow.json")))).toBe(true);
    // What accepting writes is the oracle the edit broke, byte for byte.
    expect(pending.equals(await readFile(path.join(repoRoot, "lanes/acp-cursor/approval-allow.json")))).toBe(true);
  });

  it("a changed bridge output: the pending oracle and current lane are what parity rerecord writes; beyond the check under CI, one bridge per current lane (its verify replay)", async () => {
    const { module, spawns } = await countingBridge(true);
    const ci = await project();
    expect((await runCli(["check", "--module", module], { cwd: ci, ci: true })).code).toBe(1);
    const underCi = spawns();

    const local = await project();
    const r = await runCli(["check", "--module", module], { cwd: local });
    expect(r.code, r.out + r.err).toBe(1);
    const files = await pendingFiles(local);
    const changedCells = ["subagent", "turn-tools"];
    expect(files).toEqual(
      [
        ...changedCells.map((cell) => path.join("lanes", "acp-cursor", `${cell}.json.pending`)),
        ...changedCells.map((cell) => path.join("recordings", "acp-cursor", cell, `${CURRENT_BRIDGE_LANE_FILE}.pending`)),
      ].sort(),
    );
    expect(spawns() - underCi).toBe(underCi + changedCells.length);

    for (const cell of changedCells) {
      const byRerecord = await rerecorded(module, cell);
      for (const accepted of [path.join("lanes", "acp-cursor", `${cell}.json`), path.join("recordings", "acp-cursor", cell, CURRENT_BRIDGE_LANE_FILE)]) {
        const pending = await readFile(path.join(local, `${accepted}.pending`));
        expect(pending.equals(await readFile(path.join(byRerecord, accepted))), accepted).toBe(true);
      }
    }
  });
});
