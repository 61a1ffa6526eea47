/**
 * Writing facts files (`parity facts`, and `parity record` for the cell it records): each
 * target's facts computed (compute.ts), formatted (format.ts) and written atomically when the
 * text differs from the file's (recording/atomic-write.ts); nothing partial is ever written.
 */
import { readFile } from "node:fs/promises";
import type { Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import type { NetworkIsolation } from "../record/network.js";
import { computeCellFacts } from "./compute.js";
import { formatFacts } from "./format.js";
import type { FactsTarget } from "./fresh.js";
import { factsFilePath } from "./source.js";

/** What refreshing one facts file did: `written` (new or changed text) or `unchanged`. */
export interface FactsRefresh extends FactsTarget {
  file: string;
  status: "written" | "unchanged";
  /** Steps (tool calls) in the facts. */
  steps: number;
}

/** What {@link refreshFacts} needs besides the targets. */
export interface RefreshFactsOptions {
  cellsRoot: string;
  isolation: NetworkIsolation;
  tempParent?: string;
  timeoutMs?: number;
  scheduler?: Scheduler;
  /** Called with each file once it is written (so an interrupted run can list what it wrote). */
  wrote?: (file: string) => void;
}

/**
 * Computes the facts of each target, in order, and writes each file whose text changed.
 * @throws what {@link computeCellFacts} throws (nothing of that target is written; earlier
 *   targets' files stay written, each complete); FileWriteError / IoError from the write
 */
export async function refreshFacts(targets: readonly FactsTarget[], options: RefreshFactsOptions): Promise<FactsRefresh[]> {
  const out: FactsRefresh[] = [];
  for (const target of targets) {
    const facts = await computeCellFacts({
      cellsRoot: options.cellsRoot,
      cell: target.cell,
      variant: target.variant,
      isolation: options.isolation,
      ...(options.tempParent !== undefined ? { tempParent: options.tempParent } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    });
    const file = factsFilePath(options.cellsRoot, target.cell, target.variant);
    const text = formatFacts(facts);
    const old = await readFile(file, "utf8").catch(() => null);
    if (old === text) {
      out.push({ ...target, file, status: "unchanged", steps: facts.steps.length });
      continue;
    }
    await writeFileAtomic(file, text);
    options.wrote?.(file);
    out.push({ ...target, file, status: "written", steps: facts.steps.length });
  }
  return out;
}
