import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AllowlistEntry } from "../../harness/compare/allowlist.js";
import { compareParity } from "../../harness/compare/parity.js";

// Issue 26: an allowlist entry is stale when it masks no difference — every value it selects is
// equal between the live lane and each side — not only when it selects nothing. Before, an entry
// whose difference was fixed kept "masking" equal values and hid every later regression of its field.

const repoRoot = path.resolve(import.meta.dirname, "../..");
const oracle = async (): Promise<Array<Record<string, any>>> => JSON.parse(await readFile(path.join(repoRoot, "lanes/echo/turn.json"), "utf8"));

const entry = (entryPath: string): AllowlistEntry => ({ provider: "echo", cell: "turn", layer: "events", path: entryPath, pr: "#26", reason: "the delta text changed" });
const verdictOf = (live: unknown[], expected: unknown[], allowlist: AllowlistEntry[]) =>
  compareParity({ provider: "echo", cell: "turn", live: { events: live }, oracle: { events: expected }, recorded: { events: expected }, allowlist });

describe("stale means the entry masks no difference", () => {
  it("an entry whose difference is gone (equal values on every side) is stale and fails the cell", async () => {
    const lane = await oracle();
    const fixed = entry("/*[type=item/agentMessage/delta]/delta");
    const verdict = verdictOf(lane, lane, [fixed]);
    expect(verdict.masked[0]!.count).toBeGreaterThan(0); // it selects values: the old rule kept it
    expect(verdict.diffs).toEqual([]);
    expect(verdict.stale).toEqual([fixed]);
    expect(verdict.passed).toBe(false);
  });

  it("the same entry over a real difference masks it and is not stale", async () => {
    const expected = await oracle();
    const live = structuredClone(expected);
    const delta = live.findIndex((e) => e.type === "item/agentMessage/delta");
    live[delta]!.delta = `${String(live[delta]!.delta)} (changed)`;
    const verdict = verdictOf(live, expected, [entry("/*[type=item/agentMessage/delta]/delta")]);
    expect(verdict.diffs).toEqual([]);
    expect(verdict.stale).toEqual([]);
    expect(verdict.passed).toBe(true);
  });

  it("a difference against the recording alone keeps the entry (the oracle may already agree)", async () => {
    const expected = await oracle();
    const live = structuredClone(expected);
    const delta = live.findIndex((e) => e.type === "item/agentMessage/delta");
    live[delta]!.delta = "changed";
    const verdict = compareParity({
      provider: "echo",
      cell: "turn",
      live: { events: live },
      oracle: { events: live },
      recorded: { events: expected },
      allowlist: [entry("/*[type=item/agentMessage/delta]/delta")],
    });
    expect(verdict.stale).toEqual([]);
    expect(verdict.passed).toBe(true);
  });

  it("a whole-event selector over an event both sides have is stale; over an event only live has, it is not", async () => {
    const expected = await oracle();
    const both = entry("/*[type=turn/started]");
    expect(verdictOf(expected, expected, [both]).stale).toEqual([both]);
    const live = [...structuredClone(expected), { type: "thread/extensionState/updated", threadId: "", providerThreadId: "", scope: { kind: "thread" }, kind: "bb/x", payload: {} }];
    const added = entry("/*[type=thread/extensionState/updated]");
    const verdict = verdictOf(live, expected, [added]);
    expect(verdict.stale).toEqual([]);
    expect(verdict.passed).toBe(true);
  });

  it("a positional entry over the same value at another place is not stale (the lanes differ there)", async () => {
    const expected = await oracle();
    const live = structuredClone(expected);
    const moved = live.splice(1, 1)[0]!;
    live.splice(2, 0, moved);
    const verdict = verdictOf(live, expected, [entry("/1/clientRequestId")]);
    expect(verdict.stale).toEqual([]);
  });
});
