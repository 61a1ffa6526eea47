import { describe, expect, it } from "vitest";
import { diffSequences } from "../../harness/compare/lcs.js";

const kinds = (oldSeq: string[], newSeq: string[]) =>
  diffSequences(oldSeq, newSeq).ops.map((op) => (op.kind === "equal" ? `=${oldSeq[op.oldIndex]}` : op.kind === "removed" ? `-${oldSeq[op.oldIndex]}` : `+${newSeq[op.newIndex]}`));

describe("diffSequences (spec 10 §6.3 backtracking)", () => {
  it("reports nothing for equal sequences", () => {
    const diff = diffSequences(["a", "b", "c"], ["a", "b", "c"]);
    expect(diff.onlyInOld).toEqual([]);
    expect(diff.onlyInNew).toEqual([]);
    expect(diff.ops.every((op) => op.kind === "equal")).toBe(true);
  });

  it("on a tie sends the old element first (L[i+1][j] >= L[i][j+1])", () => {
    // a→b at one position: both branches tie at 0, so the removal comes before the addition.
    expect(kinds(["a"], ["b"])).toEqual(["-a", "+b"]);
    expect(kinds(["x", "a", "y"], ["x", "b", "y"])).toEqual(["=x", "-a", "+b", "=y"]);
  });

  it("takes the new element when keeping old loses LCS length", () => {
    // b vs a: L[1][0] = LCS([c],[a,b,c]) = 1 < L[0][1] = LCS([b,c],[b,c]) = 2, so a is added first.
    expect(kinds(["b", "c"], ["a", "b", "c"])).toEqual(["+a", "=b", "=c"]);
  });

  it("matches equal heads greedily, so the first duplicate is the one kept", () => {
    const diff = diffSequences(["b", "a", "b"], ["b"]);
    expect(diff.onlyInOld).toEqual([1, 2]);
    expect(kinds(["b", "a", "b"], ["b"])).toEqual(["=b", "-a", "-b"]);
  });

  it("is order-sensitive: a swap is a removal and an addition, not a match", () => {
    const diff = diffSequences(["a", "b"], ["b", "a"]);
    expect(diff.onlyInOld).toEqual([0]);
    expect(diff.onlyInNew).toEqual([1]);
    expect(kinds(["a", "b"], ["b", "a"])).toEqual(["-a", "=b", "+a"]);
  });

  it("appends leftovers of either side", () => {
    expect(kinds(["a", "b", "c"], ["a"])).toEqual(["=a", "-b", "-c"]);
    expect(kinds([], ["a", "b"])).toEqual(["+a", "+b"]);
    expect(kinds(["a", "b"], [])).toEqual(["-a", "-b"]);
  });

  it("is key-order sensitive over JSON.stringify", () => {
    const oldSeq = [JSON.stringify({ type: "x", id: "#1" })];
    const newSeq = [JSON.stringify({ id: "#1", type: "x" })];
    expect(diffSequences(oldSeq, newSeq).onlyInOld).toEqual([0]);
  });

  it("finds a longest common subsequence on an interleaved case", () => {
    const oldSeq = ["a", "b", "c", "d", "e", "f"];
    const newSeq = ["b", "x", "d", "f", "y"];
    const diff = diffSequences(oldSeq, newSeq);
    const kept = diff.ops.filter((op) => op.kind === "equal").length;
    expect(kept).toBe(3); // b, d, f
    expect(kinds(oldSeq, newSeq)).toEqual(["-a", "=b", "-c", "+x", "=d", "-e", "=f", "+y"]);
  });
});
