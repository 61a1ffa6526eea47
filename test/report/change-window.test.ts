import { describe, expect, it } from "vitest";
import { compareParity } from "../../harness/compare/parity.js";
import { cellResultFromVerdict } from "../../harness/report/check-report.js";
import { windowPair } from "../../harness/report/change-window.js";
import { renderTextReport } from "../../harness/report/text.js";
import { referenceLane } from "./helpers.js";

/** A real acp-cursor lane whose longest agent message has one word changed near its end. */
async function changedMessage(): Promise<{ run: Parameters<typeof renderTextReport>[0]; before: string; after: string }> {
  const expected = await referenceLane("turn-tools");
  const live = structuredClone(expected);
  const messages = live.filter((e) => e.type === "item/completed" && e.item?.type === "agentMessage" && typeof e.item.text === "string");
  const message = messages.sort((a, b) => b.item.text.length - a.item.text.length)[0]!;
  const text: string = message.item.text;
  expect(text.length).toBeGreaterThan(60);
  const at = text.length - 8;
  message.item.text = `${text.slice(0, at)}ZANZIBAR${text.slice(at)}`;
  const verdict = compareParity({ provider: "acp-cursor", cell: "turn-tools", live: { events: live }, oracle: { events: expected }, recorded: { events: expected }, allowlist: [] });
  return { run: { ms: 1, cells: [cellResultFromVerdict({ verdict, ms: 1, events: live.length })] }, before: text, after: message.item.text };
}

describe("diffs that show the change (issue 27 item 2)", () => {
  it("cuts both strings around their first difference, keeping the change in view", () => {
    const a = `"Echo this sentence back, word by word, and then say done."`;
    const b = `"Echo this sentence back, word by word, and then say finished."`;
    const [old, neu] = windowPair(a, b, 30);
    expect(old.text.length).toBeLessThanOrEqual(30);
    expect(old.text).toMatch(/^….*done/);
    expect(neu.text).toMatch(/^….*finished/);
    expect(neu.text.slice(neu.from, neu.to)).toBe("finished");
    expect(old.text.slice(old.from, old.to)).toBe("done");
    // Short texts are left whole.
    expect(windowPair(`"a"`, `"b"`, 30).map((s) => s.text)).toEqual([`"a"`, `"b"`]);
  });

  it("at 80 columns every changed row of a real lane shows the changed word, the event rows included", async () => {
    const { run } = await changedMessage();
    const text = renderTextReport(run, { color: false, width: 80 });
    const rows = text.split("\n");
    const removed = rows.find((r) => /^ {4}- \d+/.test(r))!;
    const added = rows.find((r) => /^ {4}\+ +\d+/.test(r))!;
    expect(added).toContain("ZANZIBAR");
    expect(added).toMatch(/^ {4}\+ +\d+ {3}\{"type":"item\/completed",…/);
    expect(removed.length).toBeLessThanOrEqual(80);
    expect(added.length).toBeLessThanOrEqual(80);
    const values = rows.find((r) => r.includes("→"))!;
    expect(values).toContain("ZANZIBAR");
    expect(values.length).toBeLessThanOrEqual(80);
  });

  it("highlights the changed part inside the line on colour (inverse), and nowhere without it", async () => {
    const { run } = await changedMessage();
    const coloured = renderTextReport(run, { color: true, width: 100 });
    expect(coloured).toMatch(/\u001b\[7m[^\u001b]*ZANZIBAR[^\u001b]*\u001b\[27m/);
    expect(renderTextReport(run, { color: false, width: 100 })).not.toMatch(/\u001b/);
  });
});
