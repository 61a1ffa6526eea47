/**
 * The walk's barrier between inputs on different pipes (harness/replay/walk/scheduler.ts, issue 25):
 * an input waits while an output recorded before it on the other pipe is still owed, unless the
 * bridge is idle — a bridge that is only `blocked` (a timer of its own due soon) may still write
 * it, and writing the input first would let the clock decide which of the two it sees first.
 *
 * The shape is acp-cursor/stop-interrupt's seq 380–382 (an agent's `session/request_permission`,
 * the bridge's answer, the runtime's `thread/stop`), made up here, with a scripted bridge whose
 * answer waits on a timer of its own and which answers `cancelled` when a stop comes first (as the
 * ACP bridge does, stack/acp/interaction/approvals.ts). The judge is scripted too: it says
 * `blocked` while the timer is pending, and the timer fires at the third look, so nothing here
 * depends on the clock.
 */
import { describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import type { IdlenessJudge, Settlement } from "../../harness/replay/idleness/index.js";
import { createStepClassifier, planSource } from "../../harness/replay/plan/plan.js";
import type { ReplayChildLink } from "../../harness/replay/stand-ins/child-channel.js";
import { createEventQueue } from "../../harness/replay/walk/event-queue.js";
import { runSchedule, type ReplayEvent } from "../../harness/replay/walk/scheduler.js";
import type { SpawnedBridge } from "../../harness/runtime/bridge-process.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

const ALLOWED = { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "allow-once" } } };
const CANCELLED = { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "cancelled" } } };
const STOPPED = { jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t", deltas: [{ kind: "turn.boundary" }] } };

const lane: Array<[LaneEntry["dir"], unknown]> = [
  ["runtime→bridge", { jsonrpc: "2.0", method: "turn/start", params: { threadId: "t" } }],
  ["bridge→provider", { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }],
  ["provider→bridge", { jsonrpc: "2.0", id: 0, method: "session/request_permission", params: { sessionId: "s", options: [] } }],
  ["bridge→provider", ALLOWED],
  ["runtime→bridge", { jsonrpc: "2.0", method: "thread/stop", params: { threadId: "t" } }],
  ["bridge→runtime", STOPPED],
];

/** Looks after which the scripted judge fails the test. */
const MAX_LOOKS = 50;

/** The steps of {@link lane}, as a recording's merged lanes would give them. */
function steps() {
  const classify = createStepClassifier();
  const all = lane.map(([dir, line], i) => classify({ ts: 1000 + i, run: 1, seq: i + 1, dir, line: JSON.stringify(line) }));
  return planSource({ steps: all, segments: 1, recordsInitialize: false });
}

/**
 * A scripted bridge and judge. The bridge arms a timer when the agent's permission request
 * comes and answers it when the timer fires (`timerFiresAtLook`-th look of the judge; with
 * `answersOnTimer: false` it then leaves the request unanswered), or `cancelled` at once when a
 * stop finds it unanswered; `heartbeat`: a timer stays due until the stop (a heartbeat), so until then the
 * judge never says `idle`. A walk that looks more than {@link MAX_LOOKS} times fails the test
 * (the scripted judge answers at once, so a walk that never settles would never yield).
 */
function scripted(options: { timerFiresAtLook: number; answersOnTimer?: boolean; heartbeat?: boolean }) {
  const scheduler = createFakeScheduler();
  const queue = createEventQueue<ReplayEvent>(scheduler);
  const written: string[] = [];
  let answerDue = false;
  let timerArmed = false;
  let stopped = false;
  let looks = 0;
  const answer = (line: unknown): void => {
    answerDue = false;
    queue.push({ type: "child-line", child: link, line: JSON.stringify(line) });
  };
  const link: ReplayChildLink = {
    index: 0,
    pid: 4_194_305,
    inProcess: true,
    send(line) {
      written.push(line);
      if (line.includes("session/request_permission")) answerDue = timerArmed = true;
    },
    buffered: 0,
    end: () => undefined,
    closed: false,
    whenClosed: () => Promise.resolve(),
  };
  const bridge = {
    name: "scripted bridge",
    pid: undefined,
    buffered: 0,
    exited: false,
    write(line: string) {
      written.push(line);
      if (line.includes("turn/start")) {
        queue.push({ type: "child-hello", child: link });
        queue.push({ type: "child-line", child: link, line: JSON.stringify(lane[1]![1]) });
      }
      if (line.includes("thread/stop")) {
        stopped = true;
        if (answerDue) answer(CANCELLED);
        queue.push({ type: "bridge-line", line: JSON.stringify(STOPPED) });
      }
    },
    endInput: () => queue.push({ type: "bridge-exit", code: 0, signal: null }),
    kill: () => undefined,
    whenExited: () => Promise.resolve({ code: 0, signal: null }),
    stderr: () => "",
  } as unknown as SpawnedBridge;
  const idleness: IdlenessJudge = {
    name: "proc",
    look(): Promise<Settlement | "event"> {
      looks += 1;
      if (looks > MAX_LOOKS) throw new Error(`the walk looked ${looks} times without moving on`);
      if (timerArmed && looks >= options.timerFiresAtLook) {
        timerArmed = false;
        if (options.answersOnTimer !== false) {
          answer(ALLOWED);
          return Promise.resolve("event");
        }
      }
      return Promise.resolve(timerArmed || (options.heartbeat === true && !stopped) ? "blocked" : "idle");
    },
    pauseMs: () => 0,
    close: () => undefined,
  };
  const run = () =>
    runSchedule(
      steps(),
      { queue, bridge, idleness, rewriteRuntime: (line) => line, now: () => scheduler.now() },
      { ceilingMs: 60_000, exitMs: 1000, timerHorizonMs: 10_000, fallbackQuietMs: 3000 },
      false,
    );
  return { run, written };
}

describe("an input on the other pipe than an output still owed (stop-interrupt's 380–382)", () => {
  it("waits for the answer a bridge timer will write, instead of letting thread/stop overtake it", async () => {
    const { run, written } = scripted({ timerFiresAtLook: 3 });
    const outcome = await run();
    expect(outcome.divergences).toEqual([]);
    expect(outcome.expectationsMet).toBe(3);
    // The stop went out only after the answer came.
    expect(written.map((line) => (JSON.parse(line) as { method?: string }).method)).toEqual(["turn/start", "session/request_permission", "thread/stop"]);
  });

  it("still writes the input once the bridge is idle without the answer: what it then answers is judged", async () => {
    const { run } = scripted({ timerFiresAtLook: 3, answersOnTimer: false });
    const outcome = await run();
    // The scripted bridge answers `cancelled` when the stop finds the request unanswered.
    expect(outcome.divergences.map((d) => [d.kind, d.seq])).toEqual([["answer-differs", 4]]);
  });

  it("writes the input while a timer stays due when nothing recorded before it is owed (a heartbeat does not stall the walk)", async () => {
    const { run, written } = scripted({ timerFiresAtLook: 2, heartbeat: true });
    const outcome = await run();
    expect(outcome.infrastructureTimeout).toBeNull();
    expect(outcome.divergences).toEqual([]);
    expect(written).toHaveLength(3);
  });
});
