/**
 * The current bridge lane of a rerecord (spec 10 §6.6 steps 2–4; docs/design/00-product.md flow 4): the
 * live bridge output of one replay, reshaped so it can sit beside the recording it replayed
 * and be merged with the recorded runtime lane as if the reference had recorded it.
 */
import type { JsonRpcId } from "../../stack/protocol/json-rpc.js";
import { compareLaneEntries, parseLineObject, type LaneEntry } from "../recording/lane-entry.js";

/** A live `bridge→runtime` line in arrival order, with the runtime entry written before it. */
export interface LiveBridgeLine {
  /** The line as the bridge wrote it (ids possibly already mapped by the replay). */
  line: string;
  /** The last input entry (`runtime→bridge` or `provider→bridge`) the harness sent before the line arrived; null: none yet. */
  after: LaneEntry | null;
}

/** What {@link buildCurrentBridgeLane} needs from the recording. */
export interface CurrentLaneSource {
  /** The recorded `runtime→bridge` lane (its first entry anchors lines that came before any send). */
  runtimeLane: readonly LaneEntry[];
  /** The recorded `bridge→runtime` lane (the request ids the recorded runtime answers refer to). */
  recordedBridgeLane: readonly LaneEntry[];
  /** Id of the harness's own `initialize` request, whose answer is dropped (spec 10 §6.6 step 2). */
  harnessInitializeId: JsonRpcId;
}

type JsonObject = Record<string, unknown>;

const isId = (value: unknown): value is JsonRpcId => typeof value === "string" || typeof value === "number";
const isRequest = (m: JsonObject): boolean => typeof m.method === "string" && isId(m.id);

/**
 * The recorded `bridge→runtime` request ids per method, in lane order (spec 10 §6.6 step 3).
 * Lines that are not JSON-RPC requests are ignored.
 */
export function recordedRequestIds(recordedBridgeLane: readonly LaneEntry[]): Map<string, JsonRpcId[]> {
  const ids = new Map<string, JsonRpcId[]>();
  for (const entry of recordedBridgeLane) {
    const message = parseLineObject(entry.line);
    if (!message || !isRequest(message)) continue;
    const method = message.method as string;
    const list = ids.get(method) ?? [];
    list.push(message.id as JsonRpcId);
    ids.set(method, list);
  }
  return ids;
}

/**
 * Rewrites each bridge→runtime request's id to the recorded id of the same method, in order
 * (spec 10 §6.6 step 3): the k-th live `interaction/request` gets the id of the k-th recorded
 * one, so the recorded runtime answers still match. A request beyond the recorded count of its
 * method keeps its own id. Other lines are returned unchanged (byte for byte); a rewritten
 * line is re-serialized with its keys in their original order.
 */
export function mapRequestIdsToRecorded(lines: readonly string[], recorded: ReadonlyMap<string, readonly JsonRpcId[]>): string[] {
  const used = new Map<string, number>();
  return lines.map((line) => {
    const message = parseLineObject(line);
    if (!message || !isRequest(message)) return line;
    const method = message.method as string;
    const k = used.get(method) ?? 0;
    used.set(method, k + 1);
    const id = recorded.get(method)?.[k];
    if (id === undefined || id === message.id) return line;
    return JSON.stringify({ ...message, id });
  });
}

/** True for the answer to the harness's own `initialize` (spec 10 §6.6 step 2). */
export function isHarnessInitializeAnswer(line: string, harnessInitializeId: JsonRpcId): boolean {
  const message = parseLineObject(line);
  return message !== undefined && message.method === undefined && message.id === harnessInitializeId;
}

/**
 * Anchors lines after the runtime entry sent before each (spec 10 §6.6 step 4). With
 * `lines` = the number of lines, the k-th line (1-based) on one anchor gets `run` = the
 * anchor's run, `seq = anchor.seq + k/(lines+1)` (so it sorts after the anchor and before
 * the next recorded entry, whose seq is at least one more) and `ts = anchor.ts + k` (ms). A
 * line that came before any send is anchored at `firstRuntime.seq − 1` (same run and ts).
 * Order is kept. Pure.
 *
 * @throws Error when some line has no anchor and the recording has no runtime entry at all
 */
export function anchorAfterRuntime(lines: readonly LiveBridgeLine[], firstRuntime: LaneEntry | undefined): LaneEntry[] {
  const ordinals = new Map<LaneEntry | null, number>();
  const total = lines.length;
  return lines.map(({ line, after }) => {
    const k = (ordinals.get(after) ?? 0) + 1;
    ordinals.set(after, k);
    let anchor: { run: number; seq: number; ts: number };
    if (after) anchor = after;
    else if (firstRuntime) anchor = { run: firstRuntime.run, seq: firstRuntime.seq - 1, ts: firstRuntime.ts };
    else throw new Error("a bridge line came before any runtime entry and the recording has no runtime lane to anchor it");
    return { ts: anchor.ts + k, run: anchor.run, seq: anchor.seq + k / (total + 1), dir: "bridge→runtime" as const, line };
  });
}

/**
 * For each live bridge entry of a replay (positioned by the replay after the input that caused
 * it, `harness/replay/walk/bridge-lane.ts`), the last of the `sent` entries that sorts before it
 * by `(run, seq)`: its anchor when `sent` holds every input, else the last of those sent before
 * it. Found per entry (a binary search), so `liveBridge` may be in any order — arrival order is
 * not anchor order when the bridge lags behind the inputs. `sent` must be sorted by `(run, seq)`.
 */
export function runtimeAnchors(liveBridge: readonly LaneEntry[], sent: readonly LaneEntry[]): Array<LaneEntry | null> {
  return liveBridge.map((entry) => {
    let low = 0;
    let high = sent.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareLaneEntries(sent[mid]!, entry) < 0) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? null : sent[low - 1]!;
  });
}

/**
 * Builds the current bridge lane from the live lines of one replay (spec 10 §6.6 steps 2–4):
 * drops the answer to the harness's own `initialize`, rewrites request ids to the recorded
 * ones per method in order, and anchors each line after the input entry (runtime or agent,
 * rerecord-cell.ts `liveLinesOf`) sent before it.
 * Redaction (step 5) is the caller's. Pure.
 */
export function buildCurrentBridgeLane(live: readonly LiveBridgeLine[], source: CurrentLaneSource): LaneEntry[] {
  const kept = live.filter((l) => !isHarnessInitializeAnswer(l.line, source.harnessInitializeId));
  const mapped = mapRequestIdsToRecorded(
    kept.map((l) => l.line),
    recordedRequestIds(source.recordedBridgeLane),
  );
  return anchorAfterRuntime(
    kept.map((l, i) => ({ line: mapped[i]!, after: l.after })),
    [...source.runtimeLane].sort(compareLaneEntries)[0],
  );
}

/** Serializes lane entries as NDJSON (`{ts, run, seq, dir, line}` per line, newline-terminated). */
export function serializeLaneEntries(entries: readonly LaneEntry[]): string {
  return entries.map((e) => `${JSON.stringify({ ts: e.ts, run: e.run, seq: e.seq, dir: e.dir, line: e.line })}\n`).join("");
}
