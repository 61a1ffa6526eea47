import { readFile, readdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readOracleEvents, scanOracle } from "../../harness/lanes/oracle-stream.js";
import { oracleEventLines } from "../../harness/report/oracle-lines.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

async function streamed(file: string): Promise<{ events: unknown[]; complete: boolean }> {
  const events: unknown[] = [];
  const it = readOracleEvents(file);
  for (;;) {
    const next = await it.next();
    if (next.done) return { events, complete: next.value };
    events.push(next.value);
  }
}

describe("oracle files read one event at a time", () => {
  it("every committed oracle streams to JSON.parse's events, with oracleEventLines' lines", async () => {
    let oracles = 0;
    for (const provider of await readdir(path.join(repoRoot, "lanes"))) {
      const dir = path.join(repoRoot, "lanes", provider);
      for (const name of (await readdir(dir)).filter((n) => n.endsWith(".json"))) {
        const file = path.join(dir, name);
        const text = await readFile(file, "utf8");
        const whole = JSON.parse(text) as unknown[];
        expect(await streamed(file), file).toEqual({ events: whole, complete: true });
        expect(await scanOracle(file), file).toEqual({ events: whole.length, eventLines: oracleEventLines(text, whole.length) });
        oracles += 1;
      }
    }
    expect(oracles).toBeGreaterThan(60);
  });

  it("streams any JSON array exactly (strings holding brackets, commas and escapes; nesting; no layout); anything else is left to a whole read", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "parity-oracle-stream-"));
    try {
      const write = async (name: string, text: string) => {
        const file = path.join(work, name);
        await writeFile(file, text);
        return file;
      };
      const tricky = [{ a: "],[{\"\\", b: [1, [2, { c: "}" }]] }, "x,y", 3.5e-7, null, [], {}, true];
      const compact = await write("compact.json", JSON.stringify(tricky));
      expect(await streamed(compact)).toEqual({ events: tricky, complete: true });
      expect(await scanOracle(compact)).toEqual({ events: tricky.length, eventLines: undefined });
      const pretty = await write("pretty.json", `${JSON.stringify(tricky, null, 2)}\n`);
      expect(await scanOracle(pretty)).toEqual({ events: tricky.length, eventLines: oracleEventLines(await readFile(pretty, "utf8"), tricky.length) });
      expect(await scanOracle(await write("empty.json", "[]\n"))).toEqual({ events: 0, eventLines: [] });
      for (const bad of ['{"events": []}', "[1,]", "[,1]", "[1", "[] x", "5", '"[1]"', "", "[1 2]", "[{]", "[1}", "]", "[1]]"]) {
        expect(await scanOracle(await write("bad.json", bad)), bad).toBeUndefined();
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
