/**
 * A thread lane folded into turns and completed items (issue 39, `parity compare`): what two
 * bridges of the same CLI must agree on, with what legitimately differs between them normalized
 * away — ids and turn numbering (turns and items are positions), delta chunking (completed items
 * are compared, consecutive agent messages joined, streamed output concatenated only where the
 * completed item has none), presentation and other bridge decoration (`presentation`, extension
 * state such as model catalogs and command lists, `turn/input/accepted`), durations (their
 * presence is compared, never their value), model pricing (cost fields), and a turn diff that
 * only repeats the hunks of the turn's own edits (Codex's `turn/diff/updated`: a sum the lane
 * already carries item by item, which a CLI without turn diffs has no reason to send).
 */
import { isRecord } from "../../../stack/protocol/json-value.js";
import { formatAddress, laneAddresses } from "../address.js";

/** How items align: the same kind of step in either lane, whatever item type each bridge chose. */
export type StepKind = "message" | "reasoning" | "command" | "read" | "edit" | "delegation" | `tool:${string}`;

/** One completed item, normalized: its kind and its comparable fields (absent = not there). */
export interface FoldedItem {
  kind: StepKind;
  /** 1-based among the turn's items of the same kind: `command 2`. */
  ordinal: number;
  /** Field name → value; `""` and `null` are absent. */
  fields: Record<string, unknown>;
  /** The lane address of its `item/completed` (`turn 1 / fileRead 1 / item/completed`), as the truth judge names items. */
  at: string;
}

/** One turn, normalized. */
export interface FoldedTurn {
  /** 1-based position in the lane. */
  number: number;
  items: FoldedItem[];
  /** Turn-level data: `status`, `error`, `modelError`, `httpStatus`, `inputTokens`, `outputTokens`, `contextWindow`, `turnDiff`, `restored`. */
  fields: Record<string, unknown>;
}

/** A lane as turns. */
export interface FoldedLane {
  turns: FoldedTurn[];
}

const DECORATION = new Set(["id", "presentation", "type"]);

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

// File header lines of a unified diff: path spellings and git's mode lines, not changes (`diff
// --git`, `index`, `---`, `+++`, git's extended headers, jsdiff's `Index:` and `====` separator).
const DIFF_HEADER = /^(diff --git |index |Index: |--- |\+\+\+ |={20,}$|(new|deleted) file mode |old mode |new mode |similarity index |rename (from|to) )/;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*$/;

/**
 * The hunks of a unified diff: its file header lines dropped, and each hunk header spelled with
 * both counts (`@@ -0,0 +1 @@` is `@@ -0,0 +1,1 @@`: a count of 1 may be left out) and without
 * the section text after it.
 */
export function diffHunks(diff: string): string {
  return diff
    .split("\n")
    .filter((line) => !DIFF_HEADER.test(line))
    .map((line) => line.replace(HUNK_HEADER, (_all, a: string, b: string | undefined, c: string, d: string | undefined) => `@@ -${a},${b ?? "1"} +${c},${d ?? "1"} @@`))
    .join("\n");
}

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const parts = value.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : undefined)).filter((t): t is string => t !== undefined);
    return parts.length > 0 ? parts.join("") : undefined;
  }
  if (isRecord(value)) return textOf(value.content) ?? (typeof value.text === "string" ? value.text : undefined);
  return undefined;
}

/** The step kind and the comparable fields of one completed item (`deltas`: its streamed output). */
function foldItem(item: Record<string, unknown>, deltas: string | undefined): { kind: StepKind; fields: Record<string, unknown> } {
  const type = String(item.type);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) if (!DECORATION.has(key) && present(value)) fields[key] = value;
  switch (type) {
    case "agentMessage":
      return { kind: "message", fields };
    case "reasoning":
      return { kind: "reasoning", fields };
    case "commandExecution": {
      const { aggregatedOutput, durationMs, ...rest } = fields;
      return {
        kind: "command",
        fields: {
          ...rest,
          ...(present(aggregatedOutput) ? { output: aggregatedOutput } : present(deltas) ? { output: deltas } : {}),
          ...(durationMs !== undefined ? { durationMs: "(present)" } : {}),
        },
      };
    }
    case "fileRead": {
      // What the read returned: the item's resultText (the bytes the agent sent), else its
      // content, else the output streamed while it ran (native codex reads stream through a command).
      const { content, resultText, ...rest } = fields;
      const output = (typeof resultText === "string" ? resultText : undefined) ?? textOf(content) ?? deltas;
      return { kind: "read", fields: { ...rest, ...(present(output) ? { output } : {}) } };
    }
    case "fileChange": {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      const { changes: _changes, ...rest } = fields;
      const out: Record<string, unknown> = { ...rest };
      changes.forEach((change, index) => {
        if (!isRecord(change)) return;
        const at = changes.length === 1 ? "change" : `change[${index}]`;
        if (present(change.path)) out[`${at}.path`] = change.path;
        if (present(change.kind)) out[`${at}.kind`] = isRecord(change.kind) ? change.kind.type : change.kind;
        if (typeof change.diff === "string" && change.diff !== "") out[`${at}.hunks`] = diffHunks(change.diff);
      });
      return { kind: "edit", fields: out };
    }
    case "delegation":
      return { kind: "delegation", fields };
    case "toolCall": {
      // An adapter that reports a shell call as a generic tool (pi-acp: kind "other", title bash)
      // still ran a command: it aligns with the native command item, and its fields say what it carries.
      const args = isRecord(item.arguments) ? item.arguments : {};
      const output = textOf(item.result) ?? (typeof item.error === "string" ? item.error : undefined);
      if (typeof args.command === "string") {
        return { kind: "command", fields: { command: args.command, ...(present(item.status) ? { status: item.status } : {}), ...(present(output) ? { output } : {}) } };
      }
      const { arguments: argumentsValue, result: _result, error: _error, tool, ...rest } = fields;
      return { kind: `tool:${String(tool)}`, fields: { ...rest, ...(argumentsValue !== undefined ? { arguments: argumentsValue } : {}), ...(present(output) ? { output } : {}) } };
    }
    default:
      return { kind: `tool:${type}`, fields };
  }
}

function turnKey(event: Record<string, unknown>): string | undefined {
  const scope = event.scope;
  return isRecord(scope) && typeof scope.turnId === "string" ? scope.turnId : undefined;
}

/**
 * Folds a normalized thread lane (an oracle's events, in order) into turns. Events outside any
 * turn are thread-level: a bridge's warning that a session could not be restored marks the next
 * turn `restored: false` (session state); model catalogs and command lists are decoration.
 */
export function foldLane(events: readonly unknown[]): FoldedLane {
  const addresses = laneAddresses(events);
  const turns: FoldedTurn[] = [];
  const byKey = new Map<string, FoldedTurn>();
  const deltas = new Map<string, string>();
  // Where each item started (its item/started, else its first event): consecutive messages are
  // joined in the order their text streamed, not the order they completed.
  const startedAt = new Map<string, number>();
  const messageStart = new WeakMap<FoldedItem, number>();
  let unrestored = false;
  const turnOf = (event: Record<string, unknown>): FoldedTurn | undefined => {
    const key = turnKey(event);
    return key === undefined ? undefined : byKey.get(key);
  };
  for (const [index, raw] of events.entries()) {
    if (!isRecord(raw)) continue;
    const event = raw;
    const type = String(event.type);
    if (type === "turn/started") {
      const key = turnKey(event) ?? `#turn${turns.length + 1}`;
      const turn: FoldedTurn = { number: turns.length + 1, items: [], fields: {} };
      if (unrestored) turn.fields.restored = false;
      unrestored = false;
      turns.push(turn);
      byKey.set(key, turn);
      continue;
    }
    if (type === "provider/warning" && typeof event.summary === "string" && /could not restore|fresh session|without .*history/i.test(event.summary)) {
      const turn = turnOf(event);
      if (turn !== undefined) turn.fields.restored = false;
      else unrestored = true;
      continue;
    }
    const turn = turnOf(event);
    if (turn === undefined) continue;
    const itemId = typeof event.itemId === "string" ? event.itemId : isRecord(event.item) && typeof event.item.id === "string" ? event.item.id : undefined;
    if (itemId !== undefined && !startedAt.has(itemId)) startedAt.set(itemId, index);
    if (type.endsWith("/outputDelta") && typeof event.itemId === "string" && typeof event.delta === "string") {
      deltas.set(event.itemId, (deltas.get(event.itemId) ?? "") + event.delta);
    } else if (type === "item/completed" && isRecord(event.item)) {
      const id = typeof event.item.id === "string" ? event.item.id : "";
      const folded = foldItem(event.item, deltas.get(id));
      const last = turn.items.at(-1);
      const start = startedAt.get(id) ?? index;
      // Delta chunking: one reply may reach a lane as several message items in a row. They are
      // joined in the order they started: Codex completes a message a steer cut short after the
      // message that answers the steer (lanes/codex/steer.json), codex-acp streams both as one.
      if (folded.kind === "message" && last?.kind === "message") {
        const lastStart = messageStart.get(last) ?? start;
        const [first, second] = start < lastStart ? [folded.fields.text, last.fields.text] : [last.fields.text, folded.fields.text];
        last.fields.text = `${String(first ?? "")}${String(second ?? "")}`;
        messageStart.set(last, Math.min(start, lastStart));
        continue;
      }
      const ordinal = turn.items.filter((item) => item.kind === folded.kind).length + 1;
      const item: FoldedItem = { kind: folded.kind, ordinal, fields: folded.fields, at: formatAddress(addresses[index]!) };
      if (folded.kind === "message") messageStart.set(item, start);
      turn.items.push(item);
    } else if (type === "turn/completed") {
      if (present(event.status)) turn.fields.status = event.status;
      const error = isRecord(event.error) ? event.error.message : undefined;
      if (present(error)) turn.fields.error = "(present)";
    } else if (type === "provider/error") {
      turn.fields.modelError = "(present)";
      const info = isRecord(event.errorInfo) ? event.errorInfo : undefined;
      if (info !== undefined && present(info.httpStatusCode)) turn.fields.httpStatus = info.httpStatusCode;
      if (info !== undefined && present(info.category)) turn.fields.errorCategory = info.category;
    } else if (type === "thread/tokenUsage/updated" && isRecord(event.tokenUsage)) {
      const total = isRecord(event.tokenUsage.total) ? event.tokenUsage.total : {};
      if (typeof total.inputTokens === "number") turn.fields.inputTokens = total.inputTokens;
      if (typeof total.outputTokens === "number") turn.fields.outputTokens = total.outputTokens;
      if (typeof event.tokenUsage.modelContextWindow === "number") turn.fields.contextWindow = event.tokenUsage.modelContextWindow;
    } else if (type === "thread/contextWindowUsage/updated" && isRecord(event.contextWindowUsage)) {
      if (typeof event.contextWindowUsage.modelContextWindow === "number") turn.fields.contextWindow = event.contextWindowUsage.modelContextWindow;
    } else if (type === "turn/diff/updated" && typeof event.diff === "string") {
      turn.fields.turnDiff = diffHunks(event.diff);
    }
  }
  for (const turn of turns) if (turn.fields.turnDiff !== undefined && sameHunks(String(turn.fields.turnDiff), editHunks(turn))) delete turn.fields.turnDiff;
  return { turns };
}

/** The hunks of the turn's edits, in order. */
function editHunks(turn: FoldedTurn): string[] {
  return turn.items
    .filter((item) => item.kind === "edit")
    .flatMap((item) =>
      Object.entries(item.fields)
        .filter(([key]) => key.endsWith(".hunks"))
        .map(([, value]) => String(value)),
    );
}

function sameHunks(turnDiff: string, edits: readonly string[]): boolean {
  const lines = (text: string) => text.split("\n").filter((line) => line !== "");
  return edits.length > 0 && JSON.stringify(lines(turnDiff)) === JSON.stringify(edits.flatMap(lines));
}
