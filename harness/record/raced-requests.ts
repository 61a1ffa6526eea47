/**
 * Runtime requests whose handling raced in a recording. A runtime may write a request before the
 * bridge answered its previous one (`thread/start` and `turn/start` in one write); the bridge then
 * reads the second while the first is still being handled, and the recording keeps whichever
 * order its timing gave (the echo bridge answered `thread/start` only after the whole turn). A
 * replay writes each runtime line once the outputs recorded before it came (harness/replay/README.md,
 * "Determinism: the rule between pipes"), so the first request is alone in the bridge when the
 * bridge answers it: a quick bridge answers before the second line is written, and the replay
 * diverges — or not, by timing. Such a recording is no clean cell; `parity import` says so
 * (import-record-dir.ts). None of the committed recordings has one.
 */

/** A recorded lane entry as this check reads it: its `seq`, `run` and the JSON-RPC line. */
export interface RacedEntry {
  seq: number;
  run: number;
  line: string;
}

/** JSON-RPC fields of one line, or undefined when it does not parse as an object. */
function messageOf(line: string): { id?: unknown; method?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { id?: unknown; method?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each runtime request (a `runtime→bridge` line with a method and an id) whose answer (the
 * `bridge→runtime` response of that id, same run) was recorded after a later runtime request or
 * notification: one line per such request, naming both seqs and the line read in between, e.g.
 * `seq 19 (bridge→runtime): the answer to thread/start (id 2, seq 3) came after turn/start (seq 6) was read: …`.
 * Responses the runtime writes to the bridge's own requests (approvals) are not requests and
 * never count. Empty for a recording without any.
 */
export function racedRequests(runtimeToBridge: readonly RacedEntry[], bridgeToRuntime: readonly RacedEntry[]): string[] {
  const answers = new Map<string, RacedEntry>();
  for (const entry of bridgeToRuntime) {
    const message = messageOf(entry.line);
    if (message === undefined || message.method !== undefined || message.id === undefined) continue;
    const key = `${entry.run}:${JSON.stringify(message.id)}`;
    if (!answers.has(key)) answers.set(key, entry);
  }
  const out: string[] = [];
  for (const request of runtimeToBridge) {
    const message = messageOf(request.line);
    if (message === undefined || typeof message.method !== "string" || message.id === undefined) continue;
    const answer = answers.get(`${request.run}:${JSON.stringify(message.id)}`);
    if (answer === undefined || answer.seq < request.seq) continue;
    const between = runtimeToBridge.find((e) => e.run === request.run && e.seq > request.seq && e.seq < answer.seq && typeof messageOf(e.line)?.method === "string");
    if (between === undefined) continue;
    out.push(
      `seq ${answer.seq} (bridge→runtime): the answer to ${message.method} (id ${JSON.stringify(message.id)}, seq ${request.seq}) came after ${String(messageOf(between.line)!.method)} (seq ${between.seq}) was read: ` +
        "the runtime sent them together and the bridge's order between them was timing, which a replay does not reproduce",
    );
  }
  return out;
}
