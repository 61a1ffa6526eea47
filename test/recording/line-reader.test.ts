import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError } from "../../harness/errors.js";
import { readLines } from "../../harness/recording/line-reader.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "parity-lines-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(content: string | Buffer, options: Parameters<typeof readLines>[1] = {}): Promise<string[]> {
  const file = path.join(dir, "lane.ndjson");
  await writeFile(file, content);
  const out: string[] = [];
  for await (const { lineNo, text } of readLines(file, options)) out.push(`${lineNo}:${text}`);
  return out;
}

describe("readLines", () => {
  it("splits lines across chunk boundaries, strips \\r, keeps a final unterminated line", async () => {
    const text = "alpha\r\nbravo-bravo\n\nchärlie\ndelta";
    for (const chunkBytes of [1, 2, 3, 7, 64]) {
      expect(await collect(text, { chunkBytes })).toEqual(["1:alpha", "2:bravo-bravo", "3:", "4:chärlie", "5:delta"]);
    }
  });

  it("decodes a multi-byte character split between chunks", async () => {
    expect(await collect("ü€\n", { chunkBytes: 1 })).toEqual(["1:ü€"]);
  });

  it("accepts a line of exactly maxLineBytes and refuses one byte more, naming the line", async () => {
    expect(await collect("abcd\nefgh\n", { maxLineBytes: 4, chunkBytes: 3 })).toEqual(["1:abcd", "2:efgh"]);
    const error = await collect("abcd\nefghi\n", { maxLineBytes: 4, chunkBytes: 3, displayName: "x.ndjson" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/^x\.ndjson:2: line is longer than 4 bytes/);
  });

  it("refuses an over-long final line without a terminator", async () => {
    const error = await collect("ok\n" + "z".repeat(100), { maxLineBytes: 10, chunkBytes: 8 }).catch((e: unknown) => e);
    expect((error as InputError).line).toBe(2);
  });

  it("names a missing file", async () => {
    const missing = path.join(dir, "nope.ndjson");
    const error = await (async () => {
      for await (const _ of readLines(missing)) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`${missing}: file not found`);
  });
});
