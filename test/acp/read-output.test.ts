import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { readOutputText } from "../../stack/acp/translate/output.js";
import type { AcpToolCallEvent } from "../../stack/acp/dialects/types.js";
import { repoRoot } from "../helpers/run-cli.js";

// Issue 37: the bytes a read returned reached no lane — the grammar's fileRead item had no field
// for them (the close's resultText was dropped by the assembler), and where the ACP bridge did keep
// a read's output it rendered codex-acp's and copilot's records as JSON. Now the fileRead item
// carries resultText, and a read's output is the file's bytes as the agent sent them.
const NOTES = "title: parity notes\nstatus: draft\nowner: nobody\n";

async function fileReads(provider: string): Promise<Array<{ resultText?: string }>> {
  const lane = JSON.parse(await readFile(path.join(repoRoot, "lanes", provider, "turn-tools.json"), "utf8")) as Array<{ type: string; item?: { type: string; resultText?: string } }>;
  return lane.filter((e) => e.type === "item/completed" && e.item?.type === "fileRead").map((e) => e.item!);
}

describe("a read's bytes reach the thread lane", () => {
  test.each(["acp-codex", "acp-copilot"])("%s turn-tools: the fileRead item carries the file exactly", async (provider) => {
    const reads = await fileReads(provider);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.resultText).toBe(NOTES);
  });

  test("acp-opencode turn-tools: the text opencode sent (it drops the file's last newline itself)", async () => {
    expect((await fileReads("acp-opencode"))[0]!.resultText).toBe(NOTES.slice(0, -1));
  });

  test("claude-code turn-tools: the file's bytes from Claude Code's structured result, not the numbered view it shows the model", async () => {
    const reads = await fileReads("claude-code");
    expect(reads[0]!.resultText).toBe(NOTES);
  });

  test("readOutputText takes the bytes out of the agent's record, never its JSON", () => {
    const event = (rawOutput: unknown) => ({ sessionUpdate: "tool_call_update", toolCallId: "t", rawOutput }) as unknown as AcpToolCallEvent;
    expect(readOutputText(event({ content: NOTES, detailedContent: "diff --git …" }))).toBe(NOTES);
    expect(readOutputText(event({ call_id: "c", stdout: NOTES, formatted_output: NOTES, exit_code: 0 }))).toBe(NOTES);
    expect(readOutputText(event({ other: 1 }))).toBe('{"other":1}');
  });
});
