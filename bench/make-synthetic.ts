/**
 * Writes synthetic echo recordings for the memory and linearity benches:
 * `node dist/bench/make-synthetic.js <recordings root> <lines> [<lines> …]` records a short
 * real echo cell (two turns of 400 words) under a temporary directory and grows it into
 * `<root>/echo/synthetic-<lines>/` for each size (`replay-synthetic.ts`), printing each
 * directory. `parity check --recordings <root> --cell synthetic-<lines>` then checks it.
 * Exit 2 on bad arguments.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { recordSeed } from "./replay.js";
import { writeSyntheticRecording } from "./replay-synthetic.js";

/** Grows one seed into a synthetic recording per size under `root`; returns their directories. */
export async function makeSyntheticRecordings(root: string, sizes: readonly number[]): Promise<string[]> {
  const seedRoot = await mkdtemp(path.join(tmpdir(), "parity-synthetic-seed-"));
  try {
    const seed = await recordSeed(seedRoot);
    const dirs: string[] = [];
    for (const lines of sizes) dirs.push(await writeSyntheticRecording(seed, root, `synthetic-${lines}`, lines));
    return dirs;
  } finally {
    await rm(seedRoot, { recursive: true, force: true });
  }
}

const isEntry = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isEntry) {
  const [root, ...sizes] = process.argv.slice(2);
  const numbers = sizes.map(Number);
  if (root === undefined || numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) {
    process.stderr.write("usage: make-synthetic.js <recordings root> <lines> [<lines> …]\n");
    process.exitCode = 2;
  } else {
    for (const dir of await makeSyntheticRecordings(path.resolve(root), numbers)) process.stdout.write(`${dir}\n`);
  }
}
