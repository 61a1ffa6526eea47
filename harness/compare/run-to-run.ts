/**
 * What differs between two live runs of one cell by the machine's scheduling, never by the agent
 * or the bridge (issue 41 build point 5, "noise is subtracted by design"): the rules that hold a
 * thread lane recorded in one run against an oracle made from another run of the same cell (a
 * fresh re-record checked against the committed oracles, README "An agent upgrade"). They are
 * applied to both lanes alike and only to that comparison: a recording's replay is still held
 * event for event against its own bridge lane, so a bridge that re-chunks or reorders is caught
 * there.
 *
 * Rules 1–2 are about order and chunks, 3–4 about values:
 *
 * 1. **Output chunking.** A tool's streamed output (`…/outputDelta`) arrives in the chunks the
 *    pipe happened to deliver: codex 0.171.0 sends a command's three lines as three deltas in one
 *    run and as one in the next (cells command-fails, exact-bytes), and omp streams a long output
 *    as windows of its tail, as many and as far as the clock let it (long-output). When the
 *    item's `item/completed` carries the whole output (`aggregatedOutput`), its deltas are
 *    progress: they are compared as one delta, where the first was, saying only that output was
 *    streamed (the whole output is compared in the completed item). Otherwise consecutive output
 *    deltas of one item are compared as one delta carrying their concatenation: every byte, in
 *    order, still counts.
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
 *
 * Pure: returns new arrays, the input is not modified. Events are normalized thread-lane events
 * (harness/lanes/normalize.ts); anything that is not an item event is left where it is.
 */
import { isRecord } from "../../stack/protocol/json-value.js";

/** Item types that are the model's own words, never a tool the host runs. */
const MESSAGE_ITEM_TYPES = new Set(["agentMessage", "userMessage", "reasoning", "plan"]);

/** The rules of this module, as the check report names them. */
export const RUN_TO_RUN_RULES = [
  "tool output chunking (an item's output deltas as one: a mark where the completed item carries the whole output, else their concatenation)",
  "the order of tool items that run together",
  "the merge order of a command's stdout and stderr lines",
  "names a run makes up (UUIDs, spill-file names, times and pids in them) and a retry's jittered delay",
] as const;

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
 * Both rules applied to one lane (see the module comment): rule 2, then rule 1 over its result.
 * @param events normalized thread-lane events
 * @returns a new list; equal lanes give equal lists
 */
export function foldRunToRun(events: readonly unknown[]): unknown[] {
  return sortMergedCommandOutput(joinOutputChunks(collapseStreamedProgress(groupConcurrentToolItems(events)))).map(replaceMadeUpNames);
}

/** The delta text that stands for an item's streamed progress (rule 1). */
export const STREAMED_PROGRESS = "⟨output streamed; the whole output is in the completed item⟩";

/**
 * Rule 1, first part: the output deltas of an item whose `item/completed` carries a string
 * `aggregatedOutput` become one delta at the first one's place, its text {@link STREAMED_PROGRESS}.
 */
export function collapseStreamedProgress(events: readonly unknown[]): unknown[] {
  const whole = new Set<string>();
  for (const event of events) {
    if (isRecord(event) && event.type === "item/completed" && isRecord(event.item) && typeof event.item.id === "string" && typeof event.item.aggregatedOutput === "string") whole.add(event.item.id);
  }
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const event of events) {
    if (isOutputDelta(event) && whole.has(event.itemId)) {
      if (!seen.has(event.itemId)) out.push({ ...event, delta: STREAMED_PROGRESS });
      seen.add(event.itemId);
      continue;
    }
    out.push(event);
  }
  return out;
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
 * Rule 2: in each maximal stretch of consecutive events that all belong to tool items, the
 * events grouped by item (each item's in their own order) and the groups sorted by the item's
 * content key (its started item without `id`; a stable sort, so equal keys keep lane order).
 */
export function groupConcurrentToolItems(events: readonly unknown[]): unknown[] {
  // Which items are tools: known from their item/started or item/completed anywhere in the lane.
  const kinds = new Map<string, { tool: boolean; key: string }>();
  for (const event of events) {
    if (!isRecord(event) || !isRecord(event.item) || typeof event.item.id !== "string" || typeof event.item.type !== "string") continue;
    if (kinds.has(event.item.id)) continue;
    const { id: _id, ...content } = event.item;
    kinds.set(event.item.id, { tool: !MESSAGE_ITEM_TYPES.has(event.item.type), key: JSON.stringify(content) });
  }
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
