import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, repoRoot } from "../cli/run-cli.js";
import { copyRecording, editLane } from "../replay/helpers.js";

let dir: string;
let lanes: string;
let dead: string;
let crash: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "advice-"));
  lanes = path.join(dir, "lanes");
  await cp(path.join(repoRoot, "lanes", "echo"), path.join(lanes, "echo"), { recursive: true });
  dead = path.join(dir, "dead.mjs");
  crash = path.join(dir, "crash.mjs");
  await writeFile(dead, "export const experimental_providerBridge = { handleLine() {} };\n");
  await writeFile(crash, "export const experimental_providerBridge = { handleLine() { process.stderr.write('boom\\n'); process.exit(3); } };\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The "what to do" block of the report's only failing cell, and the closing note. */
function advice(out: string): { todo: string[]; next: string[] } {
  const lines = out.split("\n");
  const at = lines.findIndex((l) => l === "  what to do:");
  const todo = at === -1 ? [] : lines.slice(at + 1).filter((l, k, all) => all.slice(0, k + 1).every((x) => x.startsWith("    ")));
  const next = lines.slice(lines.indexOf("what next:"));
  return { todo, next };
}

describe("advice that fits the failure (issue 27 item 1)", () => {
  it("a lane change: accept it with check -u repeating every flag, or allow it; the closing note names review and check -u", async () => {
    const oracle = path.join(lanes, "echo", "turn.json");
    const lane = JSON.parse(await readFile(oracle, "utf8")) as Array<Record<string, any>>;
    const message = lane.find((e) => e.type === "item/completed" && e.item?.type === "agentMessage")!;
    message.item.text = `${message.item.text} and more`;
    await writeFile(oracle, `${JSON.stringify(lane, null, 2)}\n`);
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--lanes", lanes, "--timeout", "60000"]);
    expect(r.code).toBe(1);
    const { todo, next } = advice(r.out);
    expect(todo[0]).toBe(`    accept it:  parity check -u --provider echo --cell turn --lanes ${lanes} --timeout 60000  (rerecords its oracle)`);
    expect(todo.some((l) => /^ {4}allow it: {3}parity allow --provider echo --cell turn --path '\/\*\[turn=1\]/.test(l))).toBe(true);
    expect(r.out).not.toContain("accept it:  parity allow");
    expect(next[0]).toBe("what next:");
    expect(next[1]).toContain(`1 cell changed the lane: if intended, review them one by one: parity review --lanes ${lanes} --timeout 60000`);
    expect(next[2]).toContain(`or accept them all (rerecords their oracles): parity check -u --lanes ${lanes} --timeout 60000`);
    await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), oracle);
  });

  it("a dead bridge (answers nothing) is told to look at the bridge, never to allowlist its events", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", dead, "--timeout", "60000"]);
    expect(r.code).toBe(1);
    const { todo, next } = advice(r.out);
    expect(todo).toEqual([`    the bridge answered nothing; see why: parity replay --verbose --provider echo --cell turn --module ${dead} --timeout 60000`]);
    expect(r.out).not.toMatch(/parity allow|parity rerecord|check -u/);
    expect(next[1]).toBe("  1 cell: the bridge answered nothing; fix it, nothing to accept or allow");
  });

  it("a crashing bridge is told to fix the bridge, never to rerecord; --module is kept", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", crash]);
    expect(r.code).toBe(1);
    const { todo } = advice(r.out);
    expect(todo).toEqual([`    fix the bridge (it exited; its stderr is above), then: parity check --provider echo --cell turn --module ${crash}`]);
    expect(r.out).not.toMatch(/parity allow|parity rerecord|check -u/);
    expect(r.out).toContain("the bridge crashed");
  });

  it("a divergence is told to trace the replay, with nothing to accept", async () => {
    const copy = await copyRecording(path.join(repoRoot, "recordings", "echo", "turn"));
    await editLane(copy, "bridge→runtime", (entries) => [...entries, { ...entries[entries.length - 1]!, seq: entries[entries.length - 1]!.seq + 100 }]);
    const root = path.dirname(path.dirname(copy));
    const r = await runCli(["check", "--recordings", root, "--provider", "echo", "--cell", "turn"]);
    expect(r.code).toBe(1);
    const { todo, next } = advice(r.out);
    expect(todo).toEqual([
      `    the bridge's output left the recording (nothing to accept); fix the bridge, or record the cell again. Trace it: parity replay --trace --provider echo --cell turn --recordings ${root}`,
    ]);
    expect(next[1]).toContain("the replay diverged from the recording");
    await rm(root, { recursive: true, force: true });
  });

  it("a stale allowlist entry is told to delete it", async () => {
    const file = path.join(dir, "stale.json");
    await writeFile(
      file,
      `${JSON.stringify([{ provider: "echo", cell: "turn", layer: "events", path: "/*[type=turn/plan/updated]/plan", pr: "#1", reason: "a plan the echo bridge never sends" }], null, 2)}\n`,
    );
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--allowlist", file]);
    expect(r.code).toBe(1);
    const { todo, next } = advice(r.out);
    expect(todo).toEqual([`    delete the stale entries (or all at once: parity allow --prune --allowlist ${file})`]);
    expect(next[1]).toBe("  1 cell: only stale allowlist entries; delete them");
  });

  it("a missing oracle under CI is told to write it locally", async () => {
    const empty = path.join(dir, "empty-lanes");
    await mkdir(empty, { recursive: true });
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--lanes", empty], { ci: true });
    expect(r.code).toBe(1);
    expect(advice(r.out).todo).toEqual([`    write its oracle locally and commit it: parity check -u --provider echo --cell turn --lanes ${empty}`]);
  });
});
