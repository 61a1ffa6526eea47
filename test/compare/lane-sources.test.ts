import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffLaneSets } from "../../harness/compare/lane-set-diff.js";
import { readLaneEvents, readLaneSource, type LaneSource, type LaneText } from "../../harness/compare/lane-sources.js";
import { InputError } from "../../harness/errors.js";
import { repoRoot } from "../cli/run-cli.js";

// `parity diff` reads each lane once, streamed from its file when it is one JSON array, and the
// lanes of a set one at a time (issue 25: two 200k-event lanes within 300 MiB).

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lane-sources-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A lane of a file source whose `text()` must not be called: a streamed lane never reads its text whole. */
async function fileLane(file: string): Promise<LaneText> {
  const [lane] = (await readLaneSource(file, dir)).lanes;
  return { ...lane!, text: () => Promise.reject(new Error(`text() read ${file} whole`)) };
}

describe("readLaneEvents", () => {
  it("streams a real oracle file event by event: exactly what JSON.parse of the whole file gives, and never its whole text", async () => {
    for (const oracle of ["lanes/acp-opencode/turn-tools.json", "lanes/echo/turn.json", "lanes/claude-code/approval-deny.json"]) {
      const file = path.join(repoRoot, oracle);
      expect(await readLaneEvents(await fileLane(file)), oracle).toEqual(JSON.parse(await readFile(file, "utf8")));
    }
  });

  it("a compact one-line lane with strings holding brackets, commas and escaped quotes parses the same as the whole file", async () => {
    const events = [{ type: "a", text: '],[{"x":1}, \\"' }, [1, { b: "}" }], "str,ing", 3, null, { nested: { deep: ["[", "]"] } }];
    const file = path.join(dir, "compact.json");
    await writeFile(file, JSON.stringify(events));
    expect(await readLaneEvents(await fileLane(file))).toEqual(events);
  });

  it("the {events} object form and a lane without a file are read whole", async () => {
    const file = path.join(dir, "object.json");
    await writeFile(file, JSON.stringify({ events: [{ type: "x" }], unhandled: 0 }));
    const [lane] = (await readLaneSource(file, dir)).lanes;
    expect(await readLaneEvents(lane!)).toEqual([{ type: "x" }]);
    expect(await readLaneEvents({ key: "p/c", label: "main:lanes/p/c.json", text: async () => '[{"type":"y"}]' })).toEqual([{ type: "y" }]);
  });

  it("invalid JSON is the same one-line error naming file and line as a whole-file parse, after some events streamed", async () => {
    const file = path.join(dir, "broken.json");
    await writeFile(file, '[\n  {"type": "a"},\n  {"type": "b",}\n]\n');
    const [lane] = (await readLaneSource(file, dir)).lanes;
    const error = await readLaneEvents(lane!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe(file);
    expect((error as InputError).line).toBe(3);
    expect((error as InputError).problem).toMatch(/^not valid JSON/);
  });
});

describe("diffLaneSets", () => {
  it("reads the lanes one at a time, in key order, the old side of a pair before the new", async () => {
    const reads: string[] = [];
    const lane = (side: string, key: string, events: unknown[]): LaneText => ({
      key,
      label: `${side}:lanes/${key}.json`,
      text: async () => {
        reads.push(`${side} ${key}`);
        return JSON.stringify(events);
      },
    });
    const a: LaneSource = { kind: "git", spec: "a", lanes: [lane("a", "p/one", [{ type: "x" }]), lane("a", "p/two", [{ type: "y" }])] };
    const b: LaneSource = { kind: "git", spec: "b", lanes: [lane("b", "p/two", [{ type: "z" }]), lane("b", "p/one", [{ type: "x" }])] };
    const diff = await diffLaneSets(a, b);
    expect(reads).toEqual(["a p/one", "b p/one", "a p/two", "b p/two"]);
    expect(diff.counts).toEqual({ same: 1, changed: 1, added: 0, removed: 0 });
  });
});

describe("alternate paths' oracles in a lane set", () => {
  it("a lanes directory and a git ref both list lanes/<p>/<cell>/alternates/<k>.json, keyed as check names it; other files under a cell's folder are not lanes", async () => {
    const lanes = path.join(dir, "alt-set", "lanes");
    await mkdir(path.join(lanes, "acp-gemini", "resume", "alternates"), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "acp-gemini", "resume.json"), path.join(lanes, "acp-gemini", "resume.json"));
    await cp(path.join(repoRoot, "lanes", "acp-gemini", "resume", "alternates", "2.json"), path.join(lanes, "acp-gemini", "resume", "alternates", "2.json"));
    await writeFile(path.join(lanes, "acp-gemini", "resume", "alternates", "notes.json"), "[]");
    const keys = (await readLaneSource(lanes, dir)).lanes.map((l) => l.key);
    expect(keys).toEqual(["acp-gemini/resume", "acp-gemini/resume/alternates/2"]);

    // A changed alternate is a changed lane of the set (it showed nothing in parity diff before).
    const after = path.join(dir, "alt-set-after", "lanes");
    await cp(lanes, after, { recursive: true });
    const alt = path.join(after, "acp-gemini", "resume", "alternates", "2.json");
    await writeFile(alt, JSON.stringify((JSON.parse(await readFile(alt, "utf8")) as unknown[]).slice(0, -1)));
    const set = await diffLaneSets(await readLaneSource(lanes, dir), await readLaneSource(after, dir));
    expect(set.entries.map((e) => [e.key, e.status])).toEqual([
      ["acp-gemini/resume", "same"],
      ["acp-gemini/resume/alternates/2", "changed"],
    ]);
    const head = (await readLaneSource("HEAD", repoRoot)).lanes.map((l) => l.key);
    expect(head).toContain("acp-gemini/resume/alternates/2");
  });
});
