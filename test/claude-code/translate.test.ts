import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { subagentReport } from "../../stack/claude-code/tools.js";
import { createTurnTranslator } from "../../stack/claude-code/translate.js";
import { parseStreamJsonLine, type StreamJsonMessage } from "../../stack/claude-code/wire.js";
import type { ThreadDelta } from "../../stack/protocol/thread-delta.js";

const repoRoot = path.resolve(__dirname, "../..");

/** The CLI's lines of a committed real recording, in order. */
function providerLines(cell: string): StreamJsonMessage[] {
  const file = path.join(repoRoot, "recordings/claude-code", cell, "provider→bridge.ndjson");
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((entry) => parseStreamJsonLine((JSON.parse(entry) as { line: string }).line)!)
    .filter((message) => message !== undefined);
}

function translateAll(lines: StreamJsonMessage[], cwd = "/tmp/parity-workspace"): ThreadDelta[] {
  const translator = createTurnTranslator(cwd);
  return lines.flatMap((line) => translator.translate(line));
}

describe("claude-code translate, on the real turn-tools recording (2.1.332)", () => {
  const deltas = translateAll(providerLines("turn-tools"));

  it("each text once: the streamed deltas add up to the assistant block that closes the item", () => {
    const closes = deltas.filter((d) => d.kind === "item.textClose");
    expect(closes.map((d) => (d as { text?: string }).text)).toEqual(["I'll read the file first.", "Done: notes.txt now says status: final, and `wc -l` reports 3 lines."]);
    for (const close of closes) {
      const streamed = deltas
        .filter((d) => d.kind === "item.textDelta" && d.key.providerItemId === close.key.providerItemId)
        .map((d) => (d as { text: string }).text)
        .join("");
      expect(streamed).toBe((close as { text?: string }).text);
    }
  });

  it("Read is a fileRead, Edit a fileChange with the unified diff of its structuredPatch, Bash a command with its output and no invented exit code", () => {
    const closes = deltas.filter((d): d is Extract<ThreadDelta, { kind: "item.close" }> => d.kind === "item.close");
    expect(closes.map((d) => d.item.type)).toEqual(["fileRead", "fileChange", "command"]);
    expect(closes[0]!.item).toEqual({ type: "fileRead", path: "/tmp/parity-workspace/notes.txt" });
    // The file's bytes from tool_use_result.file.content, not the numbered view the tool_result shows the model.
    expect(closes[0]!.resultText).toBe("title: parity notes\nstatus: draft\nowner: nobody\n");
    expect(closes[1]!.item).toEqual({
      type: "fileChange",
      changes: [
        {
          path: "/tmp/parity-workspace/notes.txt",
          kind: "update",
          diff: "--- a/tmp/parity-workspace/notes.txt\n+++ b/tmp/parity-workspace/notes.txt\n@@ -1,3 +1,3 @@\n title: parity notes\n-status: draft\n+status: final\n owner: nobody\n",
        },
      ],
    });
    expect(closes[2]).toMatchObject({ status: "completed", aggregatedOutput: "3 notes.txt", item: { type: "command", command: "wc -l notes.txt" } });
    expect(closes[2]).not.toHaveProperty("exitCode");
  });

  it("every tool item opens once before it closes", () => {
    const opens = deltas.filter((d) => d.kind === "item.open").map((d) => d.key.providerItemId);
    const closes = deltas.filter((d) => d.kind === "item.close").map((d) => d.key.providerItemId);
    expect(opens).toEqual(closes);
    expect(new Set(opens).size).toBe(3);
  });
});

describe("claude-code translate, measured shapes (spec 60)", () => {
  const line = (value: object) => parseStreamJsonLine(JSON.stringify(value))!;
  const event = (value: object) => line({ type: "stream_event", event: value });

  it("a failed Bash keeps what the command printed and takes the exit code from the CLI's own Exit code line, and fails", () => {
    const translator = createTurnTranslator("/w");
    translator.translate(line({ type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "exit 3" } }] } }));
    const [close] = translator.translate(
      line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "Exit code 3\nout\nerr", is_error: true }] }, tool_use_result: "Error: Exit code 3\nout\nerr" }),
    );
    expect(close).toMatchObject({ kind: "item.close", status: "failed", exitCode: 3, aggregatedOutput: "out\nerr" });
  });

  it("the command-fails recording's failed command carries exactly what it printed, exit code 3 (no Exit code line)", () => {
    const translator = createTurnTranslator("/w");
    const closes = providerLines("command-fails")
      .flatMap((message) => translator.translate(message))
      .filter((delta): delta is Extract<ThreadDelta, { kind: "item.close" }> => delta.kind === "item.close" && delta.item.type === "command");
    expect(closes.map((c) => [c.exitCode, c.aggregatedOutput])).toEqual([[3, "first line\nsecond line\nsomething went wrong"]]);
  });

  it("a call the runtime allowed closes with approvalStatus approved; a call never asked about has none", () => {
    const translator = createTurnTranslator("/w");
    translator.translate(
      line({
        type: "assistant",
        message: {
          id: "m1",
          content: [
            { type: "tool_use", id: "t1", name: "Bash", input: { command: "touch a" } },
            { type: "tool_use", id: "t2", name: "Bash", input: { command: "touch b" } },
          ],
        },
      }),
    );
    translator.noteApproval("t1", true);
    const closes = translator.translate(
      line({
        type: "user",
        message: {
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "(Bash completed with no output)", is_error: false },
            { type: "tool_result", tool_use_id: "t2", content: "(Bash completed with no output)", is_error: false },
          ],
        },
        tool_use_result: { stdout: "", stderr: "", interrupted: false },
      }),
    );
    expect(closes[0]).toMatchObject({ status: "completed", approvalStatus: "approved", item: { command: "touch a" } });
    expect(closes[1]).not.toHaveProperty("approvalStatus");
  });

  it("a Read's resultText falls back to the displayed text when the structured result carries no text file (an image, a failure)", () => {
    const translator = createTurnTranslator("/w");
    const read = (id: string) => line({ type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id, name: "Read", input: { file_path: "/w/a.png" } }] } });
    translator.translate(read("r1"));
    const [image] = translator.translate(
      line({
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: "r1", content: [{ type: "text", text: "[image]" }] }] },
        tool_use_result: { type: "image", file: { base64: "AA==" } },
      }),
    );
    expect(image).toMatchObject({ status: "completed", resultText: "[image]" });
    translator.translate(read("r2"));
    const [failed] = translator.translate(
      line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "r2", content: "File does not exist.", is_error: true }] }, tool_use_result: "Error: File does not exist." }),
    );
    expect(failed).toMatchObject({ status: "failed", resultText: "File does not exist." });
  });

  it("a call the bridge denied closes failed with approvalStatus denied", () => {
    const translator = createTurnTranslator("/w");
    translator.translate(line({ type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id: "t2", name: "Write", input: { file_path: "/w/a", content: "x" } }] } }));
    translator.noteApproval("t2", false);
    const [close] = translator.translate(line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t2", content: "denied", is_error: true }] } }));
    expect(close).toEqual({
      kind: "item.close",
      key: { providerItemId: "t2" },
      status: "failed",
      resultText: "denied",
      approvalStatus: "denied",
      item: { type: "fileChange", changes: [{ path: "/w/a", kind: "update" }] },
    });
  });

  it("an interrupted stream closes its text with the partial text once, and the CLI's interrupt marker is no item", () => {
    const translator = createTurnTranslator("/w");
    const out = [
      event({ type: "message_start", message: { id: "m9" } }),
      event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Thinking…" } }),
      line({ type: "assistant", message: { id: "m9", content: [{ type: "text", text: "Thinking…" }] }, aborted: true }),
      line({ type: "user", message: { content: [{ type: "text", text: "[Request interrupted by user]" }] } }),
      event({ type: "content_block_stop", index: 0 }),
    ].flatMap((message) => translator.translate(message));
    expect(out.map((d) => d.kind)).toEqual(["item.textDelta", "item.textClose"]);
    expect(translator.settle()).toEqual([]);
  });

  it("the synthetic API-error message is no agent text: it becomes the turn's error", () => {
    const translator = createTurnTranslator("/w");
    const out = translator.translate(line({ type: "assistant", message: { id: "x", model: "<synthetic>", content: [{ type: "text", text: "API Error: 400 bad" }] } }));
    expect(out).toEqual([]);
    expect(translator.syntheticError).toBe("API Error: 400 bad");
  });

  it("thinking streams on reasoningText and is closed by its thinking block", () => {
    const translator = createTurnTranslator("/w");
    const out = [
      event({ type: "message_start", message: { id: "m2" } }),
      event({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
      event({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } }),
      event({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } }),
      line({ type: "assistant", message: { id: "m2", content: [{ type: "thinking", thinking: "hmm", signature: "s" }] } }),
    ].flatMap((message) => translator.translate(message));
    expect(out).toEqual([
      { kind: "item.textDelta", key: { providerItemId: "m2:0" }, channel: "reasoningText", text: "hmm" },
      { kind: "item.textClose", key: { providerItemId: "m2:0" }, channel: "reasoningText", text: "hmm" },
    ]);
  });
});

describe("claude-code translate, subagents (the real subagent recording, 2.1.332)", () => {
  const line = (value: object) => parseStreamJsonLine(JSON.stringify(value))!;

  it("a foreground Task is one delegation: labelled by its description, closed with the subagent's report as its summary", () => {
    const deltas = translateAll(providerLines("subagent"));
    const items = deltas.filter((d): d is Extract<ThreadDelta, { kind: "item.open" | "item.close" }> => d.kind === "item.open" || d.kind === "item.close");
    expect(items.map((d) => [d.kind, d.item.type])).toEqual([
      ["item.open", "delegation"],
      ["item.close", "delegation"],
    ]);
    expect(items[0]!.item).toEqual({ type: "delegation", childRef: "call_parity_1_1", label: "List files", background: false });
    // The CLI's hand-back frame, agentId line and usage block are the CLI's, not the report.
    expect(items[1]).toMatchObject({ status: "completed", item: { type: "delegation", summary: "The directory holds notes.txt." } });
    // The subagent's prompt line (parent_tool_use_id set) is no item of the parent's thread; the
    // parent's own answer is its one text.
    expect(deltas.filter((d) => d.kind === "item.textClose").map((d) => (d as { text?: string }).text)).toEqual(["The subagent found one file: notes.txt."]);
  });

  it("a background Task (the CLI's default) only launches the agent: a generic tool call whose result says so", () => {
    const translator = createTurnTranslator("/w");
    const input = { description: "List files", prompt: "List the files.", subagent_type: "general-purpose" };
    const [open] = translator.translate(line({ type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id: "t1", name: "Task", input }] } }));
    expect(open).toMatchObject({ kind: "item.open", item: { type: "tool", tool: "Task", args: input } });
    const launched = [{ type: "text", text: "Async agent launched successfully.\nagentId: a0000000000000000" }];
    const [close] = translator.translate(line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: launched }] } }));
    expect(close).toMatchObject({ kind: "item.close", status: "completed", item: { type: "tool", result: launched } });
  });

  it("a hand-back of several report lines keeps them all, unindented; text without the frame is kept whole", () => {
    const text = "[Subagent hand-back] … The report follows:\n  line one\n    indented\n  line three\nagentId: a0000000000000000\n<usage>x</usage>";
    expect(subagentReport(text)).toBe("line one\n  indented\nline three");
    expect(subagentReport("plain result")).toBe("plain result");
  });
});
