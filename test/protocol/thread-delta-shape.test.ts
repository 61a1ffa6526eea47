/**
 * The hand-written read of common `thread/delta` deltas (stack/protocol/thread-delta-shape.ts)
 * returns exactly what the zod schemas return (JSON bytes, key order at every level, prototypes),
 * or declines the whole batch: over every `thread/delta` recorded under `recordings/` and `lanes/`
 * (and the real cursor recordings beside the checkout when present) and over hand-made bad input.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ThreadDeltaSchema, parseThreadDeltaParams } from "../../stack/protocol/thread-delta.js";
import { readCommonDeltas } from "../../stack/protocol/thread-delta-shape.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const roots = [path.join(repoRoot, "recordings"), path.join(repoRoot, "lanes"), path.resolve(repoRoot, "../shared/recordings")].filter((root) => existsSync(root));

function ndjsonFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) ndjsonFiles(full, into);
    else if (entry.name.endsWith(".ndjson")) into.push(full);
  }
  return into;
}

/** Every recorded `thread/delta` notification's `deltas`, as parsed from its recorded line. */
function recordedBatches(): unknown[][] {
  const batches: unknown[][] = [];
  for (const root of roots) {
    for (const file of ndjsonFiles(root)) {
      for (const text of readFileSync(file, "utf8").split("\n")) {
        if (!text.includes("thread/delta")) continue;
        let message: { method?: unknown; params?: { deltas?: unknown } };
        try {
          message = JSON.parse((JSON.parse(text) as { line: string }).line) as typeof message;
        } catch {
          continue; // not a recorded JSON line
        }
        if (message?.method === "thread/delta" && Array.isArray(message.params?.deltas)) batches.push(message.params.deltas as unknown[]);
      }
    }
  }
  return batches;
}

/** Same value, same key order and same prototype at every level. */
function expectIdentical(fast: unknown, slow: unknown): void {
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
  if (typeof slow !== "object" || slow === null) {
    expect(fast).toBe(slow);
    return;
  }
  expect(Object.getPrototypeOf(fast)).toBe(Object.getPrototypeOf(slow));
  expect(Object.keys(fast as object)).toEqual(Object.keys(slow as object));
  for (const key of Object.keys(slow)) expectIdentical((fast as Record<string, unknown>)[key], (slow as Record<string, unknown>)[key]);
}

/** The reader agrees with zod on `batch`: declined, or every delta as the schema outputs it. Returns whether it read the batch. */
function expectSameAsSchema(batch: unknown[]): boolean {
  const fast = readCommonDeltas(batch);
  if (fast === undefined) return false;
  expect(fast).toHaveLength(batch.length);
  batch.forEach((delta, index) => {
    const parsed = ThreadDeltaSchema.safeParse(delta);
    expect(parsed.success).toBe(true);
    expect(fast[index]).not.toBe(delta);
    expectIdentical(fast[index], parsed.data);
  });
  return true;
}

const fallback = { raw: { jsonrpc: "2.0", method: "session/update", params: { update: { sessionUpdate: "x" } } }, rawType: "session/update" };
/** One valid delta of each kind the reader handles, each with every optional key. */
const VALID: Record<string, unknown>[] = [
  { kind: "item.textDelta", key: { providerItemId: "i1", channel: "c", parentRef: "p" }, channel: "agentMessage", text: "hi", providerTurnId: "t1", noTurnFallback: fallback },
  { kind: "item.textClose", key: { channel: "c" }, channel: "reasoningText", text: "x", providerTurnId: "t1", noTurnFallback: fallback },
  { kind: "item.textClose", key: {}, channel: "plan" },
  { kind: "item.outputDelta", key: { providerItemId: "i1" }, channel: "command", text: "out", providerTurnId: "t1" },
  { kind: "session.reset" },
  { kind: "input.accepted", clientRequestId: "creq_23456789ab", providerTurnId: "t1" },
  { kind: "turn.open", providerTurnId: "t1", parentRef: "p" },
  { kind: "turn.boundary", status: "failed", error: { message: "m" }, providerCheckpointId: "cp", claimIfIdle: true, providerTurnId: "t1" },
  { kind: "unhandled", raw: { jsonrpc: "2.0", id: 3, method: "m", params: [1, "a"] }, rawType: "m", vouchedTurn: false, onlyIfNoTurn: true, parentRef: "p", providerTurnId: "t1" },
  { kind: "extension.state", extensionKind: "bb/session-options", payload: { a: [1, null, { b: "c" }] } },
  { kind: "contextWindow", used: null, size: 200000, estimated: true, attach: "currentOrLast", providerTurnId: "t1" },
  {
    kind: "item.open",
    key: { providerItemId: "i2" },
    item: { type: "command", command: "ls", cwd: "/w", aggregatedOutput: "o", exitCode: 0, durationMs: 1.5 },
    presentation: { label: { pending: "Running", completed: "Ran" }, icon: { glyph: "$" }, title: "t", detail: "d", suppress: false, tint: { light: "#000", dark: "#fff" } },
    attach: "open",
    providerTurnId: "t1",
    noTurnFallback: fallback,
  },
  {
    kind: "item.close",
    key: { providerItemId: "i3" },
    status: "failed",
    resultText: "r",
    exitCode: 1,
    aggregatedOutput: "a",
    approvalStatus: "denied",
    item: { type: "tool", tool: "Read", server: "s", args: { a: [1, { b: null }] }, result: [1], error: null, durationMs: 3 },
    presentation: { label: { pending: "p", completed: "c" }, icon: { glyph: "g" } },
    providerTurnId: "t1",
    noTurnFallback: fallback,
  },
  {
    kind: "item.close",
    key: {},
    status: "completed",
    item: {
      type: "fileChange",
      changes: [
        { path: "a", kind: "update", movePath: "b", diff: "d", oldText: "o", newText: "n" },
        { path: "c", kind: "add" },
      ],
    },
  },
  { kind: "item.open", key: {}, item: { type: "agentMessage", text: "" } },
  { kind: "item.open", key: { providerItemId: "f" }, item: { type: "fileRead", path: "p", cmd: "cat p" }, attach: "currentOrLast" },
  { kind: "item.close", key: { channel: "c" }, status: "interrupted", item: { type: "fileChange", changes: [] } },
  { kind: "item.open", key: {}, item: { type: "tool", tool: "t" } },
];

/** The `index`-th of {@link VALID}. */
function valid(index: number): Record<string, unknown> {
  const delta = VALID[index];
  if (!delta) throw new Error(`no VALID[${index}]`);
  return delta;
}

/** A copy of `delta` with the field at the dotted path set to `value`, or deleted when `remove`. */
function withField(delta: Record<string, unknown>, dotted: string, value: unknown, remove = false): Record<string, unknown> {
  const copy = structuredClone(delta);
  const parts = dotted.split(".");
  const last = parts.pop() ?? dotted;
  let target = copy;
  for (const part of parts) target = target[part] as Record<string, unknown>;
  if (remove) delete target[last];
  else target[last] = value;
  return copy;
}

describe("the common-shape read of thread/delta deltas", () => {
  it("reads every recorded batch as the schemas do, and declines only batches holding another kind or an invalid delta", () => {
    const batches = recordedBatches();
    expect(batches.length).toBeGreaterThan(1000);
    let read = 0;
    for (const batch of batches) {
      if (expectSameAsSchema(batch)) {
        read += 1;
        continue;
      }
      // Declined: some delta is of a kind the reader leaves to zod, or zod rejects it.
      const handled = new Set([
        "item.open",
        "item.close",
        "item.textDelta",
        "item.textClose",
        "item.outputDelta",
        "session.reset",
        "input.accepted",
        "turn.open",
        "turn.boundary",
        "unhandled",
        "extension.state",
        "contextWindow",
      ]);
      // item.open/item.close are read for the item shapes of stack/protocol/item-shape-read.ts only.
      const handledItems = new Set<unknown>(["command", "tool", "fileChange", "agentMessage", "fileRead"]);
      const other = (delta: { kind: string; item?: { type?: unknown } }): boolean =>
        !handled.has(delta.kind) || ((delta.kind === "item.open" || delta.kind === "item.close") && !handledItems.has(delta.item?.type));
      const reason = batch.some((delta) => other(delta as { kind: string }) || !ThreadDeltaSchema.safeParse(delta).success);
      expect(reason, JSON.stringify(batch).slice(0, 300)).toBe(true);
    }
    // Most recorded batches are read by hand (that is the point).
    expect(read / batches.length).toBeGreaterThan(0.75);
  });

  it("reads one valid delta of every handled kind, with every optional key, as the schema does", () => {
    for (const delta of VALID) expect(expectSameAsSchema([delta]), delta.kind as string).toBe(true);
    expect(expectSameAsSchema(VALID)).toBe(true);
  });

  it("reads a presentation detail of exactly the limit and declines one unit more, as the schema decides", () => {
    expect(expectSameAsSchema([withField(valid(11), "presentation.detail", "x".repeat(280))])).toBe(true);
    expect(ThreadDeltaSchema.safeParse(withField(valid(11), "presentation.detail", "x".repeat(281))).success).toBe(false);
  });

  it("strips unknown keys (an own __proto__ too) as zod does, at every level", () => {
    const extra = JSON.parse(
      '{"kind":"item.textDelta","zzz":1,"__proto__":{"polluted":true},"key":{"channel":"c","extra":2,"__proto__":{"x":1}},"channel":"agentMessage","text":"t",' +
        '"noTurnFallback":{"rawType":"r","raw":{"params":{"keep":1,"__proto__":{"kept":true}},"method":"m","jsonrpc":"2.0","other":3},"more":4}}',
    ) as unknown;
    expect(expectSameAsSchema([extra])).toBe(true);
    const boundary = { extra: true, status: "completed", kind: "turn.boundary", error: { message: "m", code: 5 } };
    expect(expectSameAsSchema([boundary])).toBe(true);
    const item = JSON.parse(
      '{"item":{"cwd":"/","z":1,"command":"c","type":"command","__proto__":{"p":1}},"key":{},"kind":"item.open","presentation":{"x":1,"icon":{"glyph":"g","y":2},"label":{"completed":"c","pending":"p","z":3},"tint":{"dark":"d","light":"l","w":4}},"status":"pending"}',
    ) as unknown;
    expect(expectSameAsSchema([item])).toBe(true);
    const change = JSON.parse('{"kind":"item.close","status":"completed","key":{},"item":{"changes":[{"kind":"delete","path":"p","x":1,"__proto__":{}}],"type":"fileChange","q":2}}') as unknown;
    expect(expectSameAsSchema([change])).toBe(true);
  });

  it("declines the whole batch when one delta is invalid or of another kind, and zod still names the problem", () => {
    const bad: unknown[] = [
      null,
      "item.textDelta",
      [],
      { kind: "message.delta", channel: "agentMessage", streamKey: "s", text: "t" },
      withField(valid(0), "text", 5),
      withField(valid(0), "text", "", true),
      withField(valid(0), "text", undefined),
      withField(valid(0), "channel", "command"),
      withField(valid(0), "key", "k"),
      withField(valid(0), "key.channel", ""),
      withField(valid(0), "key.providerItemId", "a\u001fb"),
      withField(valid(0), "providerTurnId", ""),
      withField(valid(0), "noTurnFallback.raw.jsonrpc", "1.0"),
      withField(valid(0), "noTurnFallback.raw.params", NaN),
      withField(valid(0), "noTurnFallback.raw.params", { a: undefined }),
      withField(valid(0), "noTurnFallback.rawType", null),
      withField(valid(2), "text", null),
      withField(valid(3), "channel", "agentMessage"),
      withField(valid(5), "clientRequestId", "creq_0000000000"),
      withField(valid(6), "parentRef", 1),
      withField(valid(7), "status", "pending"),
      withField(valid(7), "error", { message: 1 }),
      withField(valid(7), "claimIfIdle", "yes"),
      withField(valid(8), "vouchedTurn", undefined, true),
      withField(valid(8), "raw.id", Infinity),
      withField(valid(8), "raw.id", true),
      withField(valid(9), "extensionKind", "Bad/Kind"),
      withField(valid(9), "payload", { f: () => 1 }),
      withField(valid(10), "used", NaN),
      withField(valid(10), "size", "big"),
      withField(valid(10), "attach", "later"),
      withField(valid(11), "key", undefined, true),
      withField(valid(11), "item", undefined, true),
      withField(valid(11), "item", null),
      withField(valid(11), "item.command", 1),
      withField(valid(11), "item.cwd", undefined, true),
      withField(valid(11), "item.aggregatedOutput", undefined),
      withField(valid(11), "item.exitCode", "0"),
      withField(valid(11), "item.durationMs", NaN),
      withField(valid(11), "presentation", null),
      withField(valid(11), "presentation.label.pending", ""),
      withField(valid(11), "presentation.label", undefined, true),
      withField(valid(11), "presentation.icon", undefined, true),
      withField(valid(11), "presentation.icon.glyph", 7),
      withField(valid(11), "presentation.title", 1),
      withField(valid(11), "presentation.detail", "x".repeat(281)),
      withField(valid(11), "presentation.suppress", "no"),
      withField(valid(11), "presentation.tint.dark", ""),
      withField(valid(11), "presentation.tint", "#fff"),
      withField(valid(11), "attach", "later"),
      withField(valid(11), "providerTurnId", "a\u001fb"),
      withField(valid(12), "status", "done"),
      withField(valid(12), "status", undefined, true),
      withField(valid(12), "approvalStatus", "allowed"),
      withField(valid(12), "resultText", 5),
      withField(valid(12), "exitCode", Infinity),
      withField(valid(12), "item.tool", undefined, true),
      withField(valid(12), "item.server", null),
      withField(valid(12), "item.args", { f: undefined }),
      withField(valid(12), "item.result", undefined),
      withField(valid(12), "item.durationMs", "3"),
      withField(valid(13), "item.changes", "x"),
      withField(valid(13), "item.changes.0.kind", "rename"),
      withField(valid(13), "item.changes.0.path", undefined, true),
      withField(valid(13), "item.changes.0.diff", 1),
      withField(valid(13), "item.changes.1", null),
      withField(valid(13), "item.changes.1", Object.assign(Object.create(null) as object, { path: "c", kind: "add" })),
      withField(valid(14), "item.text", undefined, true),
      withField(valid(15), "item.path", 1),
      withField(valid(15), "item.cmd", null),
      Object.assign(Object.create(null) as object, valid(4)),
      new (class {
        kind = "session.reset";
      })(),
    ];
    for (const delta of bad) {
      expect(readCommonDeltas([delta]), JSON.stringify(delta) ?? String(delta)).toBeUndefined();
      expect(readCommonDeltas([...VALID, delta])).toBeUndefined();
    }
    // Item shapes the reader leaves to zod (valid ones too): the batch is declined, zod reads it.
    for (const item of [{ type: "compaction" }, { type: "plan", text: "p" }, { type: "extension", kind: "bb/x", payload: {} }]) {
      const delta = { ...valid(11), item };
      expect(readCommonDeltas([delta]), item.type).toBeUndefined();
      expect(ThreadDeltaSchema.safeParse(delta).success, item.type).toBe(true);
    }
    // An item.open extension without presentation: a refinement the reader never sees (it declines the extension shape); zod rejects it.
    const extension = { kind: "item.open", key: { providerItemId: "e" }, item: { type: "extension", kind: "bb/x", payload: {} } };
    expect(readCommonDeltas([valid(4), extension])).toBeUndefined();
    expect(() => parseThreadDeltaParams({ threadId: "t", deltas: [valid(4), extension] })).toThrow(/deltas\.1\.presentation: an extension item requires a presentation/);
    expect(() => parseThreadDeltaParams({ threadId: "t", deltas: [valid(0), withField(valid(0), "text", 5)] })).toThrow(/deltas\.1\.text/);
  });

  it("parseThreadDeltaParams returns the hand-read deltas for a common batch and keeps its own threadId rule", () => {
    const params = { threadId: "thr", deltas: VALID, extra: 1 };
    const parsed = parseThreadDeltaParams(params);
    expect(Object.keys(parsed)).toEqual(["threadId", "deltas"]);
    expectIdentical(
      parsed.deltas,
      VALID.map((delta) => ThreadDeltaSchema.parse(delta)),
    );
    expect(() => parseThreadDeltaParams({ threadId: "", deltas: VALID })).toThrow(/threadId: must be a non-empty string/);
  });
});
