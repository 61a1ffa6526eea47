import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { normalizeThreadLane } from "../harness/lanes/normalize.js";

/*
 * `npm run bench:lane-diff` (compiled to dist/bench/lane-diff.js): times `parity diff --json` of
 * two large lanes that differ near the start, as a user waits for it — a whole process under
 * `/usr/bin/time -v`, median wall and CPU of the runs, peak RSS. The lanes are a real lane
 * (lanes/acp-opencode/turn-tools.json) repeated turn after turn with fresh ids, whole turns, to at
 * least `--events`;
 * the new side has one reasoning item inserted in the second turn, which renumbers every later
 * id. Exit 0 when the median wall and the largest RSS meet the targets, 1 when not.
 * Flags: --events N (default 50000), --runs N (default 3), --max-seconds S (10), --max-mib M (300).
 */

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

type Event = Record<string, unknown>;

/** Replaces every interned `#n` id (strings in id fields) by a raw id unique to turn `turn`. */
function rawIds(value: unknown, turn: number, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rawIds(v, turn));
  if (value === null || typeof value !== "object") {
    return typeof value === "string" && key !== undefined && ["turnId", "itemId", "id", "parentToolCallId"].includes(key) ? `t${turn}_${value}` : value;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rawIds(v, turn, k)]));
}

/** The turn of `template` (thread-scoped events dropped) repeated with fresh ids, whole turns, until at least `count` events. */
function bigLane(template: readonly Event[], count: number, insertInTurn?: number): unknown[] {
  const turnEvents = template.filter((e) => (e.scope as { kind?: string } | undefined)?.kind === "turn");
  const raw: unknown[] = [];
  const turns = Math.ceil(count / turnEvents.length);
  for (let turn = 1; turn <= turns; turn++) {
    const events = turnEvents.map((e) => rawIds(e, turn) as Event);
    if (turn === insertInTurn) {
      const scope = events[0]!.scope;
      const reasoning = { type: "reasoning", id: `t${turn}_rsn`, text: "thinking" };
      events.splice(
        2,
        0,
        { type: "item/started", threadId: "", providerThreadId: "", scope, item: { ...reasoning, text: "" } },
        { type: "item/completed", threadId: "", providerThreadId: "", scope, item: reasoning },
      );
    }
    raw.push(...events);
  }
  return normalizeThreadLane(raw);
}

function flag(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got ${argv[at + 1]}`);
  return value;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `lane-diff.js --help`: what it does and its flags. */
export const LANE_DIFF_USAGE = [
  "usage: node dist/bench/lane-diff.js [--events N] [--runs N] [--max-seconds S] [--max-mib M]",
  "Times `parity diff --json` of two lanes of at least N events (default 50000) that differ near the start,",
  "whole process under /usr/bin/time -v, --runs times (3); targets: median wall ≤ S s (10), peak RSS ≤ M MiB (300).",
  "Exit 0 when both targets are met, 1 when one is missed, 2 on a bad flag.",
  "",
].join("\n");

const FLAGS = ["--events", "--runs", "--max-seconds", "--max-mib"];

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(LANE_DIFF_USAGE);
    return 0;
  }
  for (let i = 0; i < argv.length; i += 2) {
    if (!FLAGS.includes(argv[i] ?? "")) throw new Error(`unknown flag ${argv[i]}; known: ${FLAGS.join(", ")}, --help`);
  }
  const events = flag(argv, "events", 50_000);
  const runs = flag(argv, "runs", 3);
  const maxSeconds = flag(argv, "max-seconds", 10);
  const maxMib = flag(argv, "max-mib", 300);
  const template = JSON.parse(await readFile(path.join(root, "lanes/acp-opencode/turn-tools.json"), "utf8")) as Event[];
  const dir = await mkdtemp(path.join(tmpdir(), "lane-diff-bench-"));
  try {
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    const oldLane = bigLane(template, events);
    const newLane = bigLane(template, events, 2);
    await writeFile(a, JSON.stringify(oldLane));
    await writeFile(b, JSON.stringify(newLane));
    const samples: Array<{ wall: number; cpu: number; rssMib: number; paths: number }> = [];
    for (let k = 0; k < runs; k++) {
      const { stdout, stderr } = await run("/usr/bin/time", ["-v", process.execPath, path.join(root, "bin/parity.js"), "diff", a, b, "--json"], {
        maxBuffer: 256 * 1024 * 1024,
      }).catch((error: { stdout: string; stderr: string; code: number }) => {
        if (error.code !== 1) throw error; // exit 1: the lanes differ, as intended
        return error;
      });
      const field = (name: string) => new RegExp(`${name}: ([\\d.:]+)`).exec(stderr)?.[1] ?? "0";
      const [m, s] = field("Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)").split(":").map(Number);
      const doc = JSON.parse(stdout) as { lanes: Array<{ paths: unknown[] }> };
      samples.push({
        wall: (m ?? 0) * 60 + (s ?? 0),
        cpu: Number(field("User time \\(seconds\\)")) + Number(field("System time \\(seconds\\)")),
        rssMib: Number(field("Maximum resident set size \\(kbytes\\)")) / 1024,
        paths: doc.lanes[0]?.paths.length ?? -1,
      });
    }
    const wall = median(samples.map((x) => x.wall));
    const cpu = median(samples.map((x) => x.cpu));
    const rss = Math.max(...samples.map((x) => x.rssMib));
    const ok = wall <= maxSeconds && rss <= maxMib;
    process.stdout.write(
      `lane-diff: ${oldLane.length} vs ${newLane.length} events, ${runs} runs: median wall ${wall.toFixed(2)} s, median cpu ${cpu.toFixed(2)} s, max RSS ${rss.toFixed(1)} MiB, ${samples[0]!.paths} difference(s); targets ≤ ${maxSeconds} s, ≤ ${maxMib} MiB: ${ok ? "met" : "MISSED"}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ bench: "lane-diff", events: { a: oldLane.length, b: newLane.length }, runs, wallSeconds: wall, cpuSeconds: cpu, maxRssMiB: rss, differences: samples[0]!.paths, ok })}\n`,
    );
    return ok ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`lane-diff bench: ${error.message}\n`);
  return 2;
});
