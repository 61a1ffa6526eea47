/**
 * Inputs after the last recorded output are judged, not dropped when stdin closes
 * (docs/design/00-product.md, Determinism): a `turn/start` appended at the end of the runtime lane of a
 * copy of echo/turn is written, and everything the bridge answers to it is part of the
 * replay — its response is an unexpected line at the turn's seq and its turn is in the live
 * lane, so `check` fails on both — instead of the walk closing the bridge's stdin first.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { copyRecording, editLane, repoRoot } from "./helpers.js";

const copies: string[] = [];
afterAll(async () => {
  for (const dir of copies) await rm(path.dirname(path.dirname(dir)), { recursive: true, force: true });
});

describe("a turn/start appended after the last recorded line", () => {
  it("is written and judged: its answer is a divergence at its seq, its turn a lane difference", async () => {
    const dir = await copyRecording(path.join(repoRoot, "recordings", "echo", "turn"));
    copies.push(dir);
    let appended = 0;
    await editLane(dir, "runtime→bridge", (entries) => {
      const last = entries[entries.length - 1]!;
      const message = JSON.parse(last.line) as { id: number; params: Record<string, unknown> };
      appended = 1000;
      const again = { ...message, id: 99, params: { ...message.params, input: [{ type: "text", text: "Once more." }] } };
      return [...entries, { ...last, seq: appended, ts: last.ts + 1, line: JSON.stringify(again) }];
    });

    const r = await runCli(["check", "--recordings", path.dirname(path.dirname(dir)), "--reporter", "json"], { ci: true });
    expect(r.code).toBe(1);
    const cell = (JSON.parse(r.out) as { cells: Array<{ status: string; diffs: Array<{ against: string }>; divergences: Array<{ seq: number; actual: string }> }> }).cells[0]!;
    expect(cell.status).toBe("fail");
    expect(cell.divergences[0]).toMatchObject({ seq: appended, actual: "response (id 99)" });
    expect(cell.diffs.some((d) => d.against === "recording")).toBe(true);
  });
});
