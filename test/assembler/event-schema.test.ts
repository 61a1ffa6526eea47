import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane } from "../../harness/lanes/index.js";
import { readRecording } from "../../harness/recording/reader.js";
import { THREAD_EVENT_TYPES, ThreadEventSchema } from "../../stack/protocol/thread-events.js";
import { CREQ, d, presentation, raw, Rig } from "./harness.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recordingsRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");

describe("ThreadEventSchema (spec 10 §2.2) accepts what the assembler emits", () => {
  it("every event of the real acp-cursor lanes parses", async () => {
    let count = 0;
    for (const cell of ["approval-allow", "approval-deny", "resume", "stop-interrupt", "subagent", "turn-tools"]) {
      for (const event of buildThreadLane(await readRecording(path.join(recordingsRoot, cell))).events) {
        expect(ThreadEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 200)).toBe(true);
        count++;
      }
    }
    expect(count).toBe(31 + 29 + 21 + 39 + 50 + 98);
  });

  it("every event type the assembler emits parses, including thread-scoped and unhandled ones", () => {
    const rig = new Rig();
    const task = { type: "backgroundTask", familyId: "f", taskType: "t", description: "d", status: "pending", taskStatus: "running", skipTranscript: false };
    const delegation = { type: "delegation", childRef: "c", label: "l", background: true };
    const usage = { totalTokens: 1, inputTokens: 1, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
    rig.feed([
      { kind: "thread.started" },
      { kind: "thread.identity", providerThreadId: "p" },
      { kind: "thread.name", name: "n" },
      { kind: "extension.state", extensionKind: "acme/goal", payload: null },
      { kind: "provider.rateLimits", rateLimits: { status: "ok", windows: [] } },
      d.turnOpen(),
      d.accepted(CREQ[0]),
      d.open({ providerItemId: "bg" }, task),
      d.progress({ providerItemId: "bg" }, { snapshot: task, flush: true }),
      d.close({ providerItemId: "bg" }, { ...task, status: "completed" }),
      d.open({ providerItemId: "dg" }, delegation, { presentation: presentation("D") }),
      d.progress({ providerItemId: "dg" }, { snapshot: delegation, flush: true }),
      d.close({ providerItemId: "dg" }, delegation),
      d.open({ providerItemId: "c" }, { type: "command", command: "ls", cwd: "/" }),
      d.output({ providerItemId: "c" }, "command", "out"),
      d.snapshot({ providerItemId: "c" }, "snap"),
      d.progress({ providerItemId: "c" }, { message: "m", flush: true }),
      d.output({ providerItemId: "f" }, "fileChange", "diff"),
      d.text({ channel: "s" }, "reasoningSummary", "s"),
      d.text({ channel: "s" }, "reasoningText", "t"),
      d.text({ channel: "p" }, "plan", "p"),
      d.text({ channel: "a" }, "agentMessage", "a"),
      { kind: "usage", total: usage, last: usage, modelContextWindow: 100 },
      { kind: "contextWindow", used: 1, size: 100, estimated: true, attach: "open" },
      { kind: "context.compacted" },
      { kind: "context.cleared" },
      { kind: "turn.diff", diff: "x" },
      { kind: "provider.error", message: "e", errorInfo: { category: "overloaded", providerCode: null, httpStatusCode: 529 }, category: "overloaded" },
      { kind: "provider.modelFallback", originalModel: "a", fallbackModel: "b", reason: "refusal", message: "m" },
      { kind: "provider.warning", category: "config", details: "x" },
      { kind: "unhandled", raw: raw("m", 3), rawType: "m", vouchedTurn: true, parentRef: "pp" },
      { kind: "session.ended" },
    ]);
    const seen = new Set(rig.all.map((event) => event.type));
    for (const event of rig.all) {
      const parsed = ThreadEventSchema.safeParse(event);
      expect(parsed.success, `${JSON.stringify(event).slice(0, 300)} ${parsed.error?.message ?? ""}`).toBe(true);
    }
    expect([...THREAD_EVENT_TYPES].filter((type) => !seen.has(type))).toEqual([]);
  });
});
