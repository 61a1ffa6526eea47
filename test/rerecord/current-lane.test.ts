import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LaneEntry } from "../../harness/recording/lane-entry.js";
import { readRecording } from "../../harness/recording/reader.js";
import { anchorAfterRuntime, buildCurrentBridgeLane, mapRequestIdsToRecorded, recordedRequestIds, rerecordRedactor, runtimeAnchors } from "../../harness/rerecord/index.js";
import { cursorRecordings } from "./helpers.js";

const entry = (dir: LaneEntry["dir"], run: number, seq: number, ts: number, line = "{}"): LaneEntry => ({ dir, run, seq, ts, line });
const message = (line: string) => JSON.parse(line) as { id?: unknown; method?: string; result?: unknown };

describe("anchoring (spec 10 §6.6 step 4)", () => {
  const r1 = entry("runtime→bridge", 7, 10, 1000);
  const r2 = entry("runtime→bridge", 7, 20, 5000);

  it("k-th line on an anchor: run = anchor's, seq = anchor.seq + k/(lines+1), ts = anchor.ts + k; order kept", () => {
    const lines = [
      { line: "a", after: r1 },
      { line: "b", after: r1 },
      { line: "c", after: r2 },
      { line: "d", after: r1 },
    ];
    const out = anchorAfterRuntime(lines, r1);
    expect(out.map((e) => [e.line, e.run, e.seq, e.ts, e.dir])).toEqual([
      ["a", 7, 10 + 1 / 5, 1001, "bridge→runtime"],
      ["b", 7, 10 + 2 / 5, 1002, "bridge→runtime"],
      ["c", 7, 20 + 1 / 5, 5001, "bridge→runtime"],
      ["d", 7, 10 + 3 / 5, 1003, "bridge→runtime"],
    ]);
    // Every line sorts after its anchor and before the next recorded seq.
    for (const [i, e] of out.entries()) {
      const anchor = lines[i]!.after;
      expect(e.seq).toBeGreaterThan(anchor.seq);
      expect(e.seq).toBeLessThan(anchor.seq + 1);
    }
  });

  it("a line before any runtime entry anchors at firstRuntime.seq − 1 in its run", () => {
    const out = anchorAfterRuntime(
      [
        { line: "early", after: null },
        { line: "later", after: r1 },
      ],
      r1,
    );
    expect(out[0]).toEqual({ ts: 1001, run: 7, seq: 9 + 1 / 3, dir: "bridge→runtime", line: "early" });
    expect(out[0]!.seq).toBeLessThan(r1.seq);
  });

  it("a line with no anchor in a recording without runtime entries is an error, not a guess", () => {
    expect(() => anchorAfterRuntime([{ line: "x", after: null }], undefined)).toThrow(/no runtime lane/);
  });

  it("runtimeAnchors: the last sent runtime entry sorting before each live line, across runs", () => {
    const sent = [entry("runtime→bridge", 1, 3, 0), entry("runtime→bridge", 1, 9, 0), entry("runtime→bridge", 2, 1, 0)];
    const live = [1.5, 3.2, 8.9, 9.1].map((seq) => entry("bridge→runtime", 1, seq, 0)).concat([entry("bridge→runtime", 2, 0.5, 0), entry("bridge→runtime", 2, 1.5, 0)]);
    expect(runtimeAnchors(live, sent)).toEqual([null, sent[0], sent[0], sent[1], sent[1], sent[2]]);
  });
});

describe("request ids (spec 10 §6.6 step 3) on the real acp-cursor approval-allow recording", () => {
  it("the k-th live request of a method gets the k-th recorded id of that method; other lines are untouched", async () => {
    const recording = await readRecording(path.join(cursorRecordings, "approval-allow"));
    const recorded = recordedRequestIds(recording.lanes["bridge→runtime"]);
    const ids = recorded.get("interaction/request") ?? [];
    expect(ids.length).toBeGreaterThan(0);
    // The recorded runtime answer refers to exactly that id.
    const answers = recording.lanes["runtime→bridge"].map((e) => message(e.line)).filter((m) => m.method === undefined);
    expect(answers.map((m) => m.id)).toContain(ids[0]);

    const request = recording.lanes["bridge→runtime"].find((e) => message(e.line).method === "interaction/request")!.line;
    const liveRequest = JSON.stringify({ ...JSON.parse(request), id: "live-77" });
    const liveExtra = JSON.stringify({ ...JSON.parse(request), id: "live-78" });
    const notification = recording.lanes["bridge→runtime"].find((e) => message(e.line).id === undefined)!.line;
    const mapped = mapRequestIdsToRecorded([notification, liveRequest, liveExtra], recorded);
    expect(mapped[0]).toBe(notification);
    expect(message(mapped[1]!).id).toBe(ids[0]);
    // Key order is kept: only the id value changed.
    expect(Object.keys(JSON.parse(mapped[1]!))).toEqual(Object.keys(JSON.parse(liveRequest)));
    expect(message(mapped[2]!).id).toBe(ids.length > 1 ? ids[1] : "live-78");
  });

  it("buildCurrentBridgeLane drops the harness's initialize answer and anchors the rest", async () => {
    const recording = await readRecording(path.join(cursorRecordings, "approval-allow"));
    const runtime = recording.lanes["runtime→bridge"];
    const first = runtime[0]!;
    const live = [
      { line: JSON.stringify({ jsonrpc: "2.0", id: "parity-initialize", result: { protocolVersion: 2 } }), after: null },
      ...recording.lanes["bridge→runtime"].slice(0, 3).map((e) => ({ line: e.line, after: first })),
    ];
    const lane = buildCurrentBridgeLane(live, {
      runtimeLane: runtime,
      recordedBridgeLane: recording.lanes["bridge→runtime"],
      harnessInitializeId: "parity-initialize",
    });
    expect(lane).toHaveLength(3);
    expect(lane.some((e) => e.line.includes("parity-initialize"))).toBe(false);
    expect(lane.map((e) => e.seq)).toEqual([1, 2, 3].map((k) => first.seq + k / 4));
    expect(lane.map((e) => e.ts)).toEqual([1, 2, 3].map((k) => first.ts + k));
  });

  it("the reference's own current lanes follow the same rule: ts − anchor.ts = k and seq − anchor.seq = k/(L+1)", async () => {
    for (const cell of ["approval-allow", "turn-tools", "resume"]) {
      const recording = await readRecording(path.join(cursorRecordings, cell));
      const current = recording.currentBridgeLane!;
      const runtime = recording.lanes["runtime→bridge"];
      const anchors = runtimeAnchors(current, runtime);
      const fractions = current.map((e, i) => {
        const a = anchors[i] ?? { run: runtime[0]!.run, seq: runtime[0]!.seq - 1, ts: runtime[0]!.ts };
        expect(e.run).toBe(a.run);
        return { k: e.ts - a.ts, frac: e.seq - a.seq };
      });
      const step = fractions[0]!.frac / fractions[0]!.k;
      for (const f of fractions) {
        expect(f.k).toBeGreaterThanOrEqual(1);
        expect(f.frac).toBeCloseTo(f.k * step, 9);
      }
    }
  });
});

describe("redaction of the current lane", () => {
  it("the dashed home form is rewritten where it starts a name, never inside a word (the real cursor commands text says multi-root)", () => {
    const redactor = rerecordRedactor({ home: "/root", env: {} });
    expect(redactor.redactLine("/root/ws and -root-ws")).toBe("/home/user/ws and -home-user-ws");
    expect(redactor.redactLine("multi-root: one shared table")).toBe("multi-root: one shared table");
    // Idempotent, and a secret of the environment never survives.
    const withSecret = rerecordRedactor({ home: "/home/alice", env: { MY_API_TOKEN: "s3cr3t-value-123" } });
    const once = withSecret.redactLine(JSON.stringify({ text: "token s3cr3t-value-123 in /home/alice/x" }));
    expect(once).toBe(JSON.stringify({ text: "token REDACTED in /home/user/x" }));
    expect(withSecret.redactLine(once)).toBe(once);
  });
});
