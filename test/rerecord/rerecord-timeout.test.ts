import { cp, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyCell, hashes, parity, repoRoot, sandbox, tree, type Sandbox } from "./helpers.js";

// Issue 26: a replay that hits the wall-clock ceiling is no verdict. Before, a timed-out rerecord
// wrote `[]` over the committed oracle and an empty `.current`, and exited 0.

const boxes: Sandbox[] = [];
afterAll(async () => {
  for (const box of boxes) await rm(box.root, { recursive: true, force: true });
});

/** A sandbox with a copy of the committed echo/turn recording and its committed oracle. */
async function echoTurn(): Promise<{ box: Sandbox; dir: string; before: Record<string, string>; oracles: Record<string, string> }> {
  const box = await sandbox();
  boxes.push(box);
  const dir = await copyCell(box, path.join(repoRoot, "recordings", "echo", "turn"));
  await mkdir(path.join(box.lanes, "echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(box.lanes, "echo", "turn.json"));
  return { box, dir, before: await hashes(dir), oracles: await hashes(path.join(box.lanes, "echo")) };
}

const rerecord = (box: Sandbox, extra: string[]) => parity(["rerecord", "--recordings", box.recordings, "--provider", "echo", "--cell", "turn", "--lanes", box.lanes, ...extra]);

describe("a timed-out rerecord writes nothing and exits 4", () => {
  it("--timeout 1: TIMEOUT, exit 4, recording and oracle byte-identical, no .current", async () => {
    const { box, dir, before, oracles } = await echoTurn();
    const run = await rerecord(box, ["--timeout", "1"]);
    expect(run.code).toBe(4);
    expect(run.out.split("\n")[0]).toMatch(/^TIMEOUT echo\/turn: infrastructure timeout: the replay was still running after 1 ms of wall clock.*nothing written/);
    expect(run.out).toContain("0 rerecorded, 0 diverged, 0 refused, 0 skipped, 1 timed out (nothing written) (1 cell)");
    expect(await hashes(dir)).toEqual(before);
    expect(await hashes(path.join(box.lanes, "echo"))).toEqual(oracles);
    expect(await tree(box.lanes)).toEqual(["echo", "echo/turn.json"]);
  });

  it("a bridge stuck in a loop (never answers turn/start, never idle): exit 4, nothing written", async () => {
    const { box, dir, before, oracles } = await echoTurn();
    const run = await rerecord(box, ["--module", "test/rerecord/fixtures/loop-on-turn.mjs", "--timeout", "1500"]);
    expect(run.code).toBe(4);
    expect(run.out.split("\n")[0]).toMatch(/^TIMEOUT echo\/turn: infrastructure timeout: the replay was still running after 1500 ms/);
    expect(await hashes(dir)).toEqual(before);
    expect(await hashes(path.join(box.lanes, "echo"))).toEqual(oracles);
  });
});
