import { describe, expect, it } from "vitest";
import { diffLanes } from "../../harness/compare/lane-diff.js";
import { allowlistPathProblem } from "../../harness/compare/pointer.js";

const delta = (itemId: string, text: string) => ({ type: "item/agentMessage/delta", itemId, delta: text });
const started = (id: string, extra: Record<string, unknown> = {}) => ({ type: "item/started", item: { type: "toolCall", id, ...extra } });

describe("diffLanes", () => {
  it("pairs a changed event with its own kind even when an event was inserted before it", () => {
    const oldLane = [started("#1"), delta("#1", "a"), delta("#1", "b")];
    const newLane = [started("#1"), { type: "warning", message: "new" }, delta("#1", "A"), delta("#1", "b")];
    const diff = diffLanes(oldLane, newLane);
    // Script order: the tie sends old "a" first, so its paired field change comes before the addition.
    expect(diff.differences.map((d) => [d.op, d.path, d.oldIndex, d.newIndex])).toEqual([
      ["replace", "/2/delta", 1, 2],
      ["add", "/1", undefined, 1],
    ]);
    expect(diff.differences[0]).toMatchObject({ old: "a", new: "A" });
  });

  it("reports array changes inside an event at the containing field, so the path can be allowlisted", () => {
    const oldLane = [started("#1", { args: ["x", "y"] })];
    const newLane = [started("#1", { args: ["x", "z", "w"] })];
    const diff = diffLanes(oldLane, newLane);
    expect(diff.differences.map((d) => [d.op, d.path])).toEqual([["replace", "/0/item/args"]]);
    expect(diff.differences[0]).toMatchObject({ old: ["x", "y"], new: ["x", "z", "w"] });
    expect(allowlistPathProblem(diff.differences[0]!.path)).toBeUndefined();
  });

  it("escapes keys with / and ~ in paths", () => {
    const diff = diffLanes([{ type: "x", meta: { "a/b~c": 1 } }], [{ type: "x", meta: { "a/b~c": 2 } }]);
    expect(diff.differences.map((d) => d.path)).toEqual(["/0/meta/a~1b~0c"]);
  });

  it("does not pair events of different kinds", () => {
    const diff = diffLanes([delta("#1", "a")], [started("#2")]);
    expect(diff.differences.map((d) => [d.op, d.path])).toEqual([
      ["remove", "/0"],
      ["add", "/0"],
    ]);
  });

  it("gives one line per event of both sides in script order", () => {
    const diff = diffLanes([delta("#1", "a"), delta("#1", "b")], [delta("#1", "b"), delta("#1", "c")]);
    expect(diff.lines.map((l) => l.kind)).toEqual(["removed", "equal", "added"]);
    expect(diff.lines[1]).toMatchObject({ oldIndex: 1, newIndex: 0, text: JSON.stringify(delta("#1", "b")) });
  });
});
