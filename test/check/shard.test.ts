import { describe, expect, it } from "vitest";
import { parseShard, shardCells } from "../../harness/check/shard.js";

describe("--shard", () => {
  it("partitions the cells: every cell in exactly one shard", () => {
    const cells = ["a", "b", "c", "d", "e"];
    const shards = [1, 2, 3].map((index) => shardCells(cells, parseShard(`${index}/3`)));
    expect(shards).toEqual([["a", "d"], ["b", "e"], ["c"]]);
  });

  it("refuses anything but i/n with 1 ≤ i ≤ n", () => {
    for (const bad of ["0/2", "3/2", "1", "a/b", "1/0"]) expect(() => parseShard(bad)).toThrow(/--shard/);
  });
});
