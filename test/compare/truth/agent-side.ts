/** A committed recording's agent-side lines, as the gate hands them to the truth judge. */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import type { AgentSideLine } from "../../../harness/compare/truth/evidence.js";

export const repoRoot = path.resolve(import.meta.dirname, "../../..");

/** `recordings/<provider>/<cell>`'s provider→bridge and bridge→provider lines in `(run, seq)` order. */
export function agentSideOf(dir: string): AgentSideLine[] {
  const out: Array<AgentSideLine & { run: number }> = [];
  for (const d of ["provider→bridge", "bridge→provider"] as const) {
    const file = path.join(dir, `${d}.ndjson`);
    if (!existsSync(file)) continue;
    for (const text of readFileSync(file, "utf8").split("\n")) {
      if (text === "") continue;
      const entry = JSON.parse(text) as { seq: number; run: number; line: string };
      out.push({ dir: d, seq: entry.seq, run: entry.run, line: entry.line });
    }
  }
  return out.sort((a, b) => a.run - b.run || a.seq - b.seq).map(({ run: _run, ...line }) => line);
}

/** The committed oracle and agent-side lines of `<provider>/<cell>`. */
export function committed(provider: string, cell: string): { lane: unknown[]; agentSide: AgentSideLine[] } {
  return {
    lane: JSON.parse(readFileSync(path.join(repoRoot, "lanes", provider, `${cell}.json`), "utf8")) as unknown[],
    agentSide: agentSideOf(path.join(repoRoot, "recordings", provider, cell)),
  };
}
