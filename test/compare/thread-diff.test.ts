import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffLanes } from "../../harness/compare/lane-diff.js";
import { diffSequences, EXACT_LCS_CELLS } from "../../harness/compare/lcs.js";
import { normalizeThreadLane } from "../../harness/lanes/normalize.js";
import { repoRoot, runCli, sharedRecordings } from "../cli/run-cli.js";

type Event = Record<string, any>;

const ID_FIELDS = ["turnId", "itemId", "id", "parentToolCallId"];

let dir: string;
let lane: Event[];
const laneFile = path.join(repoRoot, "lanes/acp-opencode/turn-tools.json");

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "thread-diff-"));
  lane = JSON.parse(await readFile(laneFile, "utf8")) as Event[];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lane with one reasoning item (started + completed) inserted after turn/input/accepted, re-interned as a bridge would. */
function withReasoningItem(events: readonly Event[]): Event[] {
  const at = events.findIndex((e) => e.type === "turn/input/accepted") + 1;
  const turnId = events[at]!.scope.turnId;
  const frame = { threadId: "", providerThreadId: "", scope: { kind: "turn", turnId } };
  const started = { type: "item/started", ...frame, item: { type: "reasoning", id: "rsn_1", text: "" } };
  const completed = { type: "item/completed", ...frame, item: { type: "reasoning", id: "rsn_1", text: "Reading the file first." } };
  // Normalizing again re-interns every id by first appearance: every later #n shifts by one.
  return normalizeThreadLane([...events.slice(0, at), started, completed, ...events.slice(at)]) as Event[];
}

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

async function writeLane(name: string, events: unknown): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${JSON.stringify(events, null, 2)}\n`);
  return file;
}

describe("parity diff compares threads, not texts", () => {
  it("one inserted reasoning item is two added events, not a renumbering of every later id", async () => {
    const inserted = withReasoningItem(lane);
    // The renumbering is real: most later events changed text.
    const changedText = inserted.slice(6).filter((event, k) => JSON.stringify(event) !== JSON.stringify(lane[k + 4])).length;
    expect(changedText).toBeGreaterThan(20);
    const result = await runCli(["diff", laneFile, await writeLane("inserted.json", inserted), "--json"]);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out);
    const paths = doc.lanes[0].paths as Array<{ op: string; path: string; address?: string }>;
    expect(paths.length).toBeLessThanOrEqual(2);
    expect(paths.map((p) => p.op)).toEqual(["add", "add"]);
    expect(paths.map((p) => p.address)).toEqual(["turn 1 / reasoning 1 / item/started", "turn 1 / reasoning 1 / item/completed"]);
  });

  it("a lane with every object's keys in another order is the same lane", async () => {
    const reordered = reverseKeys(lane);
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(lane));
    const result = await runCli(["diff", laneFile, await writeLane("reordered.json", reordered), "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).lanes[0].status).toBe("same");
  });

  it("a broken id correspondence is one difference naming both ids", () => {
    const changed = structuredClone(lane);
    const at = changed.findIndex((e) => e.type === "item/completed" && e.item.type === "commandExecution");
    const id = changed[at]!.item.id as string;
    changed[at]!.item.id = "#99";
    const { differences } = diffLanes(lane, changed);
    expect(differences).toHaveLength(1);
    expect(differences[0]).toMatchObject({
      op: "replace",
      path: `/${at}/item/id`,
      old: id,
      new: "#99",
      ids: { old: id, new: "#99", oldPairedWith: id },
      address: "turn 1 / commandExecution 1 / item/completed: item.id",
    });
  });

  it("ids renumbered consistently across a whole lane are no difference", () => {
    // Shift every interned id by 100: the same thread, numbered differently.
    const shift = (value: unknown, key?: string): unknown => {
      if (Array.isArray(value)) return value.map((v) => shift(v));
      if (value === null || typeof value !== "object") {
        return key !== undefined && ID_FIELDS.includes(key) && typeof value === "string" ? `#${Number(value.slice(1)) + 100}` : value;
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shift(v, k)]));
    };
    expect(diffLanes(lane, shift(lane) as unknown[]).differences).toEqual([]);
  });
});

describe("the seven shared acp-cursor thread cells without an allowlist", () => {
  it("report only real changes: no id-renumbering entries", async () => {
    // A working directory without allowlists/: no entry applies.
    const result = await runCli(["check", "--recordings", sharedRecordings, "--reporter", "json"], { cwd: dir });
    const report = JSON.parse(result.out) as { cells: Array<{ cell: string; status: string; diffs: Array<{ op: string; path: string }> }> };
    const thread = report.cells.filter((c) => c.status !== "skip");
    expect(thread).toHaveLength(7);
    for (const cell of thread) {
      for (const diff of cell.diffs) {
        const last = diff.path.split("/").pop()!;
        expect(ID_FIELDS, `${cell.cell} ${diff.op} ${diff.path}`).not.toContain(last);
      }
      // The two thread-state events the spec-30 bridge adds, plus the cell's few real changes
      // (turn-tools: Cursor's Edit File opened once as a fileChange, where the reference bridge opened
      // a generic tool and the grammar dropped its second completion: four events and the drop, #37).
      expect(cell.diffs.length, cell.cell).toBeLessThanOrEqual(cell.cell === "turn-tools" ? 12 : 8);
    }
    expect(thread.filter((c) => c.status === "fail").length).toBeGreaterThan(0);
  });
});

describe("diffSequences beyond the exact table", () => {
  it("diffs two long sequences differing near the start in linear space, with a minimal script", () => {
    const length = Math.ceil(Math.sqrt(EXACT_LCS_CELLS)) + 500;
    const old = Array.from({ length }, (_, i) => `e${i % 97}-${i}`);
    const changed = [...old.slice(0, 3), "inserted", ...old.slice(3, 10), ...old.slice(11)];
    const { ops, onlyInOld, onlyInNew } = diffSequences(old, changed);
    expect(onlyInOld).toEqual([10]);
    expect(onlyInNew).toEqual([3]);
    expect(ops).toHaveLength(length + 1);
    for (const op of ops) if (op.kind === "equal") expect(old[op.oldIndex]).toBe(changed[op.newIndex]);
  });
});
