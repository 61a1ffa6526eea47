import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startWaitProgress, type WaitClock } from "../../harness/progress/wait-progress.js";
import { runCli } from "../cli/run-cli.js";

/** A clock the test moves by hand, with the ticks it scheduled. */
function fakeClock(): WaitClock & { advance(ms: number): void } {
  let now = 0;
  const ticks: Array<() => void> = [];
  return {
    now: () => now,
    every: (_ms, tick) => {
      ticks.push(tick);
      return { stop: () => void ticks.splice(ticks.indexOf(tick), 1) };
    },
    advance(ms) {
      now += ms;
      for (const tick of [...ticks]) tick();
    },
  };
}

describe("progress on long waits (issue 27 item 5)", () => {
  it("on a terminal: one live line with the seconds waited, erased at the end", () => {
    let written = "";
    const clock = fakeClock();
    const wait = startWaitProgress({ isTTY: true, columns: 80, write: (t) => void (written += t) }, "recording acp-opencode/turn-tools", clock);
    clock.advance(1000);
    clock.advance(1000);
    wait.end("recorded");
    clock.advance(1000);
    expect(written).toBe("\r\x1b[2Krecording acp-opencode/turn-tools… 0 s\r\x1b[2Krecording acp-opencode/turn-tools… 1 s\r\x1b[2Krecording acp-opencode/turn-tools… 2 s\r\x1b[2K");
  });

  it("in a log: a line at the start and one at the end, nothing in between", () => {
    let written = "";
    const clock = fakeClock();
    const wait = startWaitProgress({ isTTY: false, write: (t) => void (written += t) }, "probing opencode", clock, "starting the agent");
    clock.advance(23_400);
    wait.end("answered");
    expect(written).toBe("probing opencode… (starting the agent)\nprobing opencode: answered after 23.4 s\n");
  });

  it("parity record says it is recording on stderr, and nothing with --json", async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), "wait-progress-"));
    try {
      let stderr = "";
      const progress = { isTTY: false, write: (t: string) => void (stderr += t) };
      const r = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--out", path.join(out, "a")], { progress });
      expect(r.code, r.err).toBe(0);
      expect(stderr).toMatch(/^recording echo\/zero-work… \(a live agent: usually 10–60 s\)\nrecording echo\/zero-work: recorded after \d+\.\d s\n$/);
      stderr = "";
      const json = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--out", path.join(out, "b"), "--json"], { progress });
      expect(json.code).toBe(0);
      expect(stderr).toBe("");
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
