/**
 * The content hash that names a cell's workspace fixture in a recording's manifest
 * (`workspace`): SHA-256 over every file below the fixture, in sorted relative-path order,
 * each as `<path>\0<bytes>\0` (directories only through their files). Two fixtures with the same
 * files and bytes have the same hash wherever they live.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

async function filesBelow(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesBelow(dir, child)));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

/** `sha256:<hex>` of the fixture directory `dir` (see the module doc). */
export async function fixtureHash(dir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const rel of (await filesBelow(dir)).sort()) {
    hash.update(`${rel}\0`);
    hash.update(await readFile(path.join(dir, rel)));
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}
