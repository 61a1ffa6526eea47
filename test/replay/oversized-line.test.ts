/**
 * A bridge that writes a line over the harness's bound (harness/runtime/bridge-process.ts): the
 * replay does not hold the line, reports it first as a `line-too-long` divergence naming the
 * bridge, the lane and the length, and stops the bridge, which then shows as exited early. The
 * bound is set to 1 KiB here so the line fits the pipe whole; the spawner's own test covers the
 * splitting (test/runtime/bridge-process.test.ts).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { isAlive, repoRoot } from "./helpers.js";

const oversized = path.join(repoRoot, "test", "replay", "fixtures", "oversized-line-bridge.mjs");

describe("a bridge that answers initialize with a 4 KiB line, replayed with a 1 KiB bound", () => {
  it("diverges with line-too-long (lane and length named), then bridge-exited by SIGKILL; no process is left", async () => {
    const result = await replayRecording(path.join(repoRoot, "recordings", "echo", "turn"), { modulePath: oversized, maxLineBytes: 1024 });
    expect(result.ok).toBe(false);
    expect(result.divergences.map((d) => d.kind)).toEqual(["line-too-long", "bridge-exited"]);
    expect(result.divergences[0]!.message).toMatch(
      /^bridge echo \(oversized-line-bridge\.mjs, pid \d+\) wrote a line on bridge→runtime longer than 1024 bytes \(4096 bytes of it read\); the bridge was stopped$/,
    );
    expect(result.exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(result.pids.filter(isAlive)).toEqual([]);
  });
});
