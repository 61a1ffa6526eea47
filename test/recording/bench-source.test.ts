import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadDeltaCorpus, replicateDeltaLines } from "../../bench/delta-source.js";
import { parseThreadDeltaParams } from "../../stack/protocol/thread-delta.js";

// The benchmark's input: the real acp-cursor current bridge lanes, read by path.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cursorRoot = path.resolve(repoRoot, "../shared/recordings/acp-cursor");

/** thread/delta lines and their deltas in every current lane, counted without the code under test. */
async function countDeltaLines(): Promise<{ lines: number; deltas: number }> {
  let lines = 0;
  let deltas = 0;
  for (const cell of await readdir(cursorRoot)) {
    const text = await readFile(path.join(cursorRoot, cell, "bridge→runtime.current.ndjson"), "utf8").catch(() => "");
    for (const raw of text.split("\n").filter(Boolean)) {
      const message = JSON.parse((JSON.parse(raw) as { line: string }).line) as { method?: string; params?: { deltas?: unknown[] } };
      if (message.method !== "thread/delta") continue;
      lines += 1;
      deltas += message.params?.deltas?.length ?? 0;
    }
  }
  return { lines, deltas };
}

describe("benchmark delta source", () => {
  it("keeps every thread/delta line of the current lanes as a template", async () => {
    const corpus = await loadDeltaCorpus(cursorRoot);
    const counted = await countDeltaLines();
    expect(corpus.templates.length).toBe(counted.lines);
    expect(corpus.deltasPerReplica).toBe(counted.deltas);
    const offsets = corpus.templates.map((t) => t.offsetMs);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it("replicas get their own thread ids, forward-moving time, and the template's deltas", async () => {
    const corpus = await loadDeltaCorpus(cursorRoot);
    const target = corpus.deltasPerReplica * 2 + 1;
    const generated = [...replicateDeltaLines(corpus, target)];
    const total = generated.reduce((n, g) => n + g.deltaCount, 0);
    expect(total).toBeGreaterThanOrEqual(target);
    expect(total - (generated.at(-1)?.deltaCount ?? 0)).toBeLessThan(target);
    const n = corpus.templates.length;
    expect(generated.length).toBe(2 * n + 1);
    for (let i = 0; i < generated.length; i++) {
      const g = generated[i]!;
      const t = corpus.templates[i % n]!;
      const replica = Math.floor(i / n);
      expect(g.threadId).toBe(`${t.threadId}~r${replica}`);
      const params = (JSON.parse(g.line()) as { params: { threadId: string; deltas: unknown[] } }).params;
      expect(params.threadId).toBe(g.threadId);
      // Every occurrence of the thread id is renamed (raw provider events carry it too);
      // without the suffix the line is the template's, and validates to the template's deltas.
      const unsuffixed = JSON.parse(g.line().replaceAll(`${t.threadId}~r${replica}"`, `${t.threadId}"`)) as { params: unknown };
      expect(g.line()).not.toContain(`"${t.threadId}"`);
      expect(parseThreadDeltaParams(unsuffixed.params)).toEqual({ threadId: t.threadId, deltas: t.deltas });
      if (i > 0) expect(g.ts).toBeGreaterThanOrEqual(generated[i - 1]!.ts);
    }
    // Deterministic: a second pass yields the same lines.
    expect([...replicateDeltaLines(corpus, target)].map((g) => g.line())).toEqual(generated.map((g) => g.line()));
  });
});
