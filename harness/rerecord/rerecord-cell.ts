/**
 * One cell's rerecord (spec 10 §6.6; docs/design/00-product.md flow 4): replay it through today's bridge;
 * on a clean replay write `bridge→runtime.current.ndjson` (steps 2–5) and the oracle, each
 * atomically (temp file + rename). The four recorded lanes and the manifest are only read.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { EXIT_CODES } from "../errors.js";
import { buildThreadLane } from "../lanes/index.js";
import { writeFileAtomic } from "../recording/atomic-write.js";
import { fileState } from "../recording/file-state.js";
import { oracleVersionFile, writeOracleVersion } from "../recording/oracle-version.js";
import { compareLaneEntries, parseLaneEntry, type LaneEntry } from "../recording/lane-entry.js";
import type { Recording } from "../recording/reader.js";
import type { Redactor } from "../recording/redact.js";
import { sweepFileText, type RedactionSurvivor } from "../recording/redact-verify.js";
import { formatDivergenceSummary, type ReplayDivergence, type ReplayNote } from "../replay/walk/divergence.js";
import { replayRecording, type ReplayRecordingOptions, type ReplayResult } from "../replay/replay-recording.js";
import { liveThreadLaneOf, replayedCellOf, type ReplayedCell } from "./replayed-cell.js";
import { HARNESS_INITIALIZE_ID } from "../replay/walk/scheduler.js";
import { buildCurrentBridgeLane, runtimeAnchors, serializeLaneEntries, type LiveBridgeLine } from "./current-lane.js";
import type { RerecordTargets } from "./targets.js";

/** What {@link rerecordCell} needs besides the recording. */
export interface RerecordCellOptions {
  /** Where to write (see `rerecordTargets`). */
  targets: RerecordTargets;
  /** Redaction of the current lane (spec 10 §6.6 step 5; LIVE-RECORD's `createRedactor`). */
  redactor: Redactor;
  /** Passed to `replayRecording`. */
  replay?: ReplayRecordingOptions;
  /** Write the current lane beside the recording even when the bridge's output did not change (default false). */
  alwaysWriteCurrent?: boolean;
  /**
   * Where each target's new content goes (default: the target itself). The gate's `pending`
   * write policy passes `pendingFile` (harness/check/write-policy.ts): the content is compared
   * with the target as today, and a change is written beside it, to be accepted by renaming.
   */
  writeTo?: (target: string) => string;
}

/**
 * How a written file compares with what was there; `not needed` for a current lane beside a
 * recording whose own bridge lane still assembles to the live thread lane (nothing written).
 */
export type FileChange = "new" | "updated" | "unchanged" | "not needed";

/** The outcome of one cell's rerecord; only `rerecorded` wrote anything. */
export type RerecordCellOutcome =
  | {
      status: "rerecorded";
      provider: string;
      cell: string;
      /** Lines in the written current lane. */
      lines: number;
      /** Thread events of the (new) oracle. */
      events: number;
      currentLaneFile: string;
      currentLane: FileChange;
      oracleFile: string;
      oracle: FileChange;
      /** The oracle's version sidecar (recording/oracle-version.ts): the recording's `cliVersion`, written when it is new or names another version. */
      versionFile: string;
      version: FileChange;
      notes: ReplayNote[];
      /**
       * Recorded bridge→runtime notifications today's bridge no longer sends (one line each, with
       * the recorded seq); the rerecord captures that change, the report lists them for review.
       */
      noLongerSent: string[];
    }
  | {
      /** The replay diverged: nothing written (spec 10 §6.6 step 1). */
      status: "diverged";
      provider: string;
      cell: string;
      divergences: ReplayDivergence[];
      divergenceCount: number;
      notes: ReplayNote[];
    }
  | {
      /**
       * A replay (the rerecord's own, or the check of the new current lane) hit the wall-clock
       * ceiling: no verdict, so nothing written (an incomplete lane would overwrite a good oracle).
       */
      status: "timeout";
      provider: string;
      cell: string;
      /** The replay's own line (`infrastructure timeout: …`). */
      reason: string;
      notes: ReplayNote[];
    }
  | {
      /** Nothing written, for the reason given (a secret survived, the lane would not reproduce, or the refreshed recording would not replay). */
      status: "refused";
      provider: string;
      cell: string;
      reason: string;
      /** Exit code this refusal calls for: 3 for a surviving secret (spec 10 §4), else 1. */
      exitCode: number;
      survivors?: RedactionSurvivor[];
    };

/**
 * The live bridge output of a replay as current-lane input: each line of `result.bridgeLane`
 * (arrival order, positioned by the replay after the input that caused it: the one its
 * expectation was recorded after, or the cause of the live line before it) with that recorded
 * input entry — runtime or agent (`inputLane`: `runtime→bridge` and `provider→bridge`): the
 * last one sorting before the line's position, found per line. Anchoring after agent lines too (spec 10 §6.6 step 4 anchors after
 * runtime lines only) keeps a line the bridge now writes after the agent line that caused it:
 * a turn a pre-prompt agent chunk opens, a denial's item after the runtime's answer. The
 * replay merges such a lane as it is (plan.ts `needsAlignment`).
 */
export function liveLinesOf(result: Pick<ReplayResult, "bridgeLane">, inputLane: readonly LaneEntry[]): LiveBridgeLine[] {
  const anchors = runtimeAnchors(result.bridgeLane, [...inputLane].sort(compareLaneEntries));
  return result.bridgeLane.map((entry, i) => ({ line: entry.line, after: anchors[i] ?? null }));
}

/**
 * `recording` with `lane` as its current bridge lane, in memory (spec 10 §4
 * `withCurrentBridgeLane`): what a reader would return once the lane is written.
 */
export function withCurrentBridgeLane(recording: Recording, lane: LaneEntry[]): Recording {
  return {
    ...recording,
    currentBridgeLane: lane,
    merged(opts = {}) {
      const bridge = (opts.useCurrent ?? true) ? lane : recording.lanes["bridge→runtime"];
      return [...recording.merged({ useCurrent: false }).filter((e) => e.dir !== "bridge→runtime"), ...bridge].sort(compareLaneEntries);
    },
  };
}

async function changeOf(file: string, text: string): Promise<FileChange> {
  // Only nothing at the path is "new": a link loop or a directory there is an error naming it.
  const old = (await fileState(file)) === "missing" ? null : await readFile(file, "utf8");
  return old === null ? "new" : old === text ? "unchanged" : "updated";
}

/**
 * True when every divergence is a recorded bridge→runtime notification the bridge no longer sends
 * (and all of them were kept): the replay walked on past each, so it is no stall (spec 10 §6.6
 * step 1 refuses stalls) but the behaviour change the rerecord is meant to capture.
 */
function onlyDroppedNotifications(divergences: readonly ReplayDivergence[], total: number): boolean {
  return (
    total > 0 &&
    total === divergences.length &&
    divergences.every((d) => d.kind === "missing-expectation" && d.dir === "bridge→runtime" && d.expected !== null && d.expected.startsWith("notification "))
  );
}

/** The `timeout` outcome of a replay that hit the ceiling: its own line, first. */
function timedOut(provider: string, cell: string, result: Pick<ReplayResult, "infrastructureTimeout" | "notes">): RerecordCellOutcome {
  const t = result.infrastructureTimeout!;
  const reason = `infrastructure timeout: the replay was still running after ${t.ceilingMs} ms of wall clock${t.seq === null ? "" : ` (last recorded entry walked: seq ${t.seq})`}; no verdict, nothing written — rerun on a less loaded machine or raise --timeout`;
  return { status: "timeout", provider, cell, reason, notes: result.notes };
}

/** The refusal of a refreshed recording that would not replay (exit 1, nothing written). */
function notReplayable(provider: string, cell: string, failure: string): RerecordCellOutcome {
  return {
    status: "refused",
    provider,
    cell,
    reason: `${failure}; nothing written. The bridge's new output cannot be placed so that the recording replays: \`parity replay --provider ${provider} --cell ${cell} --verbose\` shows the walk`,
    exitCode: EXIT_CODES.parityFailure,
  };
}

/**
 * Rerecords one thread-scoped cell (spec 10 §6.6 steps 1–5; docs/design/00-product.md flow 4):
 * 1. replays it; a wall-clock timeout → `timeout` (exit 4), any divergence → `diverged`, nothing written;
 * 2–4. builds the current bridge lane (see `buildCurrentBridgeLane`);
 * 5. redacts each line and sweeps the result; a survivor → `refused` (exit 3), nothing written;
 * then checks that the recording with this current lane assembles to exactly the live thread
 * lane (else `refused`, exit 1: the oracle and the recording would disagree), replays it once planned from the new lane, in memory (a divergence or another thread
 * lane there → `refused`, exit 1, naming the seq and what diverged: a refreshed recording always
 * replays, issue 24; a lane that will not be written is not replayed, see {@link rerecordFromReplay}), and writes the current lane and the oracle (`serializeThreadLane` of the normalized live lane), each with
 * temp file + rename; a file whose content is unchanged is left as is, and beside a recording
 * the current lane is written only when the recording's own bridge lane no longer assembles
 * to the live thread lane (`not needed` otherwise).
 *
 * @throws InputError for a bad recording, or (from `writeFileAtomic`) naming a target that
 *   cannot be written: nothing partial is left there (a current lane written before a failing
 *   oracle write stays);
 *   UsageError for a provider with no replay profile
 */
export async function rerecordCell(recording: Recording, options: RerecordCellOptions): Promise<RerecordCellOutcome> {
  // The live bridge lane is this command's whole input: ask for it whatever the default.
  const result = await replayRecording(recording, { ...options.replay, keepBridgeLane: true });
  return rerecordFromReplay(recording, replayedCellOf(result), options);
}

/**
 * Steps 1–5 of {@link rerecordCell} from a replay already run (`replayed`: `rerecordCell`'s own,
 * or the gate's replay of a changed cell, harness/check/pending.ts): the one way a replay becomes
 * a current lane and an oracle. Replays only to verify a current lane it would write (or, after a
 * replay that lost recorded notifications, any): where the bridge's output did not change, the
 * recording stays as it is — the one `replayed` just replayed — and only the oracle is written.
 *
 * @throws as {@link rerecordCell}, except that the cell is not replayed here
 */
export async function rerecordFromReplay(recording: Recording, replayed: ReplayedCell, options: RerecordCellOptions): Promise<RerecordCellOutcome> {
  const { provider, cell } = recording.manifest;
  // A timed-out replay's lane is cut short: it is no verdict, never an oracle (checked first,
  // since such a replay has no divergence and would otherwise look whole).
  if (replayed.infrastructureTimeout !== null) return timedOut(provider, cell, replayed);
  if (!replayed.ok && !onlyDroppedNotifications(replayed.divergences, replayed.divergenceCount)) {
    return { status: "diverged", provider, cell, divergences: replayed.divergences, divergenceCount: replayed.divergenceCount, notes: replayed.notes };
  }
  // A bridge that now sends fewer notifications than the recorded lane (its behaviour changed) is
  // what a rerecord is for: the walk went on past each, so the live lane is whole; each is listed.
  const noLongerSent = replayed.ok ? [] : replayed.divergences.map((d) => `seq ${d.seq}: ${d.expected ?? d.message}`);
  const { currentLaneFile, oracleFile } = options.targets;
  const { live } = replayed;

  // Beside a recording, a current lane is written only when the bridge's output changed: when
  // the recording's own bridge lane (its current one if any) still assembles to the live thread
  // lane, a new file would be noise to commit (its lines differ only in minted ids and times).
  const besideRecording = path.resolve(path.dirname(currentLaneFile)) === path.resolve(recording.dir);
  const own = liveThreadLaneOf(buildThreadLane(recording, { useCurrent: true }));
  const bridgeLaneChanged = own.text !== live.text || own.counts !== live.counts;
  const currentNeeded = !besideRecording || bridgeLaneChanged || options.alwaysWriteCurrent === true;

  // One anchoring, the causal one: each line after the input — runtime or agent line — that
  // caused it (the replay's anchors, harness/replay/walk/bridge-lane.ts). No other anchoring is
  // tried when its replay diverges: a fallback chosen by which verify replay won would make the
  // written file depend on the machine (issue 38). It is refused instead, naming the divergence.
  // A lane that is not written needs no replay: the recording that stays just replayed cleanly.
  const verify = currentNeeded || !replayed.ok;
  const inputs = [...recording.lanes["runtime→bridge"], ...recording.lanes["provider→bridge"]];
  const chosen = await candidateLane(recording, replayed, inputs, { ...options, verify });
  if ("status" in chosen) return chosen;
  if (chosen.replayFailure !== undefined) return notReplayable(provider, cell, chosen.replayFailure);
  const { text, lines } = chosen;

  const currentLane: FileChange = currentNeeded ? await changeOf(currentLaneFile, text) : "not needed";
  const oracle = await changeOf(oracleFile, live.text);
  const writeTo = options.writeTo ?? ((target: string) => target);
  if (currentLane === "new" || currentLane === "updated") await writeFileAtomic(writeTo(currentLaneFile), text);
  if (oracle !== "unchanged") await writeFileAtomic(writeTo(oracleFile), live.text);
  // The oracle is now the one accepted from this recording: its sidecar names the recording's version.
  const version = await writeOracleVersion(oracleFile, recording.manifest.cliVersion, writeTo);
  return {
    status: "rerecorded",
    provider,
    cell,
    lines,
    events: live.events,
    currentLaneFile,
    currentLane,
    oracleFile,
    oracle,
    versionFile: oracleVersionFile(oracleFile),
    version,
    notes: replayed.notes,
    noLongerSent,
  };
}

/**
 * The current lane built from `replayed` with `inputs` as anchors, redacted and swept, checked to
 * assemble to the live thread lane and, with `verify`, replayed once in memory; or the outcome
 * that stops the rerecord (a surviving secret, a lane that would not assemble, a timeout).
 */
async function candidateLane(
  recording: Recording,
  replayed: ReplayedCell,
  inputs: readonly LaneEntry[],
  options: RerecordCellOptions & { verify: boolean },
): Promise<RerecordCellOutcome | { text: string; replayFailure: string | undefined; lines: number }> {
  const { provider, cell } = recording.manifest;
  const built = buildCurrentBridgeLane(liveLinesOf(replayed, inputs), {
    runtimeLane: recording.lanes["runtime→bridge"],
    recordedBridgeLane: recording.lanes["bridge→runtime"],
    harnessInitializeId: HARNESS_INITIALIZE_ID,
  });
  const redacted = built.map((entry) => ({ ...entry, line: options.redactor.redactLine(entry.line) }));
  const redactedLines = redacted.flatMap((e, i) => (e.line === built[i]!.line ? [] : [i + 1]));
  const text = serializeLaneEntries(redacted);
  const { currentLaneFile } = options.targets;
  const survivors = sweepFileText(currentLaneFile, text, options.redactor);
  if (survivors.length > 0) {
    return {
      status: "refused",
      provider,
      cell,
      reason: `${survivors.length} secret pattern(s) survived redaction of the current lane (${survivors.map((s) => `line ${s.line}: ${s.rule}`).join("; ")}); nothing written`,
      exitCode: EXIT_CODES.secretSurvived,
      survivors,
    };
  }
  // What a reader will see once written: parse it back, so a lane we could not read is never written.
  const reread = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l, i) => parseLaneEntry(l, "bridge→runtime", { file: currentLaneFile, line: i + 1 }));

  const rewritten = withCurrentBridgeLane(recording, reread);
  const { live } = replayed;
  const assembled = liveThreadLaneOf(buildThreadLane(rewritten, { useCurrent: true }));
  if (assembled.text !== live.text || assembled.counts !== live.counts) {
    return {
      status: "refused",
      provider,
      cell,
      reason:
        redactedLines.length > 0
          ? `redaction rewrote ${redactedLines.length} line(s) of the live bridge output (first: line ${redactedLines[0]} of the current lane), so the recording would no longer assemble to the live thread lane and the gate would fail; nothing written. Keep secrets and home paths out of what the bridge writes`
          : "the recording with the new current lane would not assemble to the live thread lane; nothing written",
      exitCode: EXIT_CODES.parityFailure,
    };
  }
  if (!options.verify) return { text, replayFailure: undefined, lines: reread.length };

  // The gate plans later replays from this lane: replay it once, in memory, before writing.
  // Always, for a lane to be written: this replay is both the guarantee (a refreshed recording
  // replays) and what chooses the anchoring, so no mode skips it (rerecord has no --no-verify).
  const replanned = await replayRecording(rewritten, { ...options.replay, useCurrent: true, keepBridgeLane: false });
  if (replanned.infrastructureTimeout !== null) return timedOut(provider, cell, replanned);
  let replayFailure: string | undefined;
  if (!replanned.ok) {
    replayFailure = `a replay of the refreshed recording diverges at ${formatDivergenceSummary(`${provider}/${cell}`, replanned.divergences, replanned.divergenceCount)}`;
  } else if (liveThreadLaneOf(replanned.lane).text !== live.text) {
    replayFailure = "a replay of the refreshed recording gives a different thread lane than the oracle";
  }
  return { text, replayFailure, lines: reread.length };
}
