/**
 * `parity check` (the gate, default `recordings/` and `lanes/`) replays every committed
 * fixture-agent cell through the compiled ACP bridge and passes. Needs a fresh `dist/`
 * (`npx tsc -p tsconfig.build.json`).
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { committedFixtureCells, FIXTURE_PROVIDERS } from "./committed.js";

const cells = await committedFixtureCells();

describe("parity check over the committed fixture cells", () => {
  it.each(FIXTURE_PROVIDERS)("%s: every cell replays and matches its oracle and recording", async (provider) => {
    const r = await runCli(["check", "--provider", provider, "--reporter", "json", "--jobs", "2"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { cells: Array<{ provider: string; cell: string; status: string }> };
    const expected = cells
      .filter((c) => c.provider === provider)
      .map((c) => c.cell)
      .sort();
    expect(report.cells.map((c) => c.cell).sort()).toEqual(expected);
    for (const cell of report.cells) expect(cell.status, `${provider}/${cell.cell}`).toBe("pass");
  });
});
