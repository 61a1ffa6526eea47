/**
 * The CLI versions of a run in words (issue 41 build point 4), shared by every reporter's header:
 * per provider, the versions its recordings were recorded with and the versions its oracles were
 * accepted from (harness/report/check-report.ts `ProviderVersions`), and for one cell whose two
 * versions differ, a line that says so. Versions come from files a pull request can change
 * (manifests, version sidecars): every one is made visible (`visibleLine`).
 */
import type { LaneSetEntry } from "../compare/lane-set-diff.js";
import type { CellVersions, ProviderVersions } from "./check-report.js";
import { visibleLine } from "./visible.js";

const list = (versions: readonly string[]) => versions.map(visibleLine).join(", ");

/**
 * One provider's header line without its label: `codex 0.171.0 (recordings and oracles)` when
 * both name the same versions, else e.g. `recorded with codex 0.171.0; oracles accepted from codex
 * 0.170.0, codex 0.171.0; 1 cell with no oracle version; versions differ in 2 cells: fork, steer`.
 */
export function providerVersionsText(v: ProviderVersions): string {
  const same = v.recordings.length > 0 && v.recordings.join("\n") === v.oracles.join("\n");
  const parts = same ? [`${list(v.recordings)} (recordings and oracles)`] : [`recorded with ${v.recordings.length > 0 ? list(v.recordings) : "(unknown)"}`];
  if (v.oracles.length > 0 && !same) parts.push(`oracles accepted from ${list(v.oracles)}`);
  if (v.oracleUnknown > 0) parts.push(`${v.oracleUnknown} ${v.oracleUnknown === 1 ? "cell" : "cells"} with no oracle version`);
  if (v.differ.length > 0) parts.push(`versions differ in ${v.differ.length} ${v.differ.length === 1 ? "cell" : "cells"}: ${list(v.differ)}`);
  return parts.join("; ");
}

/** The header lines of a run: `versions <provider>: …` per provider ({@link providerVersionsText}); none when no cell has versions. */
export function versionHeaderLines(providers: readonly ProviderVersions[]): string[] {
  return providers.map((v) => `versions ${visibleLine(v.provider)}: ${providerVersionsText(v)}`);
}

/** The line of a cell whose recording and oracle came from different versions, or undefined: `versions differ: recorded with …, oracle accepted from …`. */
export function cellVersionsNote(versions: CellVersions | undefined): string | undefined {
  if (versions === undefined || !versions.differ) return undefined;
  return `versions differ: recorded with ${visibleLine(versions.recording ?? "")}, oracle accepted from ${visibleLine(versions.oracle ?? "")}`;
}

/** One side's versions of a `parity diff` over its providers: the distinct oracle and recording versions of the lanes given. */
export interface SideVersions {
  provider: string;
  recordings: string[];
  oracles: string[];
  /** Lanes of the provider on this side whose oracle has no version sidecar. */
  oracleUnknown: number;
}

/** The {@link SideVersions} of side `side` of `entries` (a lane's provider is its key before `/`, or the key), by provider in first-seen order. */
export function sideVersions(entries: readonly LaneSetEntry[], side: "a" | "b"): SideVersions[] {
  const out = new Map<string, { recordings: Set<string>; oracles: Set<string>; oracleUnknown: number }>();
  for (const entry of entries) {
    const v = entry.versions?.[side];
    if (v === undefined || v === null) continue;
    // A key without a provider (`parity diff lanes/codex lanes/acp-codex`, two lane files): one group for the side.
    const provider = entry.key.includes("/") ? entry.key.split("/")[0]! : "";
    let e = out.get(provider);
    if (e === undefined) out.set(provider, (e = { recordings: new Set(), oracles: new Set(), oracleUnknown: 0 }));
    if (v.recording !== null) e.recordings.add(v.recording);
    if (v.oracle !== null) e.oracles.add(v.oracle);
    else e.oracleUnknown += 1;
  }
  return [...out].map(([provider, e]) => ({ provider, recordings: [...e.recordings].sort(), oracles: [...e.oracles].sort(), oracleUnknown: e.oracleUnknown }));
}

/** The header lines of a `parity diff`: per side, per provider of a lane that differs, `versions a (main) codex: recordings …; oracles …` (none for a side that knows no version). */
export function laneSetVersionLines(entries: readonly LaneSetEntry[], sides: { a: string; b: string }): string[] {
  const differing = entries.filter((e) => e.status !== "same");
  // A side that knows no version (lane files with no sidecar, outside a checkout) adds no line.
  return (["a", "b"] as const).flatMap((side) =>
    sideVersions(differing, side)
      .filter((v) => v.recordings.length + v.oracles.length > 0)
      .map(
        (v) =>
          `versions ${side} (${visibleLine(sides[side])})${v.provider === "" ? "" : ` ${visibleLine(v.provider)}`}: recordings ${v.recordings.length > 0 ? list(v.recordings) : "(not known here)"}; oracles accepted from ${v.oracles.length > 0 ? list(v.oracles) : "(not known)"}${v.oracleUnknown > 0 && v.oracles.length > 0 ? ` (${v.oracleUnknown} with no version)` : ""}`,
      ),
  );
}

/** For a lane whose versions differ between the sides: `versions: oracle X → Y; recording X → Y` (the parts that differ), else undefined. */
export function laneVersionsChange(entry: LaneSetEntry): string | undefined {
  const a = entry.versions?.a;
  const b = entry.versions?.b;
  if (a === undefined || b === undefined || a === null || b === null) return undefined;
  const parts: string[] = [];
  if (a.oracle !== b.oracle) parts.push(`oracle accepted from ${visibleLine(a.oracle ?? "(not known)")} → ${visibleLine(b.oracle ?? "(not known)")}`);
  if (a.recording !== b.recording) parts.push(`recorded with ${visibleLine(a.recording ?? "(not known)")} → ${visibleLine(b.recording ?? "(not known)")}`);
  return parts.length > 0 ? `versions: ${parts.join("; ")}` : undefined;
}
