import { describe, expect, it } from "vitest";
import { compareParity } from "../../harness/compare/parity.js";
import { cellResultFromVerdict } from "../../harness/report/check-report.js";
import { renderTextReport } from "../../harness/report/text.js";
import { referenceLane } from "./helpers.js";

async function failingCell() {
  const expected = await referenceLane("turn-tools");
  const live = structuredClone(expected);
  const at = live.findIndex((e) => e.type === "item/completed" && e.item?.type === "commandExecution");
  live[at]!.item.exitCode = 7;
  live[at]!.item.aggregatedOutput = `${"a long output line ".repeat(20)}`;
  const verdict = compareParity({
    provider: "acp-cursor",
    cell: "turn-tools",
    live: { events: live },
    oracle: { events: expected },
    recorded: { events: expected },
    allowlist: [],
  });
  return cellResultFromVerdict({ verdict, ms: 1, events: live.length });
}

describe("check text output", () => {
  it("shows a difference once when the oracle and the recording agree, and counts it once", async () => {
    const cell = await failingCell();
    expect(cell.diffs).toHaveLength(4);
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false });
    expect(text).toContain("against oracle and recording (they agree): 2 differences");
    expect(text).not.toContain("against recording:");
    expect(text.match(/item\.exitCode {2}0 → 7/g)).toHaveLength(1);
    expect(text).toMatch(/^FAIL acp-cursor\/turn-tools .*; 2 differences {2}/m);
    expect(text).toContain("  FAIL acp-cursor/turn-tools: 2 differences");
  });

  it("fits every row but the pasteable commands into the given width", async () => {
    const cell = await failingCell();
    for (const width of [80, 120]) {
      const rows = renderTextReport({ ms: 1, cells: [cell] }, { color: false, width }).split("\n");
      const long = rows.filter((row) => row.length > width && !/parity (allow|rerecord) /.test(row));
      expect(long, `width ${width}`).toEqual([]);
    }
  });
});
