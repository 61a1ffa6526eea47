import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RECORDED_PATHS } from "../../harness/recording/recorded-paths.js";
import { createPathMap } from "../../harness/replay/sandbox/path-map.js";
import { createReplaySandbox } from "../../harness/replay/sandbox/sandbox.js";

const RECORDED = RECORDED_PATHS.workspace;
const LIVE = "/tmp/pr-Ab12/ws-0";
const toLive = createPathMap([{ from: RECORDED, to: LIVE }]);
const toRecorded = createPathMap([{ from: LIVE, to: RECORDED }]);

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

describe("createPathMap (replay sandbox path mapping)", () => {
  it("rewrites the recorded workspace and paths below it, only on a path boundary", () => {
    expect(toLive.mapText(RECORDED)).toBe(LIVE);
    expect(toLive.mapText(`${RECORDED}/notes.txt`)).toBe(`${LIVE}/notes.txt`);
    expect(toLive.mapText(`${RECORDED}/`)).toBe(`${LIVE}/`);
    expect(toLive.mapText(`${RECORDED}2`)).toBe(`${RECORDED}2`);
    expect(toLive.mapText(`${RECORDED}2/notes.txt`)).toBe(`${RECORDED}2/notes.txt`);
    expect(toLive.mapText(`${RECORDED}.bak/x`)).toBe(`${RECORDED}.bak/x`);
    expect(toLive.mapText(`${RECORDED}-old`)).toBe(`${RECORDED}-old`);
    // Inside longer text: tool output and diff headers name the path mid-string.
    expect(toLive.mapText(`<path>${RECORDED}/notes.txt</path>`)).toBe(`<path>${LIVE}/notes.txt</path>`);
    expect(toLive.mapText(`--- a${RECORDED}/notes.txt\n+++ b${RECORDED}/notes.txt`)).toBe(`--- a${LIVE}/notes.txt\n+++ b${LIVE}/notes.txt`);
    // The redactor's slash-less form is not a path this map names.
    expect(toLive.mapText("tmp/parity-workspace/notes.txt")).toBe("tmp/parity-workspace/notes.txt");
  });

  it("rewrites string values and keys inside nested JSON, keeping every other byte", () => {
    const line = `{"jsonrpc":"2.0","id":9007199254740993,"method":"fs/write_text_file","params":{"sessionId":"s","path":"${RECORDED}/notes.txt","content":"a\\nb","meta":{"paths":["${RECORDED}","${RECORDED}2/x",{"deep":"cd ${RECORDED} && ls"}],"${RECORDED}/k":1.50}}}`;
    const mapped = toLive.mapJsonLine(line);
    // Only the string tokens changed: the big id and 1.50 keep their bytes.
    expect(mapped).toBe(line.replaceAll(`${RECORDED}/`, `${LIVE}/`).replace(`"${RECORDED}"`, `"${LIVE}"`).replace(`cd ${RECORDED} `, `cd ${LIVE} `));
    expect(mapped).toContain("9007199254740993");
    expect(mapped).toContain(`"${RECORDED}2/x"`);
    const value = JSON.parse(mapped) as { params: { path: string; meta: { paths: [string, string, { deep: string }] } & Record<string, unknown> } };
    expect(value.params.path).toBe(`${LIVE}/notes.txt`);
    expect(value.params.meta.paths).toEqual([LIVE, `${RECORDED}2/x`, { deep: `cd ${LIVE} && ls` }]);
    expect(value.params.meta[`${LIVE}/k`]).toBe(1.5);
  });

  it("decodes escapes before matching and re-encodes what it rewrote", () => {
    const escaped = `{"path":"\\/tmp\\/parity-workspace\\/a \\"q\\".txt","other":"\\u002ftmp\\u002fparity-workspace"}`;
    const mapped = toLive.mapJsonLine(escaped);
    expect(JSON.parse(mapped)).toEqual({ path: `${LIVE}/a "q".txt`, other: LIVE });
    // A path inside a JSON string nested as text (a tool's raw output) is found too.
    const nested = JSON.stringify({ rawOutput: JSON.stringify({ file: `${RECORDED}/notes.txt` }) });
    expect(JSON.parse(JSON.parse(toLive.mapJsonLine(nested)).rawOutput)).toEqual({ file: `${LIVE}/notes.txt` });
  });

  it("leaves lines that are not JSON or name no mapped path untouched, byte for byte", () => {
    expect(toLive.mapJsonLine(`not json ${RECORDED}`)).toBe(`not json ${RECORDED}`);
    const spaced = `{ "path" : "${RECORDED}2" ,"n": 1.0 }`;
    expect(toLive.mapJsonLine(spaced)).toBe(spaced);
  });

  it("round-trips in both directions, and the inverse never rewrites what it produced", () => {
    const line = JSON.stringify({ a: `${RECORDED}/x`, b: `diff a${RECORDED}/y`, c: `${RECORDED}2`, d: LIVE });
    const there = toLive.mapJsonLine(line);
    expect(JSON.parse(there)).toEqual({ a: `${LIVE}/x`, b: `diff a${LIVE}/y`, c: `${RECORDED}2`, d: LIVE });
    const back = toRecorded.mapJsonLine(there);
    expect(JSON.parse(back)).toEqual({ a: `${RECORDED}/x`, b: `diff a${RECORDED}/y`, c: `${RECORDED}2`, d: RECORDED });
    // Two live workspaces whose names prefix each other map back independently.
    const two = createPathMap([
      { from: "/tmp/pr-1/ws-1", to: RECORDED },
      { from: "/tmp/pr-1/ws-10", to: "/elsewhere" },
    ]);
    expect(two.mapText("/tmp/pr-1/ws-1/a /tmp/pr-1/ws-10/b /tmp/pr-1/ws-11")).toBe(`${RECORDED}/a /elsewhere/b /tmp/pr-1/ws-11`);
  });

  it("refuses a relative or duplicated source", () => {
    expect(() => createPathMap([{ from: "tmp/x", to: "/y" }])).toThrow("not an absolute directory");
    expect(() =>
      createPathMap([
        { from: "/x", to: "/y" },
        { from: "/x/", to: "/z" },
      ]),
    ).toThrow("given twice");
  });
});

describe("createReplaySandbox", () => {
  it("gives each cell a fresh workspace seeded with its own fixture, and maps lines both ways", async () => {
    const base = await mkdtemp(path.join(tmpdir(), "parity-sandbox-test-"));
    temps.push(base);
    const cellsRoot = path.join(base, "cells");
    await mkdir(path.join(cellsRoot, "with-fixture", "workspace", "sub"), { recursive: true });
    await writeFile(path.join(cellsRoot, "with-fixture", "workspace", "notes.txt"), "status: draft\n");
    await writeFile(path.join(cellsRoot, "with-fixture", "workspace", "sub", "a.txt"), "a\n");
    await mkdir(path.join(cellsRoot, "no-fixture"), { recursive: true });
    const run = path.join(base, "run");
    await mkdir(run);

    const sandbox = await createReplaySandbox({ base: run, cells: ["with-fixture", "no-fixture", "../cells"], cellsRoot });
    const [seeded, empty, escaped] = sandbox.workspaces as [string, string, string];
    expect(new Set(sandbox.workspaces).size).toBe(3);
    expect(await readFile(path.join(seeded, "notes.txt"), "utf8")).toBe("status: draft\n");
    expect(await readFile(path.join(seeded, "sub", "a.txt"), "utf8")).toBe("a\n");
    expect(await readdir(empty)).toEqual([]);
    expect(await readdir(escaped)).toEqual([]);
    expect(existsSync(path.join(cellsRoot, "with-fixture", "workspace", "notes.txt"))).toBe(true);

    const write = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "fs/write_text_file", params: { path: `${RECORDED}/notes.txt` } });
    expect(JSON.parse(sandbox.toLive(write, 0)).params.path).toBe(path.join(seeded, "notes.txt"));
    expect(JSON.parse(sandbox.toLive(write, 1)).params.path).toBe(path.join(empty, "notes.txt"));
    const emitted = JSON.stringify({ method: "thread/delta", params: { a: `${seeded}/notes.txt`, b: `--- a${empty}/x`, c: `${seeded}0` } });
    expect(JSON.parse(sandbox.toRecorded(emitted)).params).toEqual({ a: `${RECORDED}/notes.txt`, b: `--- a${RECORDED}/x`, c: `${seeded}0` });
  });
});
