import { describe, expect, it } from "vitest";
import { changedLines, diffHeaderPath, fileChangeDiff } from "../../stack/assembler/index.js";

describe("file-change diffs (spec 10 §2.3)", () => {
  it("a provider-supplied diff wins; an empty one is omitted", () => {
    expect(fileChangeDiff({ path: "a", kind: "update", diff: "D", oldText: "x", newText: "y" })).toBe("D");
    expect(fileChangeDiff({ path: "a", kind: "update", diff: "", oldText: "x", newText: "y" })).toBeUndefined();
  });

  it("builds -/+ lines from a prefix/suffix-trimmed LCS under a/ b/ headers", () => {
    const oldText = "keep 1\nold a\nsame\nold b\nkeep 2\n";
    const newText = "keep 1\nsame\nnew b\nkeep 2\n";
    expect(fileChangeDiff({ path: "/tmp/ws/math.js", kind: "update", oldText, newText })).toBe("--- a/tmp/ws/math.js\n+++ b/tmp/ws/math.js\n-old a\n-old b\n+new b\n");
  });

  it("an add diffs from /dev/null; backslashes become slashes and leading slashes go", () => {
    expect(fileChangeDiff({ path: "\\\\srv\\dir\\f.txt", kind: "add", newText: "one\ntwo\n" })).toBe("--- /dev/null\n+++ b/srv/dir/f.txt\n+one\n+two\n");
    expect(diffHeaderPath("//x\\y")).toBe("x/y");
  });

  it("identical texts and a delete with oldText only give no diff", () => {
    expect(fileChangeDiff({ path: "a", kind: "update", oldText: "same\n", newText: "same\n" })).toBeUndefined();
    expect(fileChangeDiff({ path: "a", kind: "delete", oldText: "gone\n" })).toBeUndefined();
  });

  it("changedLines puts removals before additions where the LCS allows and appends leftovers", () => {
    expect(changedLines(["a", "b", "c"], ["a", "x", "c"])).toBe("-b\n+x\n");
    expect(changedLines([], ["n"])).toBe("+n\n");
    expect(changedLines(["o"], [])).toBe("-o\n");
    expect(changedLines(["a", "b"], ["b", "a"])).toBe("-a\n+a\n");
  });
});
