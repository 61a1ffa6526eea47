import { describe, expect, it } from "vitest";
import { readTurnEnd, turnEndDeltas, usageOf } from "../../stack/claude-code/result.js";
import { creationDiff, unifiedDiff } from "../../stack/bridge-kit/structured-patch.js";
import { parseStreamJsonLine } from "../../stack/claude-code/wire.js";

const result = (fields: object) => parseStreamJsonLine(JSON.stringify({ type: "result", ...fields }))!;

describe("claude-code result (spec 60 Turn end)", () => {
  it("is_error decides failure, not subtype: an API error says success and still fails, with its status and the synthetic text", () => {
    const end = readTurnEnd(result({ subtype: "success", is_error: true, api_error_status: 400, terminal_reason: "api_error", result: "API Error: 400 x" }), "API Error: 400 x");
    expect(end).toMatchObject({ status: "failed", error: "API Error: 400 x", httpStatus: 400 });
    expect(end.recovery).toBeUndefined();
  });

  it("401 → authRequired, 429 → rateLimited", () => {
    expect(readTurnEnd(result({ is_error: true, api_error_status: 401 }), "API Error: 401").recovery).toMatchObject({ kind: "authRequired" });
    expect(readTurnEnd(result({ is_error: true, api_error_status: 429 }), "API Error: 429").recovery).toMatchObject({ kind: "rateLimited", retryable: true });
  });

  it("aborted_streaming is an interrupted turn", () => {
    expect(readTurnEnd(result({ subtype: "error_during_execution", is_error: true, terminal_reason: "aborted_streaming" }), undefined).status).toBe("interrupted");
  });

  it("usage counts cache reads as input and cached; the failed turn's boundary carries its error after provider.error", () => {
    const line = result({ is_error: false, usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 1, output_tokens: 3, output_tokens_details: { thinking_tokens: 2 } } });
    expect(usageOf(line)).toEqual({ totalTokens: 19, inputTokens: 16, cachedInputTokens: 5, outputTokens: 3, reasoningOutputTokens: 2 });
    const failed = readTurnEnd(result({ is_error: true, api_error_status: 500 }), "API Error: 500 boom");
    const kinds = turnEndDeltas(failed, failed.usage).map((d) => d.kind);
    expect(kinds).toEqual(["usage", "provider.error", "turn.boundary"]);
  });
});

describe("claude-code patch", () => {
  it("a structuredPatch becomes a unified diff with hunk headers", () => {
    expect(unifiedDiff("/w/a.txt", [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 2, lines: ["-x", "+y", "+z"] }])).toBe("--- a/w/a.txt\n+++ b/w/a.txt\n@@ -2,1 +2,2 @@\n-x\n+y\n+z\n");
    expect(unifiedDiff("/w/a.txt", [])).toBeUndefined();
  });

  it("a created file is all additions from /dev/null", () => {
    expect(creationDiff("/w/n.txt", "a\nb\n")).toBe("--- /dev/null\n+++ b/w/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  });
});
