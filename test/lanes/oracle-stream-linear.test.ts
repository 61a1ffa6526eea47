import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EventLineCounter } from "../../harness/lanes/oracle-stream.js";
import { oracleEventLines } from "../../harness/report/oracle-lines.js";
import { repoRoot } from "../cli/run-cli.js";

// Issue 42 point 5: an echo oracle holding a 30 MB string took 77 s to check: the streamed
// oracle's event-line counter re-split its current line from the start on every 64 KiB chunk,
// so one long line cost its length squared over the chunk size. The counter now looks at each
// character once; its work counter (characters examined) is held linear here, without a clock.

/** Feeds `text` in chunks of `size` characters, as the file stream does. */
function counted(text: string, size: number, events: number): { lines: number[] | undefined; work: number } {
  const counter = new EventLineCounter();
  for (let at = 0; at < text.length; at += size) counter.feed(text.slice(at, at + size));
  return { lines: counter.result(events), work: counter.work };
}

/** An oracle as `serializeThreadLane` lays it out, with one event holding a string of `n` characters. */
function oracleWith(n: number): { text: string; events: number } {
  const events = [{ type: "turn/started" }, { type: "item/agentMessage/delta", delta: "x".repeat(n) }, { type: "turn/completed" }];
  return { text: `[\n${events.map((e) => `  ${JSON.stringify(e)}`).join(",\n")}\n]\n`, events: events.length };
}

describe("the oracle's event-line counter is linear in the file (issue 42 point 5)", () => {
  it("doubling a one-line string doubles the work, whatever the chunk size", () => {
    for (const chunk of [64 * 1024, 4096]) {
      const small = oracleWith(2_000_000);
      const large = oracleWith(4_000_000);
      const a = counted(small.text, chunk, small.events);
      const b = counted(large.text, chunk, large.events);
      expect(a.lines).toEqual([2, 3, 4]);
      expect(b.lines).toEqual([2, 3, 4]);
      // Each character once: the work is the text's length, so twice the text is twice the work.
      expect(a.work).toBe(small.text.length);
      expect(b.work).toBe(large.text.length);
    }
  });

  it("gives the lines oracleEventLines gives, on every committed oracle fed in small chunks", () => {
    const files = readdirSync(path.join(repoRoot, "lanes"), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const text = readFileSync(path.join(repoRoot, "lanes", file), "utf8");
      const events = (JSON.parse(text) as unknown[]).length;
      for (const size of [1, 2, 7, 4096]) expect(counted(text, size, events).lines, `${file} in chunks of ${size}`).toEqual(oracleEventLines(text, events));
    }
  });

  it("a first line longer than '[' or '[]' is no serialized oracle, even split across chunks", () => {
    expect(counted('[{"type":"a"}]', 1, 1).lines).toBeUndefined();
    expect(counted("[]", 1, 0).lines).toEqual([]);
  });
});
