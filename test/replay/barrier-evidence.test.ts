/**
 * The walk's rule between pipes (harness/replay/walk/README.md, "Barriers between pipes"; issue 38):
 * an output met on an input's own pipe is evidence about that pipe only. The shape is a rerecorded
 * acp-cursor/stop-interrupt, made up here: a runtime line caused by an earlier agent line sits
 * after the agent's `session/request_permission` (seq 380 in the real cell), and the runtime's
 * `thread/stop` comes after the bridge's answer (381, 382). The scripted bridge handles the agent's
 * lines one at a time, as the ACP bridge does: it writes the earlier-caused runtime line first and
 * the answer one look of the judge later; a stop that finds the request unanswered gets `cancelled`.
 * Taking the runtime line as proof that the bridge consumed the permission request writes the stop
 * in that gap. The judge is scripted: nothing here depends on the clock.
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

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
const UPDATE = { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk" } } };
const PERMISSION = { jsonrpc: "2.0", id: 0, method: "session/request_permission", params: { sessionId: "s", options: [] } };
const DELTA = { jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t", deltas: [{ kind: "message.delta" }] } };
const ALLOWED = { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "allow-once" } } };
const CANCELLED = { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "cancelled" } } };
const STOPPED = { jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t", deltas: [{ kind: "turn.boundary" }] } };

/** The rerecorded lane: the delta caused by the update (seq 3) is anchored after the permission request (seq 4). */
const lane: Array<[LaneEntry["dir"], unknown]> = [
  ["runtime→bridge", { jsonrpc: "2.0", method: "turn/start", params: { threadId: "t" } }],
  ["bridge→provider", INITIALIZE],
  ["provider→bridge", UPDATE],
  ["provider→bridge", PERMISSION],
  ["bridge→runtime", DELTA],
  ["bridge→provider", ALLOWED],
  ["runtime→bridge", { jsonrpc: "2.0", method: "thread/stop", params: { threadId: "t" } }],
  ["bridge→runtime", STOPPED],
];

/** Looks after which the scripted judge fails the test (it answers at once, so a stuck walk never yields). */
const MAX_LOOKS = 50;

function steps() {
  const classify = createStepClassifier();
  const all = lane.map(([dir, line], i) => classify({ ts: 1000 + i, run: 1, seq: i + 1, dir, line: JSON.stringify(line) }));
  return planSource({ steps: all, segments: 1, recordsInitialize: false });
}

/**
 * A scripted bridge: the agent's update is held until the agent's next line, which writes the
 * update's delta first; the permission request is answered at the next look of the judge
 * (`answers: false`: never). A stop that finds it unanswered is answered `cancelled`.
 */
function scripted(answers = true) {
  const scheduler = createFakeScheduler();
  const queue = createEventQueue<ReplayEvent>(scheduler);
  const written: string[] = [];
  let held = false;
  let answerDue = false;
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
      if (line.includes("session/update")) held = true;
      if (line.includes("session/request_permission")) {
        if (held) queue.push({ type: "bridge-line", line: JSON.stringify(DELTA) });
        held = false;
        answerDue = true;
      }
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
        queue.push({ type: "child-line", child: link, line: JSON.stringify(INITIALIZE) });
      }
      if (line.includes("thread/stop")) {
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
      if (answerDue && answers) {
        answer(ALLOWED);
        return Promise.resolve("event");
      }
      return Promise.resolve("idle");
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

const methods = (written: string[]) => written.map((line) => (JSON.parse(line) as { method?: string }).method);

describe("an output met on the input's own pipe proves nothing about another pipe (rerecorded stop-interrupt's 378–382)", () => {
  it("writes thread/stop only after the answer the bridge still owes the agent, though the runtime line before it came", async () => {
    const { run, written } = scripted();
    const outcome = await run();
    expect(outcome.divergences).toEqual([]);
    expect(outcome.expectationsMet).toBe(4);
    expect(methods(written)).toEqual(["turn/start", "session/update", "session/request_permission", "thread/stop"]);
  });

  it("writes it once the bridge is idle without the answer, and judges what the bridge then answers", async () => {
    const { run } = scripted(false);
    const outcome = await run();
    expect(outcome.divergences.map((d) => [d.kind, d.seq])).toEqual([["answer-differs", 6]]);
  });
});

/**
 * The other side of the rule: an output recorded after a line of the input's own pipe does not
 * hold the input, since the bridge reads a pipe in order and cannot let the input overtake it.
 * The shape of acp-copilot/committed command-fails (a bridge that lagged when it was recorded): the
 * agent's chunks A, B, C, with A's runtime line recorded after B and the others after C. A bridge
 * that writes a line per chunk at once, held back before C until A's line came, has written B's
 * too, before anything recorded expects it; C's line then meets B's expectation and C's is missing.
 */
describe("an output recorded after a line of the input's own pipe (a lagging recording)", () => {
  const chunk = (text: string) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { text } } } });
  const delta = (text: string) => ({ jsonrpc: "2.0", method: "thread/delta", params: { threadId: "t", deltas: [{ kind: "item.textDelta", text }] } });
  const lagging: Array<[LaneEntry["dir"], unknown]> = [
    ["runtime→bridge", { jsonrpc: "2.0", method: "turn/start", params: { threadId: "t" } }],
    ["bridge→provider", INITIALIZE],
    ["provider→bridge", chunk("A")],
    ["provider→bridge", chunk("B")],
    ["bridge→runtime", delta("A")],
    ["provider→bridge", chunk("C")],
    ["bridge→runtime", delta("B")],
    ["bridge→runtime", delta("C")],
  ];

  it("writes the agent's next line without waiting for it: every line meets its own expectation", async () => {
    const scheduler = createFakeScheduler();
    const queue = createEventQueue<ReplayEvent>(scheduler);
    const link: ReplayChildLink = {
      index: 0,
      pid: 4_194_305,
      inProcess: true,
      send(line) {
        const text = (JSON.parse(line) as { params?: { update?: { content?: { text?: string } } } }).params?.update?.content?.text;
        if (text !== undefined) queue.push({ type: "bridge-line", line: JSON.stringify(delta(text)) });
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
        if (!line.includes("turn/start")) return;
        queue.push({ type: "child-hello", child: link });
        queue.push({ type: "child-line", child: link, line: JSON.stringify(INITIALIZE) });
      },
      endInput: () => queue.push({ type: "bridge-exit", code: 0, signal: null }),
      kill: () => undefined,
      whenExited: () => Promise.resolve({ code: 0, signal: null }),
      stderr: () => "",
    } as unknown as SpawnedBridge;
    let looks = 0;
    const idleness: IdlenessJudge = {
      name: "proc",
      look(): Promise<Settlement | "event"> {
        looks += 1;
        if (looks > MAX_LOOKS) throw new Error(`the walk looked ${looks} times without moving on`);
        return Promise.resolve("idle");
      },
      pauseMs: () => 0,
      close: () => undefined,
    };
    const classify = createStepClassifier();
    const all = lagging.map(([dir, line], i) => classify({ ts: 1000 + i, run: 1, seq: i + 1, dir, line: JSON.stringify(line) }));
    const outcome = await runSchedule(
      planSource({ steps: all, segments: 1, recordsInitialize: false }),
      { queue, bridge, idleness, rewriteRuntime: (line) => line, now: () => scheduler.now() },
      { ceilingMs: 60_000, exitMs: 1000, timerHorizonMs: 10_000, fallbackQuietMs: 3000 },
      false,
    );
    expect(outcome.divergences).toEqual([]);
    expect(outcome.notes).toEqual([]);
    expect(outcome.bridgeLines.map((l) => [JSON.parse(l.line).params.deltas[0].text, l.anchor?.seq])).toEqual([
      ["A", 4],
      ["B", 6],
      ["C", 6],
    ]);
  });
});
