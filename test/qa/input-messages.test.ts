import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

// Issue 42 point 4: each weak message of the hostile-tester run is one line naming the file, the
// line and column, and the problem in plain words (no zod wording, no raw file text), exit 2.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-input-messages-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
async function project(): Promise<string> {
  n += 1;
  const dir = path.join(work, `p${n}`);
  await cp(path.join(repoRoot, "recordings", "echo"), path.join(dir, "recordings", "echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes", "echo"), path.join(dir, "lanes", "echo"), { recursive: true });
  return dir;
}

const check = (cwd: string, ...extra: string[]) => runCli(["check", "--provider", "echo", "--cell", "turn", ...extra], { cwd });

describe("input files: file, line and column, plain words (issue 42 point 4)", () => {
  it("a truncated manifest.json: exit 2, where the text ends and what was left open, not its bytes", async () => {
    const cwd = await project();
    const manifest = path.join(cwd, "recordings", "echo", "turn", "manifest.json");
    await writeFile(manifest, (await readFile(manifest, "utf8")).slice(0, 50));
    const r = await check(cwd);
    expect(r.code).toBe(2);
    expect(r.out.split("\n")[0]).toBe(`ERROR echo/turn  ${manifest}:4:9: manifest is not valid JSON: the file ends inside the string opened at line 4, column 3`);
  });

  it("an unknown key and a bad value in manifest.json are both named, in plain words, at the first one's place", async () => {
    const cwd = await project();
    const manifest = path.join(cwd, "recordings", "echo", "turn", "manifest.json");
    const value = JSON.parse(await readFile(manifest, "utf8")) as Record<string, unknown>;
    await writeFile(manifest, JSON.stringify({ ...value, scope: "threads", cliversion: "x" }, null, 2));
    const r = await check(cwd);
    expect(r.code).toBe(2);
    expect(r.out.split("\n")[0]).toBe(`ERROR echo/turn  ${manifest}:5:3: invalid manifest: field \`scope\`: expected one of "thread", "process", found "threads"; unknown key "cliversion"`);
    expect(r.out).not.toMatch(/Invalid input|Unrecognized key/);
  });

  it("an allowlist with an unclosed [ names where it was opened; exit 2", async () => {
    const cwd = await project();
    await mkdir(path.join(cwd, "allowlists"));
    const file = path.join(cwd, "allowlists", "echo.json");
    await writeFile(file, '[\n  {"provider": "echo", "cell": "turn", "layer": "events", "path": "/*/delta", "pr": "#1", "reason": "r"}\n');
    const r = await check(cwd);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${file}:3:1: not valid JSON: the file ends before the "[" opened at line 1, column 1 is closed\n`);
  });

  it("an allowlist saved with a UTF-8 byte order mark is read (as Node's require reads JSON); its entries apply", async () => {
    const cwd = await project();
    await mkdir(path.join(cwd, "allowlists"));
    const entry = { provider: "echo", cell: "turn", layer: "events", path: "/*/delta", pr: "#1", reason: "r" };
    await writeFile(path.join(cwd, "allowlists", "echo.json"), `\ufeff${JSON.stringify([entry])}`);
    const r = await check(cwd, "--explain");
    // Read and applied: the entry masks no difference, so it is stale (exit 1), not a parse error.
    expect(r.code).toBe(1);
    expect(r.out).toContain("events /*/delta (#1)");
  });

  it("an unknown key in an allowlist entry is named in plain words at its line and column", async () => {
    const cwd = await project();
    await mkdir(path.join(cwd, "allowlists"));
    const file = path.join(cwd, "allowlists", "echo.json");
    await writeFile(file, '[\n  {"provider": "echo", "cell": "turn", "layer": "events", "path": "/*/delta", "pr": "#1", "reason": "r",\n   "reson": "typo"}\n]\n');
    const r = await check(cwd);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${file}:3:4: entry 0: unknown key "reson"\n`);
  });

  it("an oracle nested 5,000 deep: an input error naming the file and place (exit 2), not 'Maximum call stack size exceeded'", async () => {
    const cwd = await project();
    const oracle = path.join(cwd, "lanes", "echo", "turn.json");
    const events = JSON.parse(await readFile(oracle, "utf8")) as Array<Record<string, unknown>>;
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const text = JSON.stringify(events).replace('"delta":"Echo "', `"delta":${deep}`);
    expect(text).toContain(deep);
    await writeFile(oracle, text);
    const r = await check(cwd);
    expect(r.code).toBe(2);
    expect(r.err).not.toContain("internal error");
    const at = text.indexOf(deep) + 510;
    expect(r.out.split("\n")[0]).toBe(`ERROR echo/turn  ${oracle}:1:${at + 1}: oracle is nested deeper than 512 levels of arrays and objects (parity reads at most 512)`);
  });
});

describe("cells (issue 42 point 4)", () => {
  /** A copy of cells/ with `cells/<cell>/cell.json` replaced by `text`. */
  async function cellsWith(cell: string, text: string): Promise<string> {
    n += 1;
    const root = path.join(work, `cells-${n}`);
    await cp(path.join(repoRoot, "cells"), root, { recursive: true });
    await writeFile(path.join(root, cell, "cell.json"), text);
    return root;
  }
  /** `parity record` with its progress stream captured (a line per update, not a terminal). */
  async function record(argv: string[]): Promise<{ code: number; err: string; progress: string }> {
    let progress = "";
    const r = await runCli(["record", "--provider", "echo", "--out", path.join(work, `out-${n}`), ...argv], {
      progress: { isTTY: false, write: (t: string) => void (progress += t) },
    });
    return { code: r.code, err: r.err, progress };
  }

  it("record with an unknown cell prints its error and no progress before it", async () => {
    const r = await record(["--cell", "no-such-cell"]);
    expect(r.code).toBe(2);
    expect(r.progress).toBe("");
    expect(r.err).toMatch(/^parity: unknown cell "no-such-cell" \(no \S+cell\.json\); known: /);
  });

  it("an invalid cell.json: not JSON, at its line and column; no progress", async () => {
    const cells = await cellsWith("zero-work", '{\n  "description": "x",\n  "steps": [\n');
    const r = await record(["--cell", "zero-work", "--cells", cells]);
    expect(r.code).toBe(2);
    expect(r.progress).toBe("");
    expect(r.err).toBe(`parity: ${path.join(cells, "zero-work", "cell.json")}:4:1: cell definition is not valid JSON: the file ends before the "[" opened at line 3, column 12 is closed\n`);
  });

  it("an unknown key in cell.json is named with the missing one, no zod wording", async () => {
    const definition = JSON.parse(await readFile(path.join(repoRoot, "cells", "zero-work", "cell.json"), "utf8")) as Record<string, unknown>;
    const { steps, ...rest } = definition;
    const cells = await cellsWith("zero-work", JSON.stringify({ ...rest, stepz: steps }, null, 2));
    const r = await record(["--cell", "zero-work", "--cells", cells]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: \S+cell\.json:\d+:3: invalid cell: missing field `steps`; unknown key "stepz"\n$/);
    expect(r.err).not.toMatch(/Invalid input|Unrecognized key/);
  });
});
