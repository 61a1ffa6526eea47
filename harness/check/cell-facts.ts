/**
 * Which facts the gate holds each checked lane to (issue 37, build point 2), read once per cell
 * file before any cell is judged, and checked fresh. For `<provider>/<cell>`:
 *
 * `cells/<cell>/facts/<provider>.json` when the provider has a variant
 * (`cells/<cell>/providers/<provider>.json`), else `cells/<cell>/facts.json` (`factsTargetFor`;
 * fixture-agent providers have no variant: `facts.json`).
 *
 * A file that is not there is **expected** (a failure of the cell, status `untrue`) once the cell
 * has any facts (`facts.json` or a `facts/` directory): the facts of a cell are computed for all
 * its variants at once (`parity facts --cell <cell>`), so a missing one is a forgotten refresh.
 * A cell with no facts at all has **none yet**: its lanes are not judged, and the report says so.
 * A recording outside the project, like one without an oracle, is not judged.
 *
 * A facts file whose `source` is not the hash of its cell as it is now is stale: the gate stops
 * before replaying anything, with one line naming the file (exit 2).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { factsFilePath, factsSource, FACTS_FILE, FACTS_VARIANT_DIR } from "../facts/source.js";
import { factsTargetFor, FactsStaleError, refreshCommand } from "../facts/fresh.js";
import type { CellFacts } from "../facts/schema.js";

/** The facts a cell's lane is judged against, or why it is not judged. `file` is absolute. */
export type CellFactsState = { state: "judged"; file: string; facts: CellFacts } | { state: "missing"; file: string } | { state: "none"; why: string };

/** Where the facts of `<provider>/<cell>` are, and whether their absence is a failure (see the module comment). */
export function factsFileFor(cellsRoot: string, provider: string, cell: string): { file: string; expected: boolean } | undefined {
  const target = factsTargetFor(cellsRoot, cell, provider);
  if (target === null) return undefined;
  const dir = path.join(cellsRoot, cell);
  const hasAny = existsSync(path.join(dir, FACTS_FILE)) || existsSync(path.join(dir, FACTS_VARIANT_DIR));
  return { file: factsFilePath(cellsRoot, cell, target.variant), expected: hasAny };
}

/**
 * The facts of each `<provider>/<cell>` of `cells` (key `provider/cell`), each file read and
 * checked fresh once however many providers share it.
 * @throws InputError (exit 2) for a facts file that cannot be read or is stale: one line naming
 *   the file and the command that refreshes it.
 */
export async function loadCellFacts(cellsRoot: string, cells: ReadonlyArray<{ provider: string; cell: string }>): Promise<Map<string, CellFactsState>> {
  const byFile = new Map<string, Promise<CellFacts>>();
  const out = new Map<string, CellFactsState>();
  for (const { provider, cell } of cells) {
    const where = factsFileFor(cellsRoot, provider, cell);
    const key = `${provider}/${cell}`;
    if (where === undefined) {
      out.set(key, { state: "none", why: `no cell definition under ${path.join(cellsRoot, cell)}` });
      continue;
    }
    if (!existsSync(where.file)) {
      out.set(key, where.expected ? { state: "missing", file: where.file } : { state: "none", why: `cell ${cell} has no facts yet (${refreshCommand(cell)})` });
      continue;
    }
    let read = byFile.get(where.file);
    if (read === undefined) {
      read = readFresh(cellsRoot, cell, where.file);
      byFile.set(where.file, read);
    }
    out.set(key, { state: "judged", file: where.file, facts: await read });
  }
  return out;
}

/** One read of a facts file: parsed (reader.ts: one line for a bad file) and its `source` held to the cell as it is now. */
async function readFresh(cellsRoot: string, cell: string, file: string): Promise<CellFacts> {
  // The reader (and the facts' zod schema) loads only when a cell has facts: a check of recordings
  // outside the project (the cursor cells of ../shared) builds no schema for them.
  const { readFactsFile } = await import("../facts/reader.js");
  const facts = await readFactsFile(file);
  if ((await factsSource(cellsRoot, cell, facts.variant)) !== facts.source) {
    throw new FactsStaleError({ cell, variant: facts.variant, file, status: "stale", command: refreshCommand(cell) });
  }
  return facts;
}
