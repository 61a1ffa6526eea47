/**
 * Bridges started ahead of their replays (harness/replay/bridge-pool.ts): a replay whose launch is
 * the same takes the waiting bridge (its pid is the replay's bridge pid) and replays the real
 * cursor cell as it would with its own; a launch that differs gets none; what nobody took is
 * stopped and its directory removed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readRecording } from "../../harness/recording/reader.js";
import { createBridgePool } from "../../harness/replay/bridge/bridge-pool.js";
import { replayBridgeLaunch } from "../../harness/replay/bridge/launch.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { cursorRecordings, isAlive } from "./helpers.js";

describe.runIf(process.platform === "linux")("a pool of bridges started ahead", () => {
  it("a replay takes the bridge started exactly as it would start it, and replays the same", async () => {
    const recording = await readRecording(path.join(cursorRecordings, "resume"));
    const own = await replayRecording(recording);
    const pool = createBridgePool();
    pool.start("acp-cursor");
    try {
      const taken = await replayRecording(recording, { bridges: pool });
      expect(taken.divergences).toEqual([]);
      expect(taken.lane.events).toEqual(own.lane.events);
      // Taken: nothing is left waiting for the next replay.
      expect(pool.take(replayBridgeLaunch("acp-cursor"))).toBeUndefined();
      expect(taken.pids.filter(isAlive)).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it("a launch that differs (another provider id, another environment) takes nothing", async () => {
    const pool = createBridgePool();
    pool.start("acp-cursor");
    pool.start("no-such-provider");
    try {
      expect(pool.take(replayBridgeLaunch("acp-gemini"))).toBeUndefined();
      expect(pool.take(replayBridgeLaunch("acp-cursor", { env: { PARITY_EXTRA: "1" } }))).toBeUndefined();
      const { bridge, base } = await pool.take(replayBridgeLaunch("acp-cursor"))!;
      expect(bridge.exited).toBe(false);
      // Taken by hand, so stopped and removed by hand (a replay would do both).
      bridge.kill();
      await bridge.whenExited();
      await rm(base, { recursive: true, force: true });
    } finally {
      await pool.close();
    }
  });

  it("ensureWaiting starts a bridge only when none started like it is waiting", async () => {
    const pool = createBridgePool();
    try {
      pool.ensureWaiting("acp-cursor");
      pool.ensureWaiting("acp-cursor");
      const first = pool.take(replayBridgeLaunch("acp-cursor"));
      expect(first).toBeDefined();
      expect(pool.take(replayBridgeLaunch("acp-cursor"))).toBeUndefined();
      const { bridge, base } = await first!;
      bridge.kill();
      await bridge.whenExited();
      await rm(base, { recursive: true, force: true });
    } finally {
      await pool.close();
    }
  });

  it("close stops a bridge nobody took and removes its directory", async () => {
    const pool = createBridgePool();
    pool.start("acp-cursor");
    let bridges = waitingBridges();
    for (let tries = 0; tries < 100_000 && bridges.length === 0; tries += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      bridges = waitingBridges();
    }
    expect(bridges).toHaveLength(1);
    const { pid, dataDir } = bridges[0]!;
    await pool.close();
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(path.dirname(dataDir))).toBe(false);
  });
});

/** This process's children running the bridge bootstrap, with the data directory each was given (its last argument). */
function waitingBridges(): Array<{ pid: number; dataDir: string }> {
  const found: Array<{ pid: number; dataDir: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid || fields[0] === "Z") continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8")
        .split("\0")
        .filter((a) => a !== "");
      // The bootstrap, or its bundle beside it (build/bundle.ts).
      if (argv.some((a) => /bootstrap(\.bundle)?\.js$/.test(a))) found.push({ pid: Number(entry), dataDir: argv.at(-1)! });
    } catch {
      // gone in between
    }
  }
  return found;
}
