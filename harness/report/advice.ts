/**
 * Advice that fits the failure (spec 40 point 9): what kind of failure a cell has, the one
 * command that fits it — repeating every flag the run was given that the command takes — and the
 * closing note of a run that names the accept flow (`parity review`, `parity check -u`).
 *
 * Kinds, from what the replay and the comparison found:
 * - `lane-change`: only lane differences; the bridge ran the recording through. Accept it (rerecord
 *   the oracle) or, when it varies between runs, allow it;
 * - `divergence`: the live bridge wrote something other than the recording expected; fix the bridge
 *   (or record the cell again); nothing to accept;
 * - `dead-bridge`: the bridge answered nothing (no handshake, or went idle before its first output);
 * - `crashed-bridge`: the bridge exited before the recording was played out;
 * - `stale-entry`: only allowlist entries that mask nothing fail it;
 * - `missing-oracle`: the cell has no committed oracle (under CI; elsewhere its live lane is pending).
 */
import { shellQuote } from "../../stack/protocol/text.js";

/** The failure kinds a failing cell is advised for (see the module comment). */
export type FailureKind = "lane-change" | "divergence" | "dead-bridge" | "crashed-bridge" | "stale-entry" | "missing-oracle";

/**
 * The flags of a `check`/`review` run that the suggested commands repeat, as the user typed them
 * (paths relative to where the run was started). Only the flags a command accepts are repeated.
 */
export interface RunFlags {
  recordings?: string[];
  lanes?: string;
  module?: string;
  allowlist?: string[];
  cells?: string;
  timeout?: string;
}

/** Which of {@link RunFlags} each suggested command accepts. */
const ACCEPTS: Readonly<Record<"check" | "review" | "replay" | "rerecord" | "allow", ReadonlyArray<keyof RunFlags>>> = {
  check: ["recordings", "lanes", "allowlist", "module", "cells", "timeout"],
  review: ["recordings", "lanes", "allowlist", "module", "cells", "timeout"],
  replay: ["recordings", "module", "cells", "timeout"],
  rerecord: ["recordings", "lanes", "module", "timeout"],
  allow: [],
};

/** The shell words of `flags` that `command` accepts, in a fixed order, each value quoted. */
export function flagWords(flags: RunFlags | undefined, command: keyof typeof ACCEPTS): string[] {
  if (flags === undefined) return [];
  const words: string[] = [];
  for (const key of ACCEPTS[command]) {
    const value = flags[key];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) words.push(`--${key} ${shellQuote(one)}`);
  }
  return words;
}

/** What a cell's classification reads: its report fields and the replay's divergence kinds. */
export interface ClassifiableCell {
  status: string;
  events: number;
  diffs: readonly unknown[];
  stale: readonly unknown[];
  divergences: ReadonlyArray<{ actual: string | null }>;
  detail?: { replayKinds?: readonly string[]; error?: string; missingOracle?: boolean };
}

/**
 * The kind of a failing cell, or `undefined` for a cell that did not fail. A crash outranks
 * everything (its lane is cut short), a bridge that answered nothing comes next, then a
 * divergence, a missing oracle, lane differences and last stale entries.
 */
export function failureKind(cell: ClassifiableCell): FailureKind | undefined {
  if (cell.status !== "fail") return undefined;
  const kinds = cell.detail?.replayKinds ?? [];
  if (kinds.includes("bridge-exited")) return "crashed-bridge";
  const silent = cell.divergences.length > 0 && cell.divergences.every((d) => d.actual === null) && cell.events === 0;
  if (kinds.includes("no-handshake") || silent) return "dead-bridge";
  if (cell.divergences.length > 0) return "divergence";
  if (cell.detail?.missingOracle === true) return "missing-oracle";
  if (cell.diffs.length > 0) return "lane-change";
  return cell.stale.length > 0 ? "stale-entry" : undefined;
}

/** `parity <command> --provider P --cell C <flags>` (with `extra` words after the cell). */
export function cellCommand(command: keyof typeof ACCEPTS, provider: string, cell: string, flags: RunFlags | undefined, extra: string[] = []): string {
  return ["parity", command, ...extra, `--provider ${shellQuote(provider)}`, `--cell ${shellQuote(cell)}`, ...flagWords(flags, command)].join(" ");
}

/** The one line of advice for a failing cell of `kind` other than a lane change (which text.ts builds with its allow lines). */
export function kindAdvice(kind: Exclude<FailureKind, "lane-change">, provider: string, cell: string, flags: RunFlags | undefined): string {
  switch (kind) {
    case "crashed-bridge":
      return `fix the bridge (it exited; its stderr is above), then: ${cellCommand("check", provider, cell, flags)}`;
    case "dead-bridge":
      return `the bridge answered nothing; see why: ${cellCommand("replay", provider, cell, flags, ["--verbose"])}`;
    case "divergence":
      return `the bridge's output left the recording (nothing to accept); fix the bridge, or record the cell again. Trace it: ${cellCommand("replay", provider, cell, flags, ["--trace"])}`;
    case "missing-oracle":
      return `write its oracle locally and commit it: ${cellCommand("check", provider, cell, flags, ["-u"])}`;
    case "stale-entry":
      return `delete the stale entries (or all at once: ${["parity allow --prune", ...flagWords(flags, "check").filter((w) => w.startsWith("--recordings") || w.startsWith("--allowlist"))].join(" ")})`;
  }
}

/**
 * The closing note of a run: how many failing cells of each kind, and for lane changes the accept
 * flow (`parity review` cell by cell, `parity check -u` all at once) with the run's flags.
 * Empty when nothing failed.
 */
export function closingAdvice(cells: readonly ClassifiableCell[], flags: RunFlags | undefined): string[] {
  const count = new Map<FailureKind, number>();
  for (const cell of cells) {
    const kind = failureKind(cell);
    if (kind !== undefined) count.set(kind, (count.get(kind) ?? 0) + 1);
  }
  if (count.size === 0) return [];
  const n = (kind: FailureKind) => count.get(kind) ?? 0;
  const cellsWord = (k: number) => `${k} ${k === 1 ? "cell" : "cells"}`;
  const review = ["parity review", ...flagWords(flags, "review")].join(" ");
  const update = ["parity check -u", ...flagWords(flags, "check")].join(" ");
  const lines = ["what next:"];
  if (n("lane-change") > 0) {
    lines.push(`  ${cellsWord(n("lane-change"))} changed the lane: if intended, review them one by one: ${review}`);
    lines.push(`    or accept them all (rerecords their oracles): ${update}`);
  }
  if (n("crashed-bridge") > 0) lines.push(`  ${cellsWord(n("crashed-bridge"))}: the bridge crashed; fix it (its stderr is above each cell), nothing to accept`);
  if (n("dead-bridge") > 0) lines.push(`  ${cellsWord(n("dead-bridge"))}: the bridge answered nothing; fix it, nothing to accept or allow`);
  if (n("divergence") > 0) lines.push(`  ${cellsWord(n("divergence"))}: the replay diverged from the recording; fix the bridge or record again`);
  if (n("missing-oracle") > 0) lines.push(`  ${cellsWord(n("missing-oracle"))}: no committed oracle; accept it locally (parity review, or parity check -u) and commit lanes/`);
  if (n("stale-entry") > 0) lines.push(`  ${cellsWord(n("stale-entry"))}: only stale allowlist entries; delete them`);
  return lines;
}
