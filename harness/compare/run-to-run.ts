/**
 * What differs between two live runs of one cell by the machine's scheduling, never by the agent
 * or the bridge (issue 41 build point 5, "noise is subtracted by design"): the rules that hold a
 * thread lane recorded in one run against an oracle made from another run of the same cell (a
 * fresh re-record checked against the committed oracles, README "An agent upgrade"). They are
 * applied to both lanes alike and only to that comparison: a recording's replay is still held
 * event for event against its own bridge lane, so a bridge that re-chunks or reorders is caught
 * there.
 *
 * Rules 1, 2 and 6 are about order and chunks, 3–5 about values:
 *
 * 1. **Output chunking.** A tool's streamed output (`…/outputDelta`) arrives in the chunks the
 *    pipe happened to deliver: codex 0.171.0 sends a command's three lines as three deltas in one
 *    run and as one in the next (cells command-fails, exact-bytes), and omp streams a long output
 *    as windows of its tail, as many and as far as the clock let it (long-output). Whether any
 *    progress is streamed at all before the command ends is the clock's too: opencode 1.18.33
 *    reports a running command's output so far in an in-progress `tool_call_update` only when the
 *    command is still running at its next update (long-output: none in the committed recording, one
 *    in a re-record under load, test/fixtures/progress-streamed/). When the item's
 *    `item/completed` carries the whole output (`aggregatedOutput`), its deltas are progress and
 *    are left out of the comparison (the whole output is compared in the completed item; a
 *    recording's replay still holds every delta against its own bridge lane). Otherwise
 *    consecutive output deltas of one item are compared as one delta carrying their
 *    concatenation: every byte, in order, still counts.
 * 2. **Tool items that run together.** Two tool calls of one model answer run concurrently, and
 *    which one starts, streams or completes first is the scheduler's (codex's two-tool-calls: the
 *    read's events before the command's in one run, after them in the next). Within a stretch of
 *    consecutive events that all belong to tool items (nothing else — a message, a turn event,
 *    token usage — between them), each item's events are kept together in their own order and
 *    the items are ordered by what they are (the started item without its id), not by when they
 *    ran. A stretch with one item is unchanged.
 * 3. **Two pipes merged.** A command's stdout and stderr reach the agent on two pipes, and the
 *    order in which it merges their lines is the scheduler's (codex-acp's command-fails: "first
 *    line, second line, something went wrong" in one run, the stderr line second in the next).
 *    A command item's merged output (`aggregatedOutput`, and its joined output delta) is
 *    compared as its lines sorted. What each stream held, in its own order, is the truth check's
 *    to judge against the cell's facts (compare/truth/output.ts), which runs on every check.
 * 4. **Names a run makes up.** An agent that spills a long output to a file names the file in
 *    the tool result with a value of that run: a UUID (Claude Code's session folder
 *    `~/.claude/projects/…/<uuid>/tool-results/`, copilot's `copilot-tool-output-<pid>-<uuid>`),
 *    a random name (claude-agent-acp's `tool-results/bfa3e38s6.txt`, pi's
 *    `pi-bash-40f6afc7e69eaa1d.log`), a millisecond time and a pid (copilot's
 *    `1796643173712-copilot-tool-output-18503-…`), and opencode's ids (`tool-output/tool_24ffaad73001Qikdq11LaFMnNW`, and the
 *    child session a subagent ran in, a delegation's `childRef` `ses_dd414c26effe0Ww3DlUyAO5K2k`). Each such value, by the patterns of
 *    {@link MADE_UP_NAMES}, is one placeholder in every string. A value the agent draws at random
 *    (a retry's jittered delay, {@link MADE_UP_KEYS}) is a placeholder whatever it is.
 * 5. **A terminal's window of a long output.** qwen-code 0.15.10 runs a command in a pseudo-terminal
 *    (node-pty, its default `tools.shell.enableInteractiveShell`) and reports what its emulated
 *    terminal (xterm, 80 columns, 30 rows and a scrollback of 10 000) holds: the last 10 030 rows
 *    of what it read. What it read ends where the pty stopped giving output when the command
 *    exited, which is the scheduler's: `seq 1 20000` read through the same node-pty without qwen
 *    loses 0 to 14 990 of its 128 894 bytes from run to run, none when the command stays alive
 *    after printing. So the window ends, and starts, at another line in every run (long-output:
 *    lines 7938 to the middle of 17967 in the committed recording, 8957 to the middle of 18986,
 *    8918–18947 and 8334–18363 in the three next). A command item's `aggregatedOutput` that is
 *    such a window of what the cell's facts say the command printed ({@link PrintedOutputs}) is
 *    {@link TERMINAL_WINDOW} (see {@link isTerminalWindow}). What is not such a window — a row
 *    lost or added, a line changed, the output gone — is compared as it is.
 * 6. **Token usage among tool events.** codex 0.171.0 reports a model answer's token counts
 *    (`thread/tokenUsage/updated`) when the answer's stream completes, while the tool calls that
 *    answer dispatched already run as their own tasks: whether the count comes after the tools'
 *    events, among them, or before the first one started is the scheduler's. The committed
 *    turn-tools oracle has the command's count after the command (`item/started`, output,
 *    `item/completed`, then the count); a live run under load (test/fixtures/token-usage-moved/)
 *    has it elsewhere among the answer's tool events. So a count is compared at one place: the
 *    start of the stretch of tool events (rule 2's stretch: nothing else between; a host's
 *    `turn/diff/updated` after a file change counts as a tool's event here) that it ends or sits
 *    in — the first place there that no tool item spans —, its values as they are (the counts are the truth; only the place is the scheduler's).
 *    A usage report an agent streams during the turn (`thread/contextWindowUsage/updated`:
 *    claude-agent-acp's `usage_update` from the model's stream events while Claude Code runs the
 *    answer's tools) can race the same way, but one after the tools is the next answer's (acp-claude
 *    two-tool-calls), so it moves only when a tool item runs at it. Strict: a report never passes
 *    anything but tool events — not a message, a turn event or another report — and codex counts
 *    each answer before the next answer's tools start, so a count that moved past the next
 *    answer's tool items takes them into its stretch, while that answer's own count, which came
 *    after them, no longer walks over them: the lanes still differ. The same for a count moved
 *    before the tools of the answer before it. Blind spot, on the strict side: a count that came
 *    before its answer's tools started, when the count before it also did (two such races in one
 *    turn), is taken for a count after the stretch before it, and differs.
 *
 * Pure: returns new arrays, the input is not modified. Events are normalized thread-lane events
 * (harness/lanes/normalize.ts); anything that is not an item event is left where it is.
 */
import { isRecord } from "../../stack/protocol/json-value.js";
import type { TruthFacts } from "./truth/facts-shape.js";

/** Item types that are the model's own words, never a tool the host runs. */
const MESSAGE_ITEM_TYPES = new Set(["agentMessage", "userMessage", "reasoning", "plan"]);

/** The rules of this module, as the check report names them. */
export const RUN_TO_RUN_RULES = [
  "tool output chunking (an item's output deltas: left out, however many, where the completed item carries the whole output, else compared as their concatenation)",
  "the order of tool items that run together",
  "the merge order of a command's stdout and stderr lines",
  "names a run makes up (UUIDs, spill-file names, times and pids in them) and a retry's jittered delay",
  "where a terminal's window of a long output ends (qwen-code's last 10 030 rows of what it read before the pty closed)",
  "the place of a token usage report among the tool events of its answer (compared at their start; its values as they are)",
] as const;

/**
 * Thread-lane events that report token usage (rule 6), and whether a report with no tool item
 * running at it is its answer's report after its tools (so it walks back over the tools just
 * before it): codex's per-answer count is (turn-tools: each count follows its answer's tools);
 * an ACP agent's streamed `usage_update` is not (claude-agent-acp's after the tools is the next
 * answer's, acp-claude two-tool-calls), so it is held only among tools running at it.
 */
export const USAGE_REPORTS: ReadonlyMap<string, { afterItsTools: boolean }> = new Map([
  ["thread/tokenUsage/updated", { afterItsTools: true }],
  ["thread/contextWindowUsage/updated", { afterItsTools: false }],
]);

/**
 * Events rule 6's walk passes besides tool items' own: codex's `turn/diff/updated`, the turn's
 * diff it sends when a file change has been applied, from the tool's own task (turn-tools: after
 * the fileChange item, before the answer's count).
 */
const TOOL_SIDE_EVENTS: ReadonlySet<string> = new Set(["turn/diff/updated"]);

/**
 * Rule 4's keys whose value a run draws at random, whatever it is: each becomes `"<random>"`.
 * `retry_delay_ms`: Claude Code's `system:api_retry` backoff with jitter (514 ms in one run,
 * 557 in the next, claude-code model-error), which the bridge counts as `provider/unhandled`
 * with the raw event.
 */
export const MADE_UP_KEYS: ReadonlyMap<string, string> = new Map([["retry_delay_ms", "Claude Code's api_retry backoff (jittered)"]]);

/**
 * Rule 4's patterns: each run-made value and what it becomes. Every pattern names the agent it
 * was seen with (the committed lanes of `long-output` hold one of each).
 */
export const MADE_UP_NAMES: ReadonlyArray<{ pattern: RegExp; replace: string; seen: string }> = [
  { pattern: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, replace: "<uuid>", seen: "Claude Code's session folder; copilot's spill file" },
  { pattern: /(?<=\/tool-results\/)[A-Za-z0-9_-]+(?=\.txt)/g, replace: "<name>", seen: "claude-agent-acp's spill file (bfa3e38s6.txt)" },
  { pattern: /\d{13}-copilot-tool-output-\d+-/g, replace: "<ms>-copilot-tool-output-<pid>-", seen: "copilot's spill file" },
  { pattern: /(?<=pi-bash-)[0-9a-f]{16}(?=\.log)/g, replace: "<hex>", seen: "pi's spill file (pi, acp-pi)" },
  // opencode's ids: a prefix, 12 hex digits of its clock, 14 random base-62 characters.
  { pattern: /\b(ses|tool|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}\b/g, replace: "$1_<id>", seen: "opencode's child session (a delegation's childRef) and spill file (tool-output/tool_…)" },
];

/**
 * What the cell's facts say each command printed, by its command line: its stdout then its stderr
 * (harness/compare/truth/facts-shape.ts `CommandFact`), for the commands that ran. Rule 5's
 * reference: without it, rule 5 recognises nothing.
 */
export type PrintedOutputs = ReadonlyMap<string, string>;

/**
 * {@link PrintedOutputs} of a cell's facts: each command that ran, its stdout then its stderr.
 * @param facts the cell's facts (the gate's parsed `cells/<cell>/facts.json`)
 */
export function printedOutputs(facts: Pick<TruthFacts, "steps">): PrintedOutputs {
  const printed = new Map<string, string>();
  for (const step of facts.steps) if (step.kind === "command" && step.ran) printed.set(step.command, `${step.stdout ?? ""}${step.stderr ?? ""}`);
  return printed;
}

/**
 * The rules applied to one lane (see the module comment): rule 6 (before rule 2, whose stretches
 * a usage report ends), rule 2, rule 1, rule 5 (before rule 3, whose sorted lines are no window),
 * rule 3, rule 4.
 * @param events normalized thread-lane events
 * @param printed rule 5's reference (see {@link PrintedOutputs})
 * @param without a rule number (1–6, as {@link RUN_TO_RUN_RULES} counts from 1) left out: what
 *   that rule alone held is seen by folding without it (harness/compare/lane-drift.ts `heldByRules`)
 * @returns a new list; equal lanes give equal lists
 */
export function foldRunToRun(events: readonly unknown[], printed: PrintedOutputs = new Map(), without?: number): unknown[] {
  const rule = (n: number, apply: (lane: unknown[]) => unknown[]) => (lane: unknown[]) => (n === without ? lane : apply(lane));
  const steps = [
    rule(6, placeUsageAmongTools),
    rule(2, groupConcurrentToolItems),
    rule(1, (lane) => joinOutputChunks(dropStreamedProgress(lane))),
    rule(5, (lane) => keepTerminalWindows(lane, printed)),
    rule(3, sortMergedCommandOutput),
    rule(4, (lane) => lane.map(replaceMadeUpNames)),
  ];
  return steps.reduce((lane, step) => step(lane), [...events]);
}

/**
 * Rule 5's terminal: qwen-code 0.15.10's shell tool, once the command has exited, replays what it
 * read from the pty into an xterm of `cols` × `rows` with a scrollback of 10 000 lines and reports
 * its text: at most `scrollback + rows` rows, the cursor's row last (the five real windows of
 * long-output are all 10 030 rows: README, "A fresh re-record of the pinned version").
 */
export const QWEN_TERMINAL = { agent: "qwen-code 0.15.10", cols: 80, rows: 30, scrollback: 10_000 } as const;

/** The text a terminal's window of a long output is compared as (rule 5). */
export const TERMINAL_WINDOW = `⟨${QWEN_TERMINAL.agent}'s terminal: the last ${QWEN_TERMINAL.scrollback + QWEN_TERMINAL.rows} rows it read of what the command printed⟩`;

// The mark a recording's redaction leaves where it cut a long string (harness/recording/redact.ts
// `trimMarker`); what it took out is never seen by a replay, so only its two sides are held.
const CUT_MARK = /⟦redacted: \d+ chars trimmed⟧/g;

/**
 * True when `output` is a window rule 5 allows: the rows {@link QWEN_TERMINAL} held of `printed`
 * when its read stopped early or late. Each part of `output` around a recording's cut mark (at
 * most one) is a stretch of `printed` (the cut also holds qwen's own `[CONTENT TRUNCATED]` mark,
 * so only the parts are compared), in order; the first part starts a line after the first (the
 * terminal scrolled the first lines away); the stretch from its start to the last part's end spans
 * the terminal's scrollback and rows — or, when it ends at a line's end, one row fewer (the read
 * stopped just after that newline, or read it all: the cursor's row was empty) —, every line of it
 * within the terminal's columns (a longer line would wrap into rows this count does not make).
 * Blind spot: a lane that lost exactly its last row when that row was a part of a line (the end
 * then looks like a line's end) is taken for a window; any other row lost or added is not.
 * @param output a command item's `aggregatedOutput`
 * @param printed what the cell's facts say the command printed
 */
export function isTerminalWindow(output: string, printed: string): boolean {
  const parts = output.split(CUT_MARK);
  if (parts.length > 2 || parts.some((part) => part === "")) return false;
  const start = printed.indexOf(parts[0]!);
  if (start <= 0 || printed[start - 1] !== "\n") return false;
  let end = start + parts[0]!.length;
  if (parts.length === 2) {
    const at = printed.indexOf(parts[1]!, end);
    if (at < 0) return false;
    end = at + parts[1]!.length;
  }
  const lines = printed.slice(start, end).split("\n");
  const rows = QWEN_TERMINAL.scrollback + QWEN_TERMINAL.rows;
  // Cut inside a line, the cursor is on that line's row: all rows are text. At a line's end, the
  // newline after it may have been read (the cursor on an empty row after it) or not.
  const midLine = end < printed.length && printed[end] !== "\n";
  return (lines.length === rows || (!midLine && lines.length === rows - 1)) && lines.every((line) => line.length <= QWEN_TERMINAL.cols);
}

/**
 * Rule 5: a command item's `aggregatedOutput` that {@link isTerminalWindow} of what its command
 * printed (`printed`, by the item's `command`) becomes {@link TERMINAL_WINDOW}.
 */
export function keepTerminalWindows(events: readonly unknown[], printed: PrintedOutputs): unknown[] {
  if (printed.size === 0) return [...events];
  return events.map((event) => {
    if (!isRecord(event) || !isRecord(event.item) || event.item.type !== "commandExecution") return event;
    const { command, aggregatedOutput } = event.item;
    const reference = typeof command === "string" ? printed.get(command) : undefined;
    if (reference === undefined || typeof aggregatedOutput !== "string" || !isTerminalWindow(aggregatedOutput, reference)) return event;
    return { ...event, item: { ...event.item, aggregatedOutput: TERMINAL_WINDOW } };
  });
}

/**
 * Rule 1, first part: the output deltas of an item whose `item/completed` carries a string
 * `aggregatedOutput` are left out (none, one or many were streamed, as the clock let them).
 */
export function dropStreamedProgress(events: readonly unknown[]): unknown[] {
  const whole = new Set<string>();
  for (const event of events) {
    if (isRecord(event) && event.type === "item/completed" && isRecord(event.item) && typeof event.item.id === "string" && typeof event.item.aggregatedOutput === "string") whole.add(event.item.id);
  }
  return events.filter((event) => !(isOutputDelta(event) && whole.has(event.itemId)));
}

/** The lines of a text sorted (each line with its newline; a last line without one stays without). */
function sortedLines(text: string): string {
  const lines = text.split(/(?<=\n)/);
  return [...lines].sort().join("");
}

/**
 * Rule 3: a command item's `aggregatedOutput` and the (joined) output delta of a command item,
 * each as its lines sorted.
 */
export function sortMergedCommandOutput(events: readonly unknown[]): unknown[] {
  const commands = new Set<string>();
  for (const event of events) if (isRecord(event) && isRecord(event.item) && event.item.type === "commandExecution" && typeof event.item.id === "string") commands.add(event.item.id);
  return events.map((event) => {
    if (!isRecord(event)) return event;
    if (isRecord(event.item) && event.item.type === "commandExecution" && typeof event.item.aggregatedOutput === "string") {
      return { ...event, item: { ...event.item, aggregatedOutput: sortedLines(event.item.aggregatedOutput) } };
    }
    if (isOutputDelta(event) && commands.has(event.itemId)) return { ...event, delta: sortedLines(event.delta) };
    return event;
  });
}

/** Rule 4 over every string of a value, at any depth. */
export function replaceMadeUpNames(value: unknown): unknown {
  if (typeof value === "string") return MADE_UP_NAMES.reduce((text, { pattern, replace }) => text.replace(pattern, replace), value);
  if (Array.isArray(value)) return value.map(replaceMadeUpNames);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, MADE_UP_KEYS.has(k) ? "<random>" : replaceMadeUpNames(v)]));
  return value;
}

/** The item id an event belongs to (`item.id` of started/completed, `itemId` of a delta), or undefined. */
function itemIdOf(event: unknown): string | undefined {
  if (!isRecord(event) || typeof event.type !== "string" || !event.type.startsWith("item/")) return undefined;
  if (isRecord(event.item) && typeof event.item.id === "string") return event.item.id;
  return typeof event.itemId === "string" ? event.itemId : undefined;
}

/**
 * Rule 1, second part (items without a whole output): consecutive `…/outputDelta` events of one item (same type, same `itemId`, same scope)
 * joined into the first, its `delta` the concatenation.
 */
export function joinOutputChunks(events: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (isOutputDelta(event) && isOutputDelta(last) && last.type === event.type && last.itemId === event.itemId && JSON.stringify(last.scope) === JSON.stringify(event.scope)) {
      out[out.length - 1] = { ...last, delta: `${last.delta}${event.delta}` };
      continue;
    }
    out.push(event);
  }
  return out;
}

function isOutputDelta(event: unknown): event is Record<string, unknown> & { type: string; itemId: string; delta: string } {
  return isRecord(event) && typeof event.type === "string" && event.type.endsWith("/outputDelta") && typeof event.itemId === "string" && typeof event.delta === "string";
}

/**
 * Rule 6: each usage report ({@link USAGE_REPORTS}) moved back to the start of the stretch of
 * tool events it ends or sits in (see the module comment), its values untouched; every other event
 * keeps its order. The walk back from the report passes tool items' events and
 * {@link TOOL_SIDE_EVENTS} and stops at anything else (a message's event, a turn event, another
 * report at its place in the run); the report lands at the earliest place of what it passed that
 * no tool item spans (an item that started before it stays whole on one side). It stays where it
 * is when there is no such place, and when no tool item runs at a report that is not its
 * answer's report after its tools ({@link USAGE_REPORTS}). A tool item is an item whose type is
 * not a message's (as rule 2).
 * @param events normalized thread-lane events
 * @returns a new list of the same events
 */
export function placeUsageAmongTools(events: readonly unknown[]): unknown[] {
  const kinds = itemKinds(events);
  const toolItem = (event: unknown): string | undefined => {
    const id = itemIdOf(event);
    return id !== undefined && kinds.get(id)?.tool === true ? id : undefined;
  };
  // Every walk is made on the lane as it came, so a report never walks past another report's
  // place in the run (which another report moved away from would uncover).
  const moveTo = new Map<number, unknown[]>();
  const moved = new Set<number>();
  // Tool items started and not completed before the event at `i`.
  const running = new Set<string>();
  events.forEach((event, i) => {
    const id = toolItem(event);
    if (id !== undefined && isRecord(event)) {
      if (event.type === "item/started") running.add(id);
      else if (event.type === "item/completed") running.delete(id);
      return;
    }
    const report = isRecord(event) && typeof event.type === "string" ? USAGE_REPORTS.get(event.type) : undefined;
    if (report === undefined || (running.size === 0 && !report.afterItsTools)) return;
    const at = startOfToolStretch(events, i, new Set(running), toolItem);
    if (at === undefined) return;
    moved.add(i);
    moveTo.set(at, [...(moveTo.get(at) ?? []), event]);
  });
  return events.flatMap((event, i) => [...(moveTo.get(i) ?? []), ...(moved.has(i) ? [] : [event])]);
}

/**
 * Rule 6's walk back from the report at `from` over the stretch of tool events before it: the
 * earliest tool item's event in that stretch before which no tool item spans (every item with an event between it and
 * the report, and every item `running` at the report, started there), or undefined (stay) when
 * that is the report's own place.
 */
function startOfToolStretch(events: readonly unknown[], from: number, running: Set<string>, toolItem: (event: unknown) => string | undefined): number | undefined {
  // Items with an event passed (or running at the report) whose item/started is not passed yet.
  const open = new Set(running);
  let start: number | undefined;
  for (let j = from - 1; j >= 0; j--) {
    const event = events[j];
    if (!isRecord(event)) break;
    const id = toolItem(event);
    if (id === undefined) {
      // Passed, never landed before: the report's place is judged by the tool items around it.
      if (typeof event.type === "string" && TOOL_SIDE_EVENTS.has(event.type)) continue;
      break;
    }
    if (event.type === "item/started") open.delete(id);
    else open.add(id);
    if (open.size === 0) start = j;
  }
  return start;
}

/** Each item's id → whether it is a tool (its type is not a message's) and its content key (the first started or completed item without its id). */
function itemKinds(events: readonly unknown[]): Map<string, { tool: boolean; key: string }> {
  const kinds = new Map<string, { tool: boolean; key: string }>();
  for (const event of events) {
    if (!isRecord(event) || !isRecord(event.item) || typeof event.item.id !== "string" || typeof event.item.type !== "string") continue;
    if (kinds.has(event.item.id)) continue;
    const { id: _id, ...content } = event.item;
    kinds.set(event.item.id, { tool: !MESSAGE_ITEM_TYPES.has(event.item.type), key: JSON.stringify(content) });
  }
  return kinds;
}

/**
 * Rule 2: in each maximal stretch of consecutive events that all belong to tool items, the
 * events grouped by item (each item's in their own order) and the groups sorted by the item's
 * content key (its started item without `id`; a stable sort, so equal keys keep lane order).
 */
export function groupConcurrentToolItems(events: readonly unknown[]): unknown[] {
  // Which items are tools: known from their item/started or item/completed anywhere in the lane.
  const kinds = itemKinds(events);
  const toolItem = (event: unknown): string | undefined => {
    const id = itemIdOf(event);
    return id !== undefined && kinds.get(id)?.tool === true ? id : undefined;
  };
  const out: unknown[] = [];
  let stretch: unknown[] = [];
  const flush = () => {
    if (stretch.length > 0) out.push(...orderByItem(stretch, toolItem, kinds));
    stretch = [];
  };
  for (const event of events) {
    if (toolItem(event) !== undefined) stretch.push(event);
    else {
      flush();
      out.push(event);
    }
  }
  flush();
  return out;
}

function orderByItem(stretch: readonly unknown[], toolItem: (event: unknown) => string | undefined, kinds: ReadonlyMap<string, { key: string }>): unknown[] {
  const groups = new Map<string, unknown[]>();
  for (const event of stretch) {
    const id = toolItem(event)!;
    const group = groups.get(id);
    if (group) group.push(event);
    else groups.set(id, [event]);
  }
  if (groups.size < 2) return [...stretch];
  const ordered = [...groups.entries()].sort(([a], [b]) => {
    const ka = kinds.get(a)!.key;
    const kb = kinds.get(b)!.key;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return ordered.flatMap(([, group]) => group);
}
