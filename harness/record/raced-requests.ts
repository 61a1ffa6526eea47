/**
 * Lines whose handling raced in a recording, so that a replay reproduces the recorded order only by
 * timing. A replay writes each input line once the outputs recorded before it came
 * (harness/replay/README.md, "Determinism: the rule between pipes"), and opens an output's
 * expectation only once the input recorded before it is written. So an output the bridge wrote
 * *after* reading a later input, although nothing but earlier lines caused it, races that input in
 * a replay: when the walk waits between the output's cause and the later input (an output recorded
 * between them), a quick bridge writes the output first, and it meets nothing; a slow one writes it
 * after, and it meets its expectation. Such a recording is no clean cell; `parity import` says so
 * (import-record-dir.ts). None of the committed recordings has one (test/record/import.test.ts).
 *
 * Where the output's cause can be read from the recording, a rule names it:
 * 1. {@link racedRequests}: a runtime request answered after a later runtime line was read (a
 *    runtime that writes `thread/start` and `turn/start` together: the echo bridge answered
 *    `thread/start` only after the whole turn; test/fixtures/import-race).
 * 2. {@link racedAgentAnswers}: an agent's request the bridge answers on its own (`fs/*`,
 *    `terminal/*`, an auto-approved permission) answered after a later line of the same agent was
 *    read, with an output recorded in between (an agent that writes on while it waits: the ACP
 *    bridge answered a slow `fs/read_text_file` after the agent's next request and two message
 *    chunks; test/fixtures/import-agent-race).
 *
 * The other orderings of a real session, and why each is no risk a rule must name:
 * - *An agent line read between a runtime line and the bridge's write to the agent acting on it*
 *   (an agent's late `available_commands_update` read between `turn/start` and `session/prompt`),
 *   and likewise *a runtime line read between an agent line and the bridge's write to the agent
 *   acting on it* (the runtime's `thread/stop` while an `fs/*` answer is being made; the runtime's
 *   answer to an `interaction/request` and the bridge's answer to the agent's permission request
 *   with an agent line between them): the later line is on another pipe, with nothing recorded on
 *   that pipe since the earlier one, so the replay writes it only once the bridge consumed the
 *   earlier line (rule 3, `blocked`: only a timer of the bridge's own due). The bridge has then
 *   written the acting line, before its expectation opened: a divergence in every replay, which
 *   the import's own replay names: not by timing, so the replay is the rule (test/record/import.test.ts
 *   moves test/fixtures/import-late-update's late `session_info_update` there: 3 of 3 imports
 *   named `session/prompt`, the unmoved session imported clean 3 of 3). The exception is a
 *   bridge whose acting write waits on a timer of its own: `blocked` lets the walk write the later
 *   line while that timer is due (walk/walk-inputs.ts `barrierOf`), and which comes first is then
 *   the timer's; nothing recorded shows a timer, so no rule over the recording can see it either.
 * - *A runtime answer read before the agent request it answers was written to the runtime*: not
 *   an order a recording can hold. The bridge writes `interaction/request` after reading the
 *   agent's request, and the runtime can answer only what it read; the recorder numbers a line
 *   as it is read, before it is acted on, and as it is written (stack/bridge-kit/recorder.ts,
 *   one `seq` per process), so the agent's request,
 *   the bridge's `interaction/request` and the runtime's answer always have rising seqs. A
 *   runtime answer whose request is not before it (ids reused) is dropped by the replay with a
 *   note, and the agent's answer then never comes: a divergence in every replay.
 * - *A notification the bridge wrote for a runtime request after a later runtime line was read*
 *   (rule 1 for lines without an id): nothing in a notification names the request that caused
 *   it, so no rule can tell it from one the later line caused. Where the later line is on another
 *   pipe the walk holds the early notification until it meets (walk/README.md, "Lines ahead of
 *   their expectation"); on the runtime's own pipe it is the echo bridge's case, and rule 1 names
 *   the session when the request's answer also came late, as it does whenever the bridge finishes
 *   a request before answering it. The rest is left to the import's replay.
 * - *Agent lines the bridge reads in one chunk* (several lines recorded with nothing written
 *   between them): the replay writes them back to back, with no wait in which the bridge could
 *   answer early, so rule 2 asks for an output between the request and the later line.
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

/**
 * The agent process of each `provider→bridge` and `bridge→provider` entry: its run and the number
 * of `bridge→provider` `initialize` requests before it in that run (a new agent process starts at
 * each, as the replay plan cuts its segments: harness/replay/plan/plan.ts).
 */
function agentProcesses(entries: readonly (RacedEntry & { dir: string })[]): Map<RacedEntry, string> {
  const out = new Map<RacedEntry, string>();
  const started = new Map<number, number>();
  for (const entry of entries) {
    if (entry.dir === "bridge→provider" && messageOf(entry.line)?.method === "initialize") started.set(entry.run, (started.get(entry.run) ?? 0) + 1);
    out.set(entry, `${entry.run}:${started.get(entry.run) ?? 0}`);
  }
  return out;
}

/** `fs/read_text_file`, `response (id 3)`: what a JSON-RPC line is, in a few words. */
function lineWords(line: string): string {
  const message = messageOf(line);
  if (message === undefined) return "a line";
  if (typeof message.method === "string") return message.method;
  return `response (id ${JSON.stringify(message.id)})`;
}

/** The four lanes of a recording as {@link racedAgentAnswers} reads them. */
export interface RacedLanes {
  "runtime→bridge": readonly RacedEntry[];
  "bridge→runtime": readonly RacedEntry[];
  "provider→bridge": readonly RacedEntry[];
  "bridge→provider": readonly RacedEntry[];
}

/**
 * Rule 2 of the module comment: each agent request (a `provider→bridge` line with a method and an
 * id) whose answer (the `bridge→provider` response of that id, same agent process) came after a
 * later line of that agent was read, where the bridge wrote something between the request and
 * that line (so a replay waits there, and a quick bridge answers before the line is written). An
 * answer after a runtime answer read in between may relay it (a permission the runtime answered):
 * that order is the other pipe's (module comment), not this rule's. One line each, e.g.
 * `seq 28 (bridge→provider): the bridge's answer to the agent's fs/read_text_file (id 900, seq 20) came after session/update (seq 23) was read, and seq 22 (bridge→provider) was written between the request and it: …`.
 */
export function racedAgentAnswers(lanes: RacedLanes): string[] {
  const all = (Object.entries(lanes) as Array<[string, readonly RacedEntry[]]>).flatMap(([dir, entries]) => entries.map((entry) => ({ ...entry, dir }))).sort((a, b) => a.run - b.run || a.seq - b.seq);
  const agent = agentProcesses(all);
  const answers = new Map<string, (typeof all)[number]>();
  for (const entry of all) {
    if (entry.dir !== "bridge→provider") continue;
    const message = messageOf(entry.line);
    if (message === undefined || message.method !== undefined || message.id === undefined) continue;
    const key = `${agent.get(entry)}:${JSON.stringify(message.id)}`;
    if (!answers.has(key)) answers.set(key, entry);
  }
  const out: string[] = [];
  all.forEach((request, at) => {
    if (request.dir !== "provider→bridge") return;
    const message = messageOf(request.line);
    if (message === undefined || typeof message.method !== "string" || message.id === undefined) return;
    const answer = answers.get(`${agent.get(request)}:${JSON.stringify(message.id)}`);
    if (answer === undefined || answer.run !== request.run || answer.seq < request.seq) return;
    const between = all.slice(at + 1).filter((e) => e.run === request.run && e.seq < answer.seq);
    const relayed = between.some((e) => e.dir === "runtime→bridge" && messageOf(e.line)?.method === undefined);
    if (relayed) return;
    const written = between.find((e) => e.dir === "bridge→runtime" || e.dir === "bridge→provider");
    const later = written === undefined ? undefined : between.find((e) => e.dir === "provider→bridge" && agent.get(e) === agent.get(request) && e.seq > written.seq);
    if (written === undefined || later === undefined) return;
    out.push(
      `seq ${answer.seq} (bridge→provider): the bridge's answer to the agent's ${message.method} (id ${JSON.stringify(message.id)}, seq ${request.seq}) came after ${lineWords(later.line)} (seq ${later.seq}) was read, ` +
        `and seq ${written.seq} (${written.dir}) was written between the request and it: a replay writes seq ${later.seq} only once seq ${written.seq} came, and whether the bridge answers before that is timing`,
    );
  });
  return out;
}
