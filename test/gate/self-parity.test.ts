/**
 * Self-parity (docs/design/00-product.md flows 2–3): the gate must
 * notice when one translation rule of the bridge changes. The fixture module
 * `fixtures/exit-code-bridge.mjs` is the compiled ACP bridge with one rule altered (an
 * `item.close` delta's `exitCode` comes out one higher). Replayed through the gate on a
 * committed cell it must fail with exit 1, name the cell, and name the JSON pointer of
 * every changed field, and nothing else; the unmodified bridge must pass the same cell, so
 * the test fails both ways. Needs a fresh `dist/` (`npx tsc -p tsconfig.build.json`).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runGate } from "./gate-run.js";

const PROVIDER = "acp-omp-fixture";
const CELL = "turn-tools";
const acpBridge = path.join(repoRoot, "dist/stack/acp/bridge.js");
const exitCodeBridge = path.join(repoRoot, "test/gate/fixtures/exit-code-bridge.mjs");

/**
 * The JSON pointers the changed rule must show up at: every completed `commandExecution`
 * event of the committed oracle that carries a numeric exit code. Read from the oracle, so
 * the expectation follows the oracle when it is legitimately refreshed.
 */
async function exitCodePaths(): Promise<string[]> {
  const value = JSON.parse(await readFile(path.join(repoRoot, "lanes", PROVIDER, `${CELL}.json`), "utf8")) as unknown;
  const events = (Array.isArray(value) ? value : (value as { events: unknown[] }).events) as Array<{ item?: { type?: string; exitCode?: unknown } }>;
  const paths: string[] = [];
  events.forEach((event, index) => {
    if (event.item?.type === "commandExecution" && typeof event.item.exitCode === "number") paths.push(`/${index}/item/exitCode`);
  });
  return paths;
}

describe("self-parity: the gate catches one changed translation rule", () => {
  it(`the unmodified ACP bridge passes ${PROVIDER}/${CELL} (exit 0, no difference)`, async () => {
    const gate = await runGate({ provider: PROVIDER, cell: CELL, modulePath: acpBridge });
    expect(gate.report.cells).toHaveLength(1);
    const [cell] = gate.report.cells;
    expect(cell).toMatchObject({ provider: PROVIDER, cell: CELL, status: "pass", diffs: [], divergences: [] });
    expect(gate.code).toBe(0);
  });

  it(`the bridge with a shifted exitCode fails ${PROVIDER}/${CELL} with exit 1, naming the cell and each changed JSON path`, async () => {
    const paths = await exitCodePaths();
    // The cell must exercise the rule, or this test could not fail.
    expect(paths.length).toBeGreaterThan(0);

    const gate = await runGate({ provider: PROVIDER, cell: CELL, modulePath: exitCodeBridge });
    expect(gate.code).toBe(1);
    expect(gate.report).toMatchObject({ passed: 0, failed: 1, skipped: 0 });
    const [cell] = gate.report.cells;
    expect(cell).toMatchObject({ provider: PROVIDER, cell: CELL, status: "fail", divergences: [] });
    // Exactly the changed fields, held against both the oracle and the recording's own lane:
    // the replay still meets every recorded expectation, only the values differ.
    const expected = (["oracle", "recording"] as const).flatMap((against) => paths.map((p) => ({ against, op: "replace", path: p })));
    const byKey = (d: { against: string; path: string }) => `${d.against} ${d.path}`;
    const core = cell!.diffs.map((d) => ({ against: d.against, op: d.op, path: d.path }));
    expect(core.sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(expected.sort((a, b) => byKey(a).localeCompare(byKey(b))));
    // Each names the command item by its stable address, with both values.
    for (const d of cell!.diffs)
      expect(d).toMatchObject({ address: expect.stringMatching(/commandExecution \d+ \/ item\/completed: item\.exitCode$/), old: expect.anything(), new: expect.anything() });

    // What a person reads: the text reporter names the failing cell and each path, once (the
    // oracle and the recording agree).
    expect(gate.text).toContain(`FAIL ${PROVIDER}/${CELL}`);
    expect(gate.text).toContain("against oracle and recording (they agree)");
    for (const p of paths) expect(gate.text.match(new RegExp(`replace .*\\(${p.replace(/\//g, "\\/")}\\)`, "g"))).toHaveLength(1);
  });
});
