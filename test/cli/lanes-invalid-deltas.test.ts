import { describe, expect, it } from "vitest";
import { runCli, sharedRecordings } from "./run-cli.js";

// New-user trial: `lanes --recorded` on the real cursor recordings showed 9–79 "invalid deltas"
// per cell with no explanation. Those recorded lanes come from an older bridge (grammar v2).
describe("parity lanes: invalid deltas are explained once per run", () => {
  it("--recorded on the real recordings: counts per cell, then exactly one note naming v2 and the .current lanes", async () => {
    const result = await runCli(["lanes", "--recordings", sharedRecordings, "--recorded"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    const lines = result.out.split("\n");
    const turnTools = lines.find((l) => /^acp-cursor\s+turn-tools\s/.test(l))!;
    expect(Number(turnTools.trim().split(/\s+/).at(-1))).toBeGreaterThan(0);
    const notes = lines.filter((l) => l.startsWith("invalid deltas:"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain("grammar v2 (message.delta/message.close, spec 20 §4)");
    expect(notes[0]).toContain("bridge→runtime.current.ndjson");
    expect(notes[0]).toContain("v3");
    expect(result.out.trimEnd().split("\n").at(-1)).toMatch(/^\d+ cells$/);
  });

  it("--json keeps the counts and adds no note", async () => {
    const result = await runCli(["lanes", "--recordings", sharedRecordings, "--recorded", "--json"]);
    expect(result.code).toBe(0);
    const cells = JSON.parse(result.out) as Array<{ cell: string; invalidDeltas: number }>;
    expect(cells.find((c) => c.cell === "turn-tools")!.invalidDeltas).toBeGreaterThan(0);
    expect(result.out).not.toContain("invalid deltas:");
  });

  it("the current lanes have none, and no note is printed", async () => {
    const result = await runCli(["lanes", "--recordings", sharedRecordings]);
    expect(result.code).toBe(0);
    const rows = result.out.split("\n").filter((l) => l.startsWith("acp-cursor "));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.trim().split(/\s+/).at(-1)).toBe("0");
    expect(result.out).not.toContain("invalid deltas:");
  });
});
