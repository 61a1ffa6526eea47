/**
 * The native bridges (claude-code, codex, pi) on their committed real recordings, replayed through
 * the compiled bridges (dist/, `npm run build`): what the CLI said reaches the thread lane as it
 * happened (issue 37, build point 5), held against the cell's facts (cells/<cell>/facts…).
 * - A command the CLI asked permission for and the runtime allowed closes `approvalStatus:
 *   "approved"`; a denied one `"denied"`; a command that never asked `null` (nothing invented).
 * - A read's `resultText` is the file's bytes the CLI's messages carry (Claude Code's structured
 *   `tool_use_result.file.content`, not its numbered view; Codex's read command output; pi's read
 *   result), equal to the fact's content.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { factsFileFor } from "../../harness/check/cell-facts.js";
import { readFactsFile } from "../../harness/facts/reader.js";
import { replayRecording } from "../../harness/replay/replay-recording.js";

const REPO_ROOT = path.resolve(__dirname, "../..");

interface LaneItem {
  type: string;
  approvalStatus?: string | null;
  resultText?: string;
}

/** The items of the replayed lane's `item/completed` events, in order. */
async function completedItems(provider: string, cell: string): Promise<LaneItem[]> {
  const result = await replayRecording(path.join(REPO_ROOT, "recordings", provider, cell));
  expect(result.divergences).toEqual([]);
  return (result.lane.events as Array<{ type: string; item?: LaneItem }>).filter((event) => event.type === "item/completed" && event.item !== undefined).map((event) => event.item!);
}

/** The read steps' file contents of `<provider>/<cell>`'s facts, in script order. */
async function readFacts(provider: string, cell: string): Promise<Array<string | null>> {
  const where = factsFileFor(path.join(REPO_ROOT, "cells"), provider, cell);
  const facts = await readFactsFile(where!.file);
  return facts.steps.flatMap((step) => (step.kind === "read" ? [step.content] : []));
}

const commands = (items: LaneItem[]) => items.filter((item) => item.type === "commandExecution");

describe("native bridges on their real recordings: an approval the runtime answered is on the command's item", () => {
  const cases: Array<[string, string, string | null]> = [
    ["claude-code", "approval-allow", "approved"],
    ["claude-code", "steer", "approved"],
    ["codex", "approval-allow", "approved"],
    ["pi", "approval-allow", "approved"],
    ["claude-code", "approval-deny", "denied"],
    ["codex", "approval-deny", "denied"],
    ["pi", "approval-deny", "denied"],
    // The CLI ran these commands without asking: no approval is invented.
    ["claude-code", "turn-tools", null],
    ["codex", "turn-tools", null],
    ["pi", "turn-tools", null],
  ];
  for (const [provider, cell, status] of cases) {
    it(`${provider}/${cell}: the command closes with approvalStatus ${String(status)}`, async () => {
      const items = commands(await completedItems(provider, cell));
      expect(items.length).toBeGreaterThan(0);
      expect(items.map((item) => item.approvalStatus)).toEqual(items.map(() => status));
    });
  }
});

describe("native bridges on their real recordings: a read's resultText is the bytes it returned", () => {
  const cases: Array<[string, string]> = [
    ["claude-code", "turn-tools"],
    ["claude-code", "two-tool-calls"],
    ["codex", "turn-tools"],
    ["codex", "two-tool-calls"],
    ["pi", "turn-tools"],
    ["pi", "two-tool-calls"],
  ];
  for (const [provider, cell] of cases) {
    it(`${provider}/${cell}: each fileRead's resultText is the file's content in the cell's facts`, async () => {
      const items = await completedItems(provider, cell);
      const contents = await readFacts(provider, cell);
      expect(contents.length).toBeGreaterThan(0);
      expect(items.filter((item) => item.type === "fileRead").map((item) => item.resultText)).toEqual(contents);
    });
  }
});
