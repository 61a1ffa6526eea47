/**
 * The differences of two lanes of the same cell recorded through two bridges of one CLI (issue
 * 39): turns aligned by position, items inside a turn by step kind (the LCS of `../lcs.ts`),
 * fields compared after `fold.ts`'s normalization. Each difference has a class, a kind relative
 * to side A (the native bridge): **lost** (A has the datum, B lacks it), **changed** (both, not
 * equal), **invented** (B has it, A lacks it), and a cause read from the agent-side lanes
 * (`evidence.ts`): **bridge** (a side's agent sent the datum and that side's lane lacks it; the
 * seq is named) or **adapter** (the agent never sent it, or sent something else).
 */
import { diffSequences } from "../lcs.js";
import type { Evidence, EvidenceHit, EvidenceLeaf, LeafTest, TurnWindow } from "./evidence.js";
import type { FoldedItem, FoldedLane, FoldedTurn } from "./fold.js";
import type { TruthFinding } from "../truth/judge.js";

/** The classes of difference, in report order. */
export const DIFFERENCE_CLASSES = ["output", "exit code", "command metadata", "diff", "usage", "message", "flow", "model error", "session state"] as const;
/** One class of difference. */
export type DifferenceClass = (typeof DIFFERENCE_CLASSES)[number];
/** Relative to side A. */
export type DifferenceKind = "lost" | "changed" | "invented";

/** Why a difference exists. */
export interface DifferenceCause {
  /** `bridge`: the agent sent the datum (at `evidence`) and `provider`'s lane lacks it; `adapter`: no agent-side line carries it. */
  kind: "bridge" | "adapter";
  /** The provider whose bridge or agent it is. */
  provider: string;
  /** The agent-side line that proves a bridge cause (or the adapter's own contrary answer). */
  evidence?: EvidenceHit;
  /** The fact (`read#1.content`) the truth judge finds this side's bridge untrue on, when that is the cause. */
  truth?: string;
}

/** One difference between the two lanes of a cell. */
export interface PairDifference {
  cell: string;
  class: DifferenceClass;
  kind: DifferenceKind;
  /** Stable address: `turn 1 / command 1: cwd`, `turn 2: inputTokens`, `turn 1 / message 2`. */
  address: string;
  /** The field compared (`cwd`), or `item` / `turn` for a whole item or turn. */
  field: string;
  /** A's and B's values (absent: undefined). */
  a?: unknown;
  b?: unknown;
  cause: DifferenceCause;
}

/**
 * One side of a cell: provider id, folded lane, agent-side evidence, and the untruths the truth
 * judge (`../truth/judge.ts`) found in its lane against the cell's facts (none when the cell has
 * no facts).
 */
export interface PairSide {
  provider: string;
  lane: FoldedLane;
  evidence: Evidence;
  untruths?: readonly TruthFinding[];
}

/** The two sides of a cell. */
export interface PairSides {
  a: PairSide;
  b: PairSide;
}

/** True when a truth fact (`command#1.exit`, `turn#1.error`) speaks of the pair field `field`. */
function factCovers(fact: string, field: string): boolean {
  switch (/\.([a-z]+)$/.exec(fact)?.[1]) {
    case "output":
    case "content":
      return field === "output";
    case "exit":
      return field === "exitCode";
    case "diff":
    case "applied":
      return /^change(\[\d+\])?\.hunks$/.test(field);
    case "created":
      return /^change(\[\d+\])?\.kind$/.test(field);
    case "approval":
      return field === "approvalStatus";
    case "item":
      return field === "item";
    case "path":
      return field === "path" || /^change(\[\d+\])?\.path$/.test(field);
    case "end":
      return field === "status";
    case "error":
      return field === "error" || field === "modelError" || field === "httpStatus" || field === "errorCategory";
    default:
      return false;
  }
}

/**
 * The untruth of `side`'s bridge on `field` of the item at `itemAt` (its lane address) or, for a
 * turn field, of turn `turn`: the truth judge's verdict comes first, so a difference our bridge
 * makes is never taken for an adapter's (and never allowed) where the facts show it.
 */
function bridgeUntruth(side: PairSide, turn: number, itemAt: string | undefined, field: string): TruthFinding | undefined {
  return side.untruths?.find(
    (f) => f.cause === "bridge" && factCovers(f.fact, field) && (itemAt !== undefined ? f.item === itemAt : f.fact.startsWith("turn#") && f.item?.startsWith(`turn ${turn} /`) === true),
  );
}

function truthCause(side: PairSide, finding: TruthFinding): DifferenceCause {
  const hit = finding.evidence[0];
  return { kind: "bridge", provider: side.provider, truth: finding.fact, ...(hit !== undefined ? { evidence: { dir: hit.dir, seq: hit.seq, path: hit.path } } : {}) };
}

const FIELD_CLASS: Record<string, DifferenceClass> = {
  text: "message",
  output: "output",
  exitCode: "exit code",
  command: "command metadata",
  cwd: "command metadata",
  durationMs: "command metadata",
  path: "command metadata",
  cmd: "command metadata",
  arguments: "command metadata",
  status: "flow",
  approvalStatus: "flow",
  error: "model error",
  modelError: "model error",
  httpStatus: "model error",
  errorCategory: "model error",
  inputTokens: "usage",
  outputTokens: "usage",
  contextWindow: "usage",
  turnDiff: "diff",
  restored: "session state",
};

/** The class of a field (`change.hunks` and the other `change…` fields are `diff`). */
export function classOf(field: string): DifferenceClass {
  if (field.startsWith("change")) return "diff";
  return FIELD_CLASS[field] ?? "flow";
}

// Keys whose strings are not what a command printed: file texts of an edit, the call's own
// command line and labels. An output is looked for in the result fields of the agent's lines.
const NOT_OUTPUT_KEYS = new Set(["oldText", "newText", "old_string", "new_string", "unified_diff", "diff", "title", "command", "cmd", "description", "partial_json", "file_path", "path"]);
const OUTPUT_KEY = /stdout|stderr|output|text|content|result|^$/i;
const NOT_WORDS_KEYS = new Set(["command", "cmd", "title", "description", "partial_json"]);

function agentSent(leaf: EvidenceLeaf): boolean {
  return leaf.dir === "provider→bridge";
}

// A result trailer an adapter appends to a command's output ("\n\nCommand exited with code 3"):
// the datum a bridge reads into the exit code, not output.
const EXIT_TRAILER = /^\s*(?:command\s+)?(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit_?code)[:=]?\s*-?\d+\s*$/i;

/**
 * The leaf test that finds `value` of `field` in an agent's lines. `exact` (a changed value): the
 * agent must have sent this very value — a token count or output it sent otherwise is no proof
 * that the bridge had this one.
 */
function testFor(field: string, value: unknown, exact = false): LeafTest | undefined {
  const base = field.replace(/^change(\[\d+\])?\./, "");
  if (value === "(present)") {
    if (field === "durationMs") return (l) => agentSent(l) && /\.(duration\w*|elapsed\w*)(\.|\[|$)/i.test(l.path) && l.value !== null;
    if (field === "error" || field === "modelError") return (l) => agentSent(l) && /^\$\.error\./.test(l.path);
  }
  if (field === "inputTokens" || field === "outputTokens") {
    const re = field === "inputTokens" ? /^(input_?tokens|inputTokens|prompt_tokens)$/i : /^(output_?tokens|outputTokens|completion_tokens)$/i;
    return (l) => agentSent(l) && re.test(l.key) && typeof l.value === "number" && (!exact || l.value === value);
  }
  if (field === "exitCode" && typeof value === "number") {
    const words = new RegExp(`(?:exit(?:ed)?\\s+(?:with\\s+)?(?:code|status)|exit_?code|return\\s*code)[:=]?\\s*${value}\\b`, "i");
    // Words count where the agent reports a result (a trailer such as "Command exited with code 3"),
    // never in the command line it ran ("exit 3") or the model's own text it relays.
    return (l) =>
      agentSent(l) &&
      ((/exit_?code|exit_?status/i.test(l.key) && l.value === value) || (typeof l.value === "string" && !NOT_WORDS_KEYS.has(l.key) && !/update\.content\.text$/.test(l.path) && words.test(l.value)));
  }
  if (field === "approvalStatus") {
    // The bridge's answer to the agent's approval request: ACP's outcome/optionId, Claude Code's
    // behavior, Codex's decision. A refusal never proves "approved".
    const refusal = /cancel|deny|denied|decline|reject/i;
    const approves = value === "approved";
    return (l) => l.dir === "bridge→provider" && /^(outcome|optionId|behavior|decision)$/.test(l.key) && typeof l.value === "string" && (approves ? !refusal.test(l.value) : refusal.test(l.value));
  }
  if (field === "restored")
    return (l) => agentSent(l) && (/^\$\.error\./.test(l.path) || (typeof l.value === "string" && /not found|could not|no such session|failed to (load|resume)/i.test(l.value)));
  if (field === "httpStatus" && typeof value === "number") {
    // An error answer's status, or its number inside the error the agent returned; never the
    // model's text the agent relays as a message.
    return (l) => agentSent(l) && ((/status/i.test(l.key) && l.value === value) || (/^\$\.error\./.test(l.path) && typeof l.value === "string" && new RegExp(`\\b${value}\\b`).test(l.value)));
  }
  if (field === "contextWindow") return (l) => agentSent(l) && /^(size|context_?window|contextWindow|modelContextWindow)$/i.test(l.key) && l.value === value;
  if (typeof value === "number") return (l) => agentSent(l) && l.value === value;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (base === "hunks" || field === "turnDiff") {
    const header = value.split("\n").find((line) => line.startsWith("@@"));
    return (l) => agentSent(l) && typeof l.value === "string" && (l.value.includes(value) || (header !== undefined && l.value.includes(header)));
  }
  if (field === "output") {
    const isOutput = (l: EvidenceLeaf): l is EvidenceLeaf & { value: string } => agentSent(l) && typeof l.value === "string" && !NOT_OUTPUT_KEYS.has(l.key) && OUTPUT_KEY.test(l.key);
    // Changed: the agent sent this output as a whole (or with only an exit trailer after it). An
    // output the agent wrapped in more of its own words ("Command timed out…", a code fence) is
    // what the agent said, relayed as said.
    if (exact) return (l) => isOutput(l) && (l.value === value || (l.value.startsWith(value) && EXIT_TRAILER.test(l.value.slice(value.length))));
    return (l) => isOutput(l) && l.value.includes(value);
  }
  if (field === "cwd") return (l) => agentSent(l) && /^(cwd|workdir|working_?directory)$/i.test(l.key) && l.value === value;
  if (base === "path" || field === "command" || field === "cmd") return (l) => agentSent(l) && l.value === value;
  if (field === "status" || base === "kind" || field === "errorCategory") return undefined;
  return (l) => agentSent(l) && typeof l.value === "string" && l.value.includes(value);
}

/**
 * Turn `turn`'s window of `side`'s agent-side lanes, when its turn starts are exactly its lane's
 * turns (a steer sent as a second prompt, or a turn the bridge began without one, leaves the
 * whole recording searched).
 */
function windowOf(side: PairSides["a"], turn: number | undefined): TurnWindow | undefined {
  const starts = side.evidence.turnStarts;
  if (turn === undefined || starts.length !== side.lane.turns.length || starts.length === 0) return undefined;
  return { from: starts[turn - 1]!, to: starts[turn] ?? Number.POSITIVE_INFINITY };
}

function searchIn(side: PairSides["a"], field: string, value: unknown, anchors: readonly string[] = [], turn?: number, exact = false): EvidenceHit | undefined {
  const test = testFor(field, value, exact);
  return test === undefined ? undefined : side.evidence.find(test, anchors, windowOf(side, turn));
}

function causeOf(sides: PairSides, kind: DifferenceKind, field: string, a: unknown, b: unknown, anchors: readonly string[], turn: number, at: { a?: string; b?: string } = {}): DifferenceCause {
  const A = sides.a;
  const B = sides.b;
  // The facts decide first: a side whose bridge the truth judge finds untrue on this datum caused it.
  const untrueB = bridgeUntruth(B, turn, at.b, field);
  if (untrueB !== undefined) return truthCause(B, untrueB);
  const untrueA = bridgeUntruth(A, turn, at.a, field);
  if (untrueA !== undefined) return truthCause(A, untrueA);
  const search = (side: PairSides["a"], f: string, value: unknown) => searchIn(side, f, value, anchors, turn);
  if (field === "restored") {
    const hit = search(B, field, b);
    return { kind: "adapter", provider: B.provider, ...(hit !== undefined ? { evidence: hit } : {}) };
  }
  if (kind === "lost") {
    const hit = search(B, field, a);
    return hit !== undefined ? { kind: "bridge", provider: B.provider, evidence: hit } : { kind: "adapter", provider: B.provider };
  }
  if (kind === "invented") {
    const own = search(B, field, b);
    if (own !== undefined) {
      const other = search(A, field, b);
      return other !== undefined ? { kind: "bridge", provider: A.provider, evidence: other } : { kind: "adapter", provider: B.provider, evidence: own };
    }
    // Nothing B's agent sent says it: B's bridge made it up, unless A's agent had it all along.
    const other = search(A, field, b);
    return other !== undefined ? { kind: "bridge", provider: A.provider, evidence: other } : { kind: "bridge", provider: B.provider };
  }
  const exact = (side: PairSides["a"], f: string, value: unknown) => searchIn(side, f, value, anchors, turn, true);
  const inB = exact(B, field, a);
  if (inB !== undefined) return { kind: "bridge", provider: B.provider, evidence: inB };
  const inA = exact(A, field, b);
  if (inA !== undefined) return { kind: "bridge", provider: A.provider, evidence: inA };
  return { kind: "adapter", provider: B.provider };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compareFields(
  sides: PairSides,
  cell: string,
  turn: number,
  where: string,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  out: PairDifference[],
  defaults: Record<string, unknown> = {},
  at: { a?: string; b?: string } = {},
): void {
  const anchors = [a.command, b.command, a.path, b.path, a["change.path"], b["change.path"]].filter((v): v is string => typeof v === "string");
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const field of fields) {
    const va = a[field] ?? defaults[field];
    const vb = b[field] ?? defaults[field];
    if (same(va, vb)) continue;
    const kind: DifferenceKind = !present(vb) ? "lost" : !present(va) ? "invented" : "changed";
    out.push({
      cell,
      class: classOf(field),
      kind,
      address: `${where}: ${field}`,
      field,
      ...(present(va) ? { a: va } : {}),
      ...(present(vb) ? { b: vb } : {}),
      cause: causeOf(sides, kind, field, va, vb, anchors, turn, at),
    });
  }
}

/** The value that names a whole item in evidence: its text, command, path or output. */
function itemKey(item: FoldedItem): { field: string; value: unknown } {
  for (const field of ["text", "command", "path", "output"]) if (present(item.fields[field])) return { field, value: item.fields[field] };
  return { field: "item", value: undefined };
}

function itemClass(item: FoldedItem): DifferenceClass {
  return item.kind === "message" || item.kind === "reasoning" ? "message" : "flow";
}

function compareTurn(sides: PairSides, cell: string, ta: FoldedTurn, tb: FoldedTurn, out: PairDifference[]): void {
  const where = `turn ${ta.number}`;
  const ka = ta.items.map((item) => item.kind);
  const kb = tb.items.map((item) => item.kind);
  const script = diffSequences(ka, kb);
  const pairs: Array<[number, number]> = script.ops.filter((op) => op.kind === "equal").map((op) => [op.oldIndex, op.newIndex]);
  // Items of the same kind in another order (two tool calls of one model answer complete in either
  // order): paired in turn, so the order alone is no difference.
  const onlyInOld: number[] = [];
  const onlyInNew = [...script.onlyInNew];
  for (const index of script.onlyInOld) {
    const match = onlyInNew.findIndex((other) => tb.items[other]!.kind === ta.items[index]!.kind);
    if (match < 0) onlyInOld.push(index);
    else pairs.push([index, onlyInNew.splice(match, 1)[0]!]);
  }
  for (const [oldIndex, newIndex] of pairs.sort((x, y) => x[0] - y[0])) {
    const ia = ta.items[oldIndex]!;
    const ib = tb.items[newIndex]!;
    compareFields(sides, cell, ta.number, `${where} / ${ia.kind} ${ia.ordinal}`, ia.fields, ib.fields, out, {}, { a: ia.at, b: ib.at });
  }
  for (const index of onlyInOld) {
    const item = ta.items[index]!;
    const key = itemKey(item);
    const hit = key.value === undefined ? undefined : searchIn(sides.b, key.field, key.value, [], ta.number);
    out.push({
      cell,
      class: itemClass(item),
      kind: "lost",
      address: `${where} / ${item.kind} ${item.ordinal}`,
      field: "item",
      a: item.fields,
      cause: hit !== undefined ? { kind: "bridge", provider: sides.b.provider, evidence: hit } : { kind: "adapter", provider: sides.b.provider },
    });
  }
  for (const index of onlyInNew) {
    const item = tb.items[index]!;
    const key = itemKey(item);
    const own = key.value === undefined ? undefined : searchIn(sides.b, key.field, key.value, [], ta.number);
    out.push({
      cell,
      class: itemClass(item),
      kind: "invented",
      address: `${where} / ${item.kind} ${item.ordinal} (B)`,
      field: "item",
      b: item.fields,
      cause: inventedItemCause(sides.b, ta.number, item, own),
    });
  }
  compareFields(sides, cell, ta.number, where, ta.fields, tb.fields, out, { restored: true });
}

/** Why B has an item A lacks: its bridge, when the truth judge says so or no agent line names the item; else its adapter. */
function inventedItemCause(side: PairSide, turn: number, item: FoldedItem, own: EvidenceHit | undefined): DifferenceCause {
  const untrue = bridgeUntruth(side, turn, item.at, "item");
  if (untrue !== undefined) return truthCause(side, untrue);
  return own !== undefined ? { kind: "adapter", provider: side.provider, evidence: own } : { kind: "bridge", provider: side.provider };
}

/**
 * Every difference of one cell's two folded lanes, in address order (turns, then items). Pure
 * apart from the evidence searches, which read only what `sides` holds.
 */
export function diffPair(cell: string, sides: PairSides): PairDifference[] {
  const out: PairDifference[] = [];
  const ta = sides.a.lane.turns;
  const tb = sides.b.lane.turns;
  for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
    const a = ta[i];
    const b = tb[i];
    if (a !== undefined && b !== undefined) compareTurn(sides, cell, a, b, out);
    else if (a !== undefined)
      out.push({ cell, class: "flow", kind: "lost", address: `turn ${a.number}`, field: "turn", a: `${a.items.length} items`, cause: { kind: "adapter", provider: sides.b.provider } });
    else if (b !== undefined)
      out.push({ cell, class: "flow", kind: "invented", address: `turn ${b.number}`, field: "turn", b: `${b.items.length} items`, cause: { kind: "bridge", provider: sides.b.provider } });
  }
  return out;
}
