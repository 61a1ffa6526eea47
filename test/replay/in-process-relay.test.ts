/**
 * Issue 25 point 3: a replay's agent sessions served inside the bridge process by the bootstrap
 * (stack/bridge-kit/bootstrap-relay-spawn.ts) start no relay process and give the same lanes as
 * perl relay processes. The real cursor resume restarts its agent (two sessions) and the ACP
 * bridge ends each agent's process group with SIGTERM, so the in-process relays' signals are on
 * the path; the Claude Code and pi cells end their agents by closing stdin.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readRecording } from "../../harness/recording/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import { isInProcessPid } from "../../stack/bridge-kit/bootstrap-relay-wire.js";
import { cursorRecordings, isAlive, repoRoot } from "./helpers.js";

const CELLS = [path.join(cursorRecordings, "resume"), path.join(cursorRecordings, "stop-interrupt"), path.join(repoRoot, "recordings/claude-code/resume"), path.join(repoRoot, "recordings/pi/resume")];

describe("agent sessions served in the bridge process (the default where perl is found)", () => {
  for (const dir of CELLS) {
    it(`${path.basename(path.dirname(dir))}/${path.basename(dir)}: no relay process, the same lane and outcome as perl relays`, async () => {
      const recording = await readRecording(dir);
      const inProcess = await replayRecording(recording);
      const relayed = await replayRecording(recording, { agentProcess: "relay" });
      for (const result of [inProcess, relayed]) {
        expect(result.divergences).toEqual([]);
        expect(result.expectationsMet).toBe(result.expectationsTotal);
        expect(result.pids.filter(isAlive)).toEqual([]);
      }
      // pids: the bridge's, then one per agent session that announced itself.
      const [bridge, ...sessions] = inProcess.pids;
      expect(isInProcessPid(bridge!)).toBe(false);
      expect(sessions.length).toBeGreaterThan(0);
      expect(sessions.filter((pid) => !isInProcessPid(pid))).toEqual([]);
      expect(relayed.pids.length).toBe(inProcess.pids.length);
      expect(relayed.pids.filter(isInProcessPid)).toEqual([]);
      expect(inProcess.lane.events).toEqual(relayed.lane.events);
      expect(inProcess.exit).toEqual(relayed.exit);
    });
  }
});
