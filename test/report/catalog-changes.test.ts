/**
 * Issue 41 build point 5: a catalog the agent sends in every session (ACP's slash commands,
 * `bb/provider-commands`; modes, models and config options, `bb/session-options`) sits in every
 * lane, so a release that adds one command changed every cell the same way and `parity check`
 * said it once per cell. Real lanes: acp-claude's committed recordings as the next release would
 * make them (one command added to the catalog the agent sends and the bridge passes on,
 * test/helpers/catalog-edit.ts), checked against the committed oracles in a temp project.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogChanges, isCatalogDifference } from "../../harness/report/catalog-changes.js";
import type { CellReport, CheckReport, ReportDiff } from "../../harness/report/check-report.js";
import { addCommandToRecording } from "../helpers/catalog-edit.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

const command = { name: "ultrareview", description: "Review the branch in the cloud", input: null };
const upgraded = ["resume", "turn-tools", "zero-work"];
let cwd = "";

beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), "parity-catalogs-"));
  const copy = async (provider: string, cell: string) => {
    await cp(path.join(repoRoot, "recordings", provider, cell), path.join(cwd, "recordings", provider, cell), { recursive: true });
    for (const ext of [".json", ".version"]) await cp(path.join(repoRoot, "lanes", provider, `${cell}${ext}`), path.join(cwd, "lanes", provider, `${cell}${ext}`));
  };
  for (const cell of [...upgraded, "approval-allow"]) await copy("acp-claude", cell);
  for (const cell of upgraded) await addCommandToRecording(path.join(cwd, "recordings", "acp-claude", cell), command);
  // One cell of another provider with the same change: alone in its provider, it is not grouped.
  await copy("acp-claude-zed", "zero-work");
  await addCommandToRecording(path.join(cwd, "recordings", "acp-claude-zed", "zero-work"), command);
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const where = "thread / thread/extensionState/updated [bb/provider-commands]: payload.commands";

describe("parity check says a catalog change the same in several cells once per provider", () => {
  it("text: one header line with the cells; each cell still fails and points at it instead of repeating the diff", async () => {
    const r = await runCli(["check", "--jobs", "1"], { cwd, ci: true });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `catalog changes: 1 (the same in several cells of a provider, said once here; each of those cells still fails)\n  acp-claude replace ${where}  entries + name=ultrareview  (against oracle; 3 cells: resume, turn-tools, zero-work)\n`,
    );
    for (const cell of upgraded) {
      const block = r.out.slice(r.out.indexOf(`FAIL acp-claude/${cell} `));
      expect(block).toMatch(
        new RegExp(
          `^FAIL acp-claude/${cell} [^\\n]*\\n  against oracle: \\d differences?, a catalog change of acp-claude said once above\\n    catalog ${where.replace(/[[\]/]/g, "\\$&")}  entries \\+ name=ultrareview  \\(3 cells\\)\\n  what to do:`,
        ),
      );
    }
    expect(r.out).toMatch(/PASS acp-claude\/approval-allow /);
    // Alone in its provider: the whole diff, as before.
    const zed = r.out.slice(r.out.indexOf("FAIL acp-claude-zed/zero-work "));
    expect(zed).toContain("  against oracle: 1 difference\n    @@ ");
    expect(zed).toContain(`    replace ${where}  entries + name=ultrareview`);
    expect(r.out).toContain("1 passed, 4 failed, 0 skipped (5 cells)");
  });

  it("JSON: catalogChanges once, with its cells; every cell keeps its own difference", async () => {
    const r = await runCli(["check", "--reporter", "json", "--jobs", "1"], { cwd, ci: true });
    const report = JSON.parse(r.out) as CheckReport;
    expect(report.schemaVersion).toBe(7);
    expect(report.catalogChanges).toEqual([{ provider: "acp-claude", against: "oracle", op: "replace", where, entries: ["+ name=ultrareview"], cells: upgraded }]);
    for (const cell of upgraded) {
      const c = report.cells.find((x) => x.provider === "acp-claude" && x.cell === cell)!;
      expect(c.status).toBe("fail");
      expect(c.diffs.length).toBeGreaterThan(0);
      expect(c.diffs.every((d) => d.against === "oracle" && isCatalogDifference(d))).toBe(true);
    }
  });

  it("JUnit: a catalogChange property of the provider's suite, once; HTML: one list item", async () => {
    const junit = await runCli(["check", "--reporter", "junit", "--jobs", "1"], { cwd, ci: true });
    const properties = junit.out.match(/<property name="catalogChange" value="[^"]*"\/>/g) ?? [];
    expect(properties).toEqual([`<property name="catalogChange" value="replace ${where}  entries + name=ultrareview  (against oracle; 3 cells: resume, turn-tools, zero-work)"/>`]);
    expect(junit.out.slice(junit.out.indexOf('<testsuite name="parity.acp-claude"'), junit.out.indexOf('<testcase classname="parity.acp-claude"'))).toContain("catalogChange");
    expect(junit.out.match(/<failure /g)?.length).toBe(4);
    const html = await runCli(["check", "--reporter", "html", "--jobs", "1"], { cwd, ci: true });
    const list = /<ul class="catalogs" id="catalogs">(.*?)<\/ul>/.exec(html.out)?.[1] ?? "";
    expect(list.match(/<li>/g)?.length).toBe(1);
    expect(list).toContain("entries + name=ultrareview");
  });
});

describe("catalogChanges", () => {
  const diff = (over: Partial<ReportDiff>): ReportDiff => ({ against: "oracle", op: "replace", path: "/1/payload/commands", layer: "events", address: where, ...over });
  const cell = (name: string, diffs: ReportDiff[], status: CellReport["status"] = "fail", provider = "p"): CellReport => ({
    provider,
    cell: name,
    status,
    ms: 0,
    events: 1,
    diffs,
    stale: [],
    divergences: [],
  });
  const added = (old: string[]) => diff({ old: old.map((name) => ({ name })), new: [...old, "new"].map((name) => ({ name })) });

  it("groups by the keyed change even where the lists differ, needs two cells of one provider, and skips what is not a failing catalog difference", () => {
    const changes = catalogChanges([
      cell("a", [added(["x", "y"])]),
      cell("b", [added(["x", "z"])]),
      cell("c", [added(["x", "y"])], "pass"),
      cell("d", [added(["x", "y"])], "fail", "q"),
      cell("e", [diff({ address: "turn 1 / item/completed: text", old: "a", new: "b" }), { ...added(["x", "y"]), layer: "unhandled" }]),
    ]);
    expect(changes).toEqual([{ provider: "p", against: "oracle", op: "replace", where, entries: ["+ name=new"], cells: ["a", "b"] }]);
  });

  it("a catalog value that is not a keyed list is grouped by its values; another value is another change", () => {
    const mode = (to: string) => diff({ address: "thread / thread/extensionState/updated [bb/session-options] #2: payload.currentModeId", old: "default", new: to });
    expect(catalogChanges([cell("a", [mode("plan")]), cell("b", [mode("plan")]), cell("c", [mode("auto")])])).toEqual([
      { provider: "p", against: "oracle", op: "replace", where: "thread / thread/extensionState/updated [bb/session-options]: payload.currentModeId", old: "default", new: "plan", cells: ["a", "b"] },
    ]);
  });
});
