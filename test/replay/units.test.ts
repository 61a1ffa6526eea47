import { describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import type { Recording } from "../../harness/recording/reader.js";
import { alignCurrentLane } from "../../harness/replay/plan/current-lane.js";
import { mergedForReplay } from "../../harness/replay/plan/plan.js";
import { createEventQueue } from "../../harness/replay/walk/event-queue.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { rewriteRuntimeLine } from "../../harness/replay/sandbox/rewrite.js";
import { describeShape, genericAnswer, shapeOfLine, withId } from "../../harness/replay/plan/wire.js";

// Synthetic lines made up for these tests (no recorded content).
const entry = (seq: number, line: unknown, ts = 1000 + seq): LaneEntry => ({ ts, run: 7, seq, dir: "bridge→runtime", line: JSON.stringify(line) });
const delta = (threadId: string, ...kinds: string[]) => ({ jsonrpc: "2.0", method: "thread/delta", params: { threadId, deltas: kinds.map((kind) => ({ kind })) } });

const rewrite = { childCommand: "/usr/bin/node", childArgs: ["/x/replay-child.js", "--connect", "/tmp/s.sock"], workspace: "/tmp/ws", path: "/bin:/usr/bin" };

describe("rewriteRuntimeLine (spec 10 §5.1 g)", () => {
  it("points an ACP launch spec at the replay child, drops modelCli and cwd, empties env, keeps other keys", () => {
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: 4,
      method: "thread/start",
      params: {
        threadId: "t",
        cwd: "/somewhere/else",
        options: {
          envVars: { PATH: "/old", KEEP: "1" },
          providerOptions: {
            acpLaunchSpec: { displayName: "Agent", command: "agent-cli", args: ["acp"], env: { X: "1" }, modelCli: { listArgs: ["--list"], primaryModels: [] }, cwd: "/w" },
            other: true,
          },
        },
      },
    });
    const out = JSON.parse(rewriteRuntimeLine(line, rewrite)) as { params: { cwd: string; options: { envVars: unknown; providerOptions: unknown } } };
    expect(out.params.cwd).toBe("/tmp/ws");
    expect(out.params.options.envVars).toEqual({ PATH: "/bin:/usr/bin", KEEP: "1" });
    expect(out.params.options.providerOptions).toEqual({
      acpLaunchSpec: { displayName: "Agent", command: "/usr/bin/node", args: ["/x/replay-child.js", "--connect", "/tmp/s.sock"], env: {} },
      other: true,
    });
  });

  it("leaves lines that need no rewrite byte for byte", () => {
    const line = '{"jsonrpc":"2.0","id":1,"method":"turn/start","params":{"threadId":"t",  "input":[]}}';
    expect(rewriteRuntimeLine(line, rewrite)).toBe(line);
    expect(rewriteRuntimeLine('not json "cwd"', rewrite)).toBe('not json "cwd"');
  });
});

describe("wire shapes", () => {
  it("tells requests, notifications and responses apart by method and id, and reads delta kinds", () => {
    expect(shapeOfLine('{"jsonrpc":"2.0","id":"a","method":"m"}')).toMatchObject({ kind: "request", method: "m", idKey: "string:a" });
    expect(shapeOfLine('{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}')).toMatchObject({ kind: "response", idKey: "number:3" });
    expect(shapeOfLine(JSON.stringify(delta("t", "turn.open", "input.accepted"))).deltaKinds).toEqual(["turn.open", "input.accepted"]);
    expect(shapeOfLine("garbage").kind).toBe("invalid");
    // Codex's app-server lines carry no "jsonrpc" (spec 60); a wrong version is still invalid.
    expect(shapeOfLine('{"id":0,"method":"item/commandExecution/requestApproval","params":{}}')).toMatchObject({ kind: "request", idKey: "number:0" });
    expect(shapeOfLine('{"method":"turn/started","params":{}}')).toMatchObject({ kind: "notification", method: "turn/started" });
    expect(shapeOfLine('{"jsonrpc":"1.0","id":1,"method":"m"}').kind).toBe("invalid");
    expect(describeShape(shapeOfLine(JSON.stringify(delta("t", "item.close"))))).toBe("notification thread/delta [item.close]");
  });

  it("maps ids without touching key order, and answers generically", () => {
    expect(withId('{"jsonrpc":"2.0","id":1,"result":{"a":1}}', "live-9")).toBe('{"jsonrpc":"2.0","id":"live-9","result":{"a":1}}');
    expect(genericAnswer(5)).toBe('{"jsonrpc":"2.0","id":5,"result":{}}');
  });
});

describe("alignCurrentLane", () => {
  const recorded = [entry(10, { jsonrpc: "2.0", method: "thread/identity", params: {} }), entry(14, delta("t", "session.reset")), entry(15, { jsonrpc: "2.0", id: 3, result: {} })];

  it("gives each current line the recorded position of the line with the same shape, keeping its own ts and text", () => {
    const current = [
      entry(9.25, { jsonrpc: "2.0", method: "thread/identity", params: { v: 2 } }, 1),
      entry(9.5, delta("t", "session.reset"), 2),
      entry(9.75, { jsonrpc: "2.0", id: 3, result: { v: 2 } }, 3),
    ];
    const aligned = alignCurrentLane(recorded, current);
    expect(aligned.map((e) => [e.seq, e.ts, e.line])).toEqual(current.map((e, i) => [recorded[i]!.seq, e.ts, e.line]));
  });

  it("places an extra current line right before the next placed one (common subsequence over kind, method and id when shapes differ)", () => {
    const current = [
      entry(9.2, { jsonrpc: "2.0", method: "thread/identity", params: {} }),
      entry(9.4, { jsonrpc: "2.0", method: "provider/raw", params: {} }),
      entry(9.6, delta("t", "session.reset")),
      entry(9.8, { jsonrpc: "2.0", id: 3, result: {} }),
    ];
    const seqs = alignCurrentLane(recorded, current).map((e) => e.seq);
    expect(seqs[0]).toBe(10);
    expect(seqs[1]).toBeGreaterThan(10);
    expect(seqs[1]).toBeLessThan(14);
    expect(seqs.slice(2)).toEqual([14, 15]);
  });

  it("leaves a bridge's extra delta unpaired rather than shifting later deltas onto earlier recorded positions", () => {
    // Recorded in another dialect: no delta kind in common except the ones that name an item.
    const older = [entry(20, delta("t", "message.delta")), entry(22, delta("t", "message.delta")), entry(24, delta("t", "item.open")), entry(26, delta("t", "item.close"))];
    const current = [
      entry(19.2, delta("t", "extension.state")),
      entry(19.4, delta("t", "item.textDelta")),
      entry(19.6, delta("t", "item.textDelta")),
      entry(19.8, delta("t", "item.open")),
      entry(19.9, delta("t", "item.close")),
    ];
    const seqs = alignCurrentLane(older, current).map((e) => e.seq);
    expect(seqs.slice(1)).toEqual([20, 22, 24, 26]);
    expect(seqs[0]).toBeLessThan(20);
    expect(seqs[0]).toBeGreaterThan(19.9);
  });

  it("places extra current lines after the last placed one when none follows", () => {
    const current = [
      entry(9.25, { jsonrpc: "2.0", method: "thread/identity", params: {} }),
      entry(9.5, delta("t", "session.reset")),
      entry(9.75, { jsonrpc: "2.0", id: 3, result: {} }),
      entry(9.8, delta("t", "extension.state")),
    ];
    const seqs = alignCurrentLane(recorded, current).map((e) => e.seq);
    expect(seqs.slice(0, 3)).toEqual([10, 14, 15]);
    expect(seqs[3]).toBeGreaterThan(15);
    expect(seqs[3]).toBeLessThan(16);
  });
});

describe("event queue", () => {
  it("delivers in push order and reports quiet when nothing arrives", async () => {
    const scheduler = createFakeScheduler();
    const queue = createEventQueue<number>(scheduler);
    queue.push(1);
    queue.push(2);
    expect(await queue.next(1000)).toBe(1);
    expect(await queue.next(1000)).toBe(2);
    const waiting = queue.next(1000);
    queue.push(3);
    expect(await waiting).toBe(3);
    // The wait that an event ended leaves no timer behind.
    expect(scheduler.pending()).toEqual([]);
    const quiet = queue.next(0);
    scheduler.advance(0);
    expect(await quiet).toBe("quiet");
  });

  it("ends a quiet wait when its scheduler's clock says so, never on real time", async () => {
    const scheduler = createFakeScheduler();
    const queue = createEventQueue<number>(scheduler);
    let settled: number | "quiet" | undefined;
    const waiting = queue.next(3000).then((value) => (settled = value));
    await scheduler.whenPending((timer) => timer.delayMs === 3000);
    scheduler.advance(2999);
    await Promise.resolve();
    expect(settled).toBeUndefined();
    scheduler.advance(1);
    expect(await waiting).toBe("quiet");
    // The consumer is gone: a later event waits for the next `next`.
    queue.push(7);
    expect(queue.size).toBe(1);
    expect(await queue.next(3000)).toBe(7);
  });
});

describe("mergedForReplay: which current lanes are re-placed", () => {
  const e = (dir: LaneEntry["dir"], seq: number, line: unknown): LaneEntry => ({ ts: 1000 + seq, run: 1, seq, dir, line: JSON.stringify(line) });
  const runtime = [e("runtime→bridge", 10, { jsonrpc: "2.0", id: 1, method: "thread/start", params: {} })];
  const providerLanes = {
    "bridge→provider": [e("bridge→provider", 11, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} })],
    "provider→bridge": [e("provider→bridge", 12, { jsonrpc: "2.0", id: 1, result: {} })],
  };
  const recordedBridge = [e("bridge→runtime", 13, { jsonrpc: "2.0", id: 1, result: {} })];
  const recordingWith = (current: LaneEntry[]): Recording => {
    const lanes = { "runtime→bridge": runtime, "bridge→runtime": recordedBridge, ...providerLanes };
    return {
      dir: "/x",
      manifest: {} as Recording["manifest"],
      lanes,
      currentBridgeLane: current,
      merged: (opts) =>
        [...runtime, ...providerLanes["bridge→provider"], ...providerLanes["provider→bridge"], ...(opts?.useCurrent === false ? recordedBridge : current)].sort((a, b) => a.seq - b.seq),
    };
  };

  it("a lane anchored on runtime lines only (the reference's rerecord) takes the recorded positions", () => {
    const merged = mergedForReplay(recordingWith([e("bridge→runtime", 10.5, { jsonrpc: "2.0", id: 1, result: { v: 2 } })]), true);
    expect(merged.map((x) => [x.dir, x.seq])).toEqual([
      ["runtime→bridge", 10],
      ["bridge→provider", 11],
      ["provider→bridge", 12],
      ["bridge→runtime", 13],
    ]);
  });

  it("a lane anchored after agent lines (this product's rerecord) is merged as it is", () => {
    const merged = mergedForReplay(recordingWith([e("bridge→runtime", 12.5, { jsonrpc: "2.0", id: 1, result: { v: 2 } })]), true);
    expect(merged.map((x) => [x.dir, x.seq])).toEqual([
      ["runtime→bridge", 10],
      ["bridge→provider", 11],
      ["provider→bridge", 12],
      ["bridge→runtime", 12.5],
    ]);
  });
});
