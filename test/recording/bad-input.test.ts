import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_ERROR_EXCERPT_CHARS } from "../../harness/recording/lane-entry.js";
import { validEntries, writeRecording, type FixtureEntry } from "./fixture.js";
import { repoRoot, runCli, type CliResult } from "../helpers/run-cli.js";

const run = promisify(execFile);

const line = (e: object): string => `${JSON.stringify(e)}\n`;

/** One malformed recording: how to break a valid one, and the one error line it must give. */
interface BadCase {
  name: string;
  /** Breaks the recording in `dir` (the bad cell). */
  mutate(dir: string): Promise<void>;
  /** File the error names, relative to the bad cell's directory. */
  file: string;
  /** Line (or `line:column`) the error names, or undefined when the problem is the whole file. */
  line: number | string | undefined;
  problem: RegExp;
}

const entries = validEntries();
const first = (lane: FixtureEntry[]): FixtureEntry => lane[0]!;

const CASES: BadCase[] = [
  {
    name: "a truncated JSON line (a crash mid-write)",
    async mutate(dir) {
      const second = { ...first(entries["bridge→runtime"]), seq: 9, ts: 1009 };
      await appendFile(path.join(dir, "bridge→runtime.ndjson"), line(second).slice(0, 40));
    },
    file: "bridge→runtime.ndjson",
    line: 2,
    problem: /not a JSON lane entry \(truncated or garbled line\)/,
  },
  {
    name: "a dir that does not match its file",
    async mutate(dir) {
      await appendFile(path.join(dir, "runtime→bridge.ndjson"), line({ ...first(entries["runtime→bridge"]), seq: 7, dir: "bridge→runtime" }));
    },
    file: "runtime→bridge.ndjson",
    line: 2,
    problem: /dir "bridge→runtime" but the file is the "runtime→bridge" lane/,
  },
  {
    name: "a non-numeric seq",
    async mutate(dir) {
      await appendFile(path.join(dir, "provider→bridge.ndjson"), line({ ...first(entries["provider→bridge"]), seq: "8" }));
    },
    file: "provider→bridge.ndjson",
    line: 2,
    problem: /invalid lane entry: field `seq`: .*number/,
  },
  {
    name: "a duplicate seq across lanes of one run",
    async mutate(dir) {
      // seq 1 is the runtime→bridge initialize; the bridge→provider lane reuses it.
      await appendFile(path.join(dir, "bridge→provider.ndjson"), line({ ...first(entries["bridge→provider"]), seq: 1 }));
    },
    file: "bridge→provider.ndjson",
    line: 2,
    problem: /duplicate seq 1 in run 1: already used at .*runtime→bridge\.ndjson:1/,
  },
  {
    name: "an unknown lane file name",
    async mutate(dir) {
      await writeFile(path.join(dir, "bridge→runtime.old.ndjson"), line(first(entries["bridge→runtime"])));
    },
    file: "bridge→runtime.old.ndjson",
    line: undefined,
    problem: /unknown lane file name/,
  },
  {
    name: "an empty lane file",
    async mutate(dir) {
      await writeFile(path.join(dir, "provider→bridge.ndjson"), "");
    },
    file: "provider→bridge.ndjson",
    line: undefined,
    problem: /empty lane file/,
  },
  {
    name: "binary garbage",
    async mutate(dir) {
      const garbage = Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x13, 0x80, 0x0a, 0xc3, 0x28]);
      await appendFile(path.join(dir, "bridge→runtime.ndjson"), garbage);
    },
    file: "bridge→runtime.ndjson",
    line: 2,
    problem: /binary data/,
  },
  {
    name: "invalid UTF-8 without NUL bytes",
    async mutate(dir) {
      await appendFile(path.join(dir, "runtime→bridge.ndjson"), Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]));
    },
    file: "runtime→bridge.ndjson",
    line: 2,
    problem: /binary data \(not valid UTF-8\)/,
  },
  {
    name: "a single 10 MB line",
    async mutate(dir) {
      const huge = { ...first(entries["bridge→runtime"]), seq: 11, line: "x".repeat(10 * 1024 * 1024) };
      await appendFile(path.join(dir, "bridge→runtime.ndjson"), line(huge));
    },
    file: "bridge→runtime.ndjson",
    line: 2,
    problem: /line is longer than \d+ bytes/,
  },
  {
    name: "a 1 MB garbage line (under the size limit, quoted only as a short excerpt)",
    async mutate(dir) {
      await appendFile(path.join(dir, "provider→bridge.ndjson"), `${"{".repeat(1024 * 1024)}\n`);
    },
    file: "provider→bridge.ndjson",
    line: 2,
    problem: /not a JSON lane entry .*\(1048576 chars\)$/,
  },
  {
    name: "a blank line between entries",
    async mutate(dir) {
      await appendFile(path.join(dir, "runtime→bridge.ndjson"), `\n${line({ ...first(entries["runtime→bridge"]), seq: 20 })}`);
    },
    file: "runtime→bridge.ndjson",
    line: 2,
    problem: /empty line/,
  },
  {
    name: "a missing manifest",
    async mutate(dir) {
      await rm(path.join(dir, "manifest.json"));
    },
    file: "manifest.json",
    line: undefined,
    problem: /missing manifest\.json/,
  },
  {
    name: "a manifest whose line counts disagree with the lanes",
    async mutate(dir) {
      await appendFile(path.join(dir, "provider→bridge.ndjson"), line({ ...first(entries["provider→bridge"]), seq: 30 }));
    },
    file: "manifest.json",
    line: undefined,
    problem: /lines\["provider→bridge"\] is 1 but provider→bridge\.ndjson has 2 entries/,
  },
  {
    name: "a manifest with an invalid field",
    async mutate(dir) {
      await writeFile(path.join(dir, "manifest.json"), JSON.stringify({ provider: "fixture" }));
    },
    file: "manifest.json",
    // The missing fields' place is their object's: line 1, column 1.
    line: "1:1",
    problem: /invalid manifest: missing fields `cell`, `threadId`/,
  },
];

/** Builds a root with a valid cell `a-good` (selected first) and the broken cell `b-bad`. */
async function setUp(c: BadCase): Promise<{ root: string; out: string; badDir: string; work: string }> {
  const work = await mkdtemp(path.join(tmpdir(), "parity-bad-input-"));
  const root = path.join(work, "recordings");
  await writeRecording(root, "fixture", "a-good");
  const badDir = await writeRecording(root, "fixture", "b-bad");
  await c.mutate(badDir);
  return { root, out: path.join(work, "out"), badDir, work };
}

function expectOneErrorLine(result: CliResult, c: BadCase, badDir: string): void {
  expect(result.code).toBe(2);
  const lines = result.err.split("\n").filter((l) => l.length > 0);
  expect(lines).toHaveLength(1);
  const where = path.join(badDir, c.file) + (c.line === undefined ? "" : `:${c.line}`);
  expect(lines[0]!.startsWith(`parity: ${where}: `)).toBe(true);
  expect(lines[0]!).toMatch(c.problem);
  expect(result.err).not.toMatch(/\n\s+at /);
  // Never echo huge content: the whole line stays short.
  expect(lines[0]!.length).toBeLessThan(path.join(badDir, c.file).length + 300 + MAX_ERROR_EXCERPT_CHARS);
}

describe("bad recordings: one line, exit 2, nothing written", () => {
  it("the valid fixture itself passes (so each failure below is the mutation's)", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "parity-bad-input-"));
    try {
      await writeRecording(path.join(work, "recordings"), "fixture", "a-good");
      const listed = await runCli(["list", "--json"], { cwd: work });
      expect(listed.err).toBe("");
      expect(listed.code).toBe(0);
      const lanes = await runCli(["lanes", "--out", "out"], { cwd: work });
      expect(lanes.err).toBe("");
      expect(lanes.code).toBe(0);
      expect(existsSync(path.join(work, "out", "fixture", "a-good.json"))).toBe(true);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it.each(CASES)("$name", async (c) => {
    const { root, out, badDir, work } = await setUp(c);
    try {
      const lanes = await runCli(["lanes", "--recordings", root, "--out", out], { cwd: work });
      expect(lanes.out).toBe("");
      expectOneErrorLine(lanes, c, badDir);
      // The good cell came first, yet nothing reached --out: all cells are read before any write.
      expect(existsSync(out)).toBe(false);

      expectOneErrorLine(await runCli(["list", "--recordings", root], { cwd: work }), c, badDir);

      // An existing lane file under --out is left exactly as it was, with no temp file beside it.
      const existing = path.join(out, "fixture", "a-good.json");
      await mkdir(path.dirname(existing), { recursive: true });
      await writeFile(existing, "previous oracle\n");
      expectOneErrorLine(await runCli(["lanes", "--recordings", root, "--out", out], { cwd: work }), c, badDir);
      expect(await readFile(existing, "utf8")).toBe("previous oracle\n");
      expect(await readdir(path.dirname(existing))).toEqual(["a-good.json"]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it("--verbose adds the stack trace", async () => {
    const { root, work } = await setUp(CASES[0]!);
    try {
      const { code, err } = await runCli(["list", "--recordings", root, "--verbose"], { cwd: work, verbose: true });
      expect(code).toBe(2);
      expect(err).toMatch(/\n\s+at /);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

// The executable `npm test` built before the suite (its `npm run build`): no compile of its own here,
// which cost a whole `tsc` and rewrote dist/ under the other test files running beside this one.
describe("bad recordings through the real executable", () => {
  const work: string[] = [];
  afterAll(async () => {
    for (const dir of work) await rm(dir, { recursive: true, force: true });
  });

  it.each([CASES.find((c) => c.name.startsWith("a single 10 MB"))!, CASES.find((c) => c.name === "binary garbage")!])(
    "node bin/parity.js lanes: $name",
    async (c) => {
      expect(existsSync(path.join(repoRoot, "dist/harness/cli/main.js"))).toBe(true);
      const { root, out, badDir, work: dir } = await setUp(c);
      work.push(dir);
      const result = await run(process.execPath, [path.join(repoRoot, "bin/parity.js"), "lanes", "--recordings", root, "--out", out], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", INIT_CWD: dir },
      }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
      );
      expect(result.out).toBe("");
      expectOneErrorLine(result, c, badDir);
      expect(existsSync(out)).toBe(false);
      expect(await readdir(path.dirname(out))).not.toContain("out");
    },
    60_000,
  );
});
