import { describe, expect, it } from "vitest";
import { renderTimeline } from "../../harness/report/timeline.js";
import { referenceLane } from "./helpers.js";

describe("renderTimeline", () => {
  it("prints one line per event of a real lane, with position, type, turn and item", async () => {
    const lane = await referenceLane("turn-tools");
    const text = renderTimeline(lane, { color: false });
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(lane.length);
    lane.forEach((event, index) => {
      expect(lines[index]).toMatch(new RegExp(`^ *${index}  ${event.type.replace(/\//g, "\\/")} +${event.scope.turnId ?? "thread"}(  |$)`));
      if (event.item) expect(lines[index]).toContain(`${event.item.type} ${event.item.id}`);
      if (typeof event.delta === "string") expect(lines[index]).toContain(`${event.itemId} "`);
    });
    expect(text).not.toMatch(/\u001b\[/);
    expect(renderTimeline(lane, { color: true })).toMatch(/\u001b\[/);
  });

  it("copes with empty lanes and odd values", () => {
    expect(renderTimeline([], { color: false })).toBe("");
    const text = renderTimeline([null, { type: "thread/tokenUsage/updated", scope: { kind: "thread" }, usage: { total: 3 } }], { color: false });
    expect(text).toBe('0  null\n1  thread/tokenUsage/updated  thread  {"usage":{"total":3}}\n');
  });
});
