/**
 * The truth judge (issue 37, build point 2): a thread lane held against what really happened in
 * its cell — the cell's facts — rather than against its own past. Each fact the lane should carry
 * is judged `true`, `lost` (the lane lacks it), `changed` (it says something else) or `invented`
 * (it says something that did not happen: an output a command never printed, a completed turn
 * where the model failed, an item no step made). Each untruth names its cause from the
 * recording's agent-side lanes: `bridge` (the agent-side lanes carry the fact and the lane does
 * not: the seq is named), `adapter` (the agent never sent it, or sent something else). `agent`
 * (what the agent told the model already differs) needs the model server's log, which recordings
 * do not hold: the judge never guesses it.
 *
 * Lane items are matched to the facts' steps in order, by class: commands with command items
 * (`commandExecution`, or a tool call carrying a `command`), edits and writes with file changes,
 * reads with read items (`fileRead`, a `read` tool call); see lane-view.ts.
 */
import { RECORDED_PATHS } from "../../recording/recorded-paths.js";
import { evidenceIndex, type AgentSideLine, type Evidence, type EvidenceIndex } from "./evidence.js";
import type { CommandFact, EditFact, FactApproval, ModelFact, ReadFact, TruthFacts, TurnFact } from "./facts-shape.js";
import { laneView, resultText, type ItemClass, type LaneItem, type LaneTurn } from "./lane-view.js";
import { isInterleaving, isMarkedCut } from "./output.js";
import { diffApplies } from "./unified-diff.js";
import { acpOwnership, type AcpOwnership } from "./acp-ownership.js";
import { isRecord } from "../../../stack/protocol/json-value.js";

/** How a lane stands to one fact. */
export type TruthVerdictKind = "true" | "lost" | "changed" | "invented";
/** Who lost or made up a fact: our bridge, the agent's adapter, or the agent itself. */
export type TruthCause = "bridge" | "adapter" | "agent";

/**
 * One untruth. `fact` is its selector (`command#1.exit`: the first command of the script, its exit;
 * `turn#2.end`), `item` where the lane says it (`turn 1 / commandExecution 1 / item/completed`) and
 * `field` which field (`item.exitCode`). `expected` is the fact, `actual` what the lane says
 * (absent: nothing). `evidence`: the agent-side values the cause rests on (seq, direction, path).
 */
export interface TruthFinding {
  fact: string;
  kind: Exclude<TruthVerdictKind, "true">;
  cause: TruthCause;
  item?: string;
  field: string;
  expected?: unknown;
  actual?: unknown;
  why: string;
  evidence: Evidence[];
}

/** One fact judged: its selector and verdict (findings hold the detail of the untrue ones). */
export interface JudgedFact {
  fact: string;
  verdict: TruthVerdictKind;
  cause?: TruthCause;
}

/** The judge's result for one lane: every fact judged, in facts order, and the untrue ones in detail. */
export interface TruthVerdict {
  judged: JudgedFact[];
  findings: TruthFinding[];
}

/** What {@link judgeTruth} reads. `agentSide`: the recording's `provider→bridge` and `bridge→provider` lines, in `(run, seq)` order. */
export interface TruthInput {
  lane: readonly unknown[];
  facts: TruthFacts;
  agentSide: readonly AgentSideLine[];
}

/** The approval status a lane's item must carry after the cell's answer (`approved` after an allow, `denied` after a deny). */
export function expectedApprovalStatus(answer: FactApproval): "approved" | "denied" {
  return answer === "deny" ? "denied" : "approved";
}

const EXIT_KEY = /^(exit_?code|exitcode|exit_?status|returncode|return_?code)$/i;
const EXIT_TEXT = /exit(?:ed)?(?:\s+with)?\s+(?:code|status)[\s:]*(-?\d+)/i;
const DESCRIPTION_KEY = /^(description|title|label|summary)$/i;
const DIFF_KEY = /^(old|new)_?(text|string|str|content)$/i;
const OUTPUT_KEY = /^(raw_?output|stdout|output|aggregated_?output)$/i;
const PERMISSION_METHOD = /permission|approval|can_use_tool|confirm/i;

/**
 * Judges `input.lane` (a normalized thread lane) against `input.facts` (see the module comment).
 * Pure: no I/O; the agent-side lines are indexed only when a fact is found untrue.
 */
export function judgeTruth(input: TruthInput): TruthVerdict {
  let index: EvidenceIndex | undefined;
  // The model's own answers, as the agent relays them (message chunks, a final result), say
  // nothing of what a tool did: a word inside one of them is never evidence.
  const modelTexts = (input.facts.model ?? []).map((m) => m.text ?? "").filter((t) => t.length >= 8);
  const evidence = (): EvidenceIndex => (index ??= evidenceIndex(input.agentSide));
  // Which ACP tool call a file value belongs to (acp-ownership.ts): read when a read is judged untrue.
  let ownershipMemo: AcpOwnership | undefined;
  const ownership = (): AcpOwnership => (ownershipMemo ??= acpOwnership(input.agentSide));
  // Searches for words (an exit code or signal named in text, an error status, a stop reason) skip them.
  let proseIndex: EvidenceIndex | undefined;
  const prose = (): EvidenceIndex => (proseIndex ??= withoutModelText(evidence(), modelTexts));
  const view = laneView(input.lane);
  const out: TruthVerdict = { judged: [], findings: [] };
  const record = (fact: string, finding: Omit<TruthFinding, "fact"> | undefined): void => {
    if (finding === undefined) {
      out.judged.push({ fact, verdict: "true" });
      return;
    }
    out.judged.push({ fact, verdict: finding.kind, cause: finding.cause });
    out.findings.push({ fact, ...finding });
  };

  const queues: Record<ItemClass, LaneItem[]> = { command: [], file: [], read: [] };
  for (const item of view.items) queues[item.cls].push(item);
  const counts = new Map<string, number>();
  for (const step of input.facts.steps) {
    if (step.kind === "other") continue;
    const n = (counts.get(step.kind) ?? 0) + 1;
    counts.set(step.kind, n);
    const name = `${step.kind}#${n}`;
    const cls: ItemClass = step.kind === "command" ? "command" : step.kind === "read" ? "read" : "file";
    const item = queues[cls].shift();
    if (item === undefined) {
      record(`${name}.item`, missingItem(step.kind, step.kind === "command" ? step.command : step.path, evidence));
      continue;
    }
    if (step.kind === "command") judgeCommand(name, step, item, evidence, prose, record);
    else if (step.kind === "read") judgeRead(name, step, item, evidence, ownership, record);
    else judgeEdit(name, step, item, evidence, record);
  }
  // Items no step made: the lane says a tool ran that the script never asked for.
  for (const cls of ["command", "file", "read"] as const) {
    for (const item of queues[cls]) {
      const label = cls === "file" ? "edit" : cls;
      const n = (counts.get(`extra-${label}`) ?? 0) + 1;
      counts.set(`extra-${label}`, n);
      const said = identity(item.item);
      const agent = said === undefined ? undefined : evidence().find((v) => typeof v === "string" && v.includes(said));
      record(`${label}+${n}.item`, {
        kind: "invented",
        cause: agent !== undefined ? "adapter" : "bridge",
        item: item.address,
        field: "item",
        actual: said ?? item.item.type,
        why: agent !== undefined ? "the agent reported a tool call the model script never made" : "no step of the script made this item, and the agent-side lanes never name it",
        evidence: agent !== undefined ? [agent] : [],
      });
    }
  }
  judgeTurns(input.facts.turns ?? [], input.facts.model ?? [], view.turns, prose, record);
  return out;
}

/** `index` without the values that are (part of) the model's own answers, or hold one. */
function withoutModelText(index: EvidenceIndex, texts: readonly string[]): EvidenceIndex {
  if (texts.length === 0) return index;
  const relayed = (v: unknown): boolean => typeof v === "string" && v.length >= 4 && texts.some((t) => t.includes(v) || v.includes(t));
  return {
    find: (test) => index.find((v, key, path, dir) => !relayed(v) && test(v, key, path, dir)),
    all: (test) => index.all((v, key, path, dir) => !relayed(v) && test(v, key, path, dir)),
    method: (pattern) => index.method(pattern),
    // A diff is what a tool did, never the model's words.
    diffs: () => index.diffs(),
  };
}

type Record_ = (fact: string, finding: Omit<TruthFinding, "fact"> | undefined) => void;
type Lazy = () => EvidenceIndex;

/** What names an item for the evidence search: its command, else its path. */
function identity(item: Record<string, unknown>): string | undefined {
  if (typeof item.command === "string") return item.command;
  const args = isRecord(item.arguments) ? item.arguments : {};
  if (typeof args.command === "string") return args.command;
  if (typeof item.path === "string") return relativePath(item.path);
  if (Array.isArray(item.changes) && isRecord(item.changes[0]) && typeof item.changes[0].path === "string") return relativePath(item.changes[0].path);
  return undefined;
}

/** A lane path relative to the workspace (the recorded workspace prefix taken off). */
export function relativePath(p: string): string {
  const root = `${RECORDED_PATHS.workspace}/`;
  if (p.startsWith(root)) return p.slice(root.length);
  return p.startsWith("./") ? p.slice(2) : p;
}

/** A fact's text with `{{cwd}}` as the recorded workspace path, as normalized lanes and recordings spell it. */
function recorded(text: string): string {
  return text.split("{{cwd}}").join(RECORDED_PATHS.workspace);
}

function missingItem(kind: string, said: string, evidence: Lazy): Omit<TruthFinding, "fact"> {
  // Only what the agent reported names an item the bridge lost: its own request to the client
  // (fs/read_text_file, terminal/*) and the bridge's answer to it are no report of a tool call, so
  // an agent that reads through the client without reporting a call lost the item itself.
  const hit = evidence()
    .all((v, _key, _path, dir) => dir === "provider→bridge" && typeof v === "string" && (v === said || v.includes(said) || v.endsWith(`/${said}`)))
    .find((e) => !/^(?:fs|terminal)\//.test(e.method ?? ""));
  return {
    kind: "lost",
    cause: hit !== undefined ? "bridge" : "adapter",
    field: "item",
    expected: said,
    why: hit !== undefined ? `the agent-side lanes name this ${kind} and the lane has no item for it` : `the lane has no item for this ${kind}, and the agent never sent one`,
    evidence: hit !== undefined ? [hit] : [],
  };
}

/**
 * The finding for an item of another type than its step makes (`item.type` changed): caused by the
 * bridge when the agent-side lanes carry what the step did (`hit`, its evidence), else by the adapter.
 */
function wrongItemType(at: string, expected: string, actual: unknown, hit: Evidence | undefined, whyBridge: string, whyAdapter: string): Omit<TruthFinding, "fact"> {
  return {
    kind: "changed",
    cause: hit !== undefined ? "bridge" : "adapter",
    item: at,
    field: "item.type",
    expected,
    actual,
    why: hit !== undefined ? whyBridge : whyAdapter,
    evidence: hit !== undefined ? [hit] : [],
  };
}

function judgeCommand(name: string, step: CommandFact, lane: LaneItem, evidence: Lazy, prose: Lazy, record: Record_): void {
  const item = lane.item;
  const at = lane.address;
  if (item.type !== "commandExecution") {
    const hit = evidence().find((v) => v === step.command);
    record(
      `${name}.item`,
      wrongItemType(
        at,
        "commandExecution",
        item.type,
        hit,
        "the agent-side lanes carry the command, and the lane shows it as another kind of item",
        "the agent never said this tool call runs a command",
      ),
    );
  }
  const field = item.type === "commandExecution" ? "item.aggregatedOutput" : "item.result";
  const output = item.type === "commandExecution" ? (typeof item.aggregatedOutput === "string" ? item.aggregatedOutput : undefined) : resultText(item);
  const stdout = recorded(step.stdout ?? "");
  const stderr = recorded(step.stderr ?? "");
  record(`${name}.output`, judgeOutput(step.ran, stdout, stderr, output, evidence, at, field));

  const exitCode = typeof item.exitCode === "number" ? item.exitCode : undefined;
  record(`${name}.exit`, judgeExit(step, exitCode, item, prose, at));

  if (step.approval !== undefined) record(`${name}.approval`, judgeApproval(step.approval, item, evidence, at));
}

/** Output judged: nothing printed and nothing shown is true; see `isInterleaving`. */
function judgeOutput(ran: boolean, stdout: string, stderr: string, output: string | undefined, evidence: Lazy, at: string, field: string): Omit<TruthFinding, "fact"> | undefined {
  const printed = ran ? stdout + stderr : "";
  if (printed === "") {
    if (output === undefined || output === "") return undefined;
    return inventedOutput(output, evidence, at, field, ran);
  }
  if (output !== undefined && (isInterleaving(output, stdout, stderr) || isMarkedCut(output, stdout, stderr))) return undefined;
  const had = evidence().find((v) => typeof v === "string" && isInterleaving(v, stdout, stderr));
  const expected = stderr === "" ? stdout : { stdout, stderr };
  if (had !== undefined) {
    return {
      kind: output === undefined ? "lost" : "changed",
      cause: "bridge",
      item: at,
      field,
      expected,
      ...(output !== undefined ? { actual: output } : {}),
      why: output === undefined ? "the agent sent the command's output and the lane has none" : "the agent sent the command's exact output and the lane says something else",
      evidence: [had],
    };
  }
  if (output === undefined) {
    return { kind: "lost", cause: "adapter", item: at, field, expected, why: "the agent never sent the command's output", evidence: [] };
  }
  // The lane's text is the agent's own (whole, or cut out of what it sent): the adapter reshaped it.
  // …as its result, not in the call's command, title or input.
  const own = evidence().find(
    (v, key, path, dir) =>
      dir === "provider→bridge" && typeof v === "string" && output.length > 0 && v.includes(output) && !DESCRIPTION_KEY.test(key) && !/rawInput|arguments|\.input\b|command/i.test(`${path}.${key}`),
  );
  return {
    kind: "changed",
    cause: own !== undefined ? "adapter" : "bridge",
    item: at,
    field,
    expected,
    actual: output,
    why: own !== undefined ? "the agent sent this output already changed (trimmed, reordered or with text added)" : "the agent-side lanes never carry this text: the bridge made it",
    evidence: own !== undefined ? [own] : [],
  };
}

function inventedOutput(output: string, evidence: Lazy, at: string, field: string, ran: boolean): Omit<TruthFinding, "fact"> {
  const said = evidence().all((v, _key, _path, dir) => dir === "provider→bridge" && v === output);
  const described = said.find((e) => DESCRIPTION_KEY.test(lastKey(e.path)));
  const asOutput = said.find((e) => !DESCRIPTION_KEY.test(lastKey(e.path)) && !/rawInput|input|arguments|params\.toolCall\b/i.test(e.path));
  const base = { kind: "invented" as const, item: at, field, expected: "", actual: output };
  const nothing = ran ? "the command printed nothing" : "the command never ran";
  // The call's own description shown as its output: whatever else the agent did with that text
  // (claude's adapters also send it as the pending call's display content), the command did not
  // print it, and a bridge never puts text in an output that the command did not print.
  if (described !== undefined) {
    return {
      ...base,
      cause: "bridge",
      why: `${nothing}; this text is the tool call's ${lastKey(described.path)}, not its output`,
      evidence: [described, ...(asOutput !== undefined ? [asOutput] : [])],
    };
  }
  if (asOutput !== undefined) return { ...base, cause: "adapter", why: `${nothing}; the agent sent this text as its result`, evidence: [asOutput] };
  if (said.length > 0) return { ...base, cause: "bridge", why: `${nothing}; the agent sent this text with the call, not as its output`, evidence: said.slice(0, 1) };
  const empty = ran ? evidence().find((v, key, _path, dir) => dir === "provider→bridge" && v === "" && OUTPUT_KEY.test(key)) : undefined;
  if (empty !== undefined) return { ...base, cause: "bridge", why: `${nothing}, as the agent's own output field says (empty); the lane's text is not the command's`, evidence: [empty] };
  return { ...base, cause: "bridge", why: `${nothing}; the agent-side lanes never carry this text`, evidence: [] };
}

function lastKey(path: string): string {
  const match = /\.([^.[\]()]+)(?:\[\d+\]|\(json\))*$/.exec(path);
  return match?.[1] ?? "";
}

function judgeExit(step: CommandFact, exitCode: number | undefined, item: Record<string, unknown>, evidence: Lazy, at: string): Omit<TruthFinding, "fact"> | undefined {
  const field = "item.exitCode";
  if (!step.ran || step.exit === undefined || step.exit === null) {
    if (step.ran || exitCode === undefined) return undefined;
    return { kind: "invented", cause: "bridge", item: at, field, actual: exitCode, why: "the command never ran, and the lane gives it an exit code", evidence: [] };
  }
  if ("signal" in step.exit) {
    const signal = step.exit.signal;
    const named = typeof item.signal === "string" ? item.signal : typeof item.exitSignal === "string" ? item.exitSignal : undefined;
    if (named === signal) return undefined;
    const had = evidence().find(
      (v, key, _path, dir) =>
        dir === "provider→bridge" && (v === signal || (/signal/i.test(key) && typeof v === "string" && v.includes(signal)) || (typeof v === "string" && new RegExp(`\\b${signal}\\b`).test(v))),
    );
    const kind = exitCode === undefined && named === undefined ? "lost" : "changed";
    return {
      kind,
      cause: had !== undefined ? "bridge" : "adapter",
      item: at,
      field: named !== undefined ? "item.signal" : field,
      expected: { signal },
      ...(kind === "changed" ? { actual: named ?? exitCode } : {}),
      why: had !== undefined ? `the agent-side lanes name ${signal}` : `the agent never said the command was ended by ${signal}`,
      evidence: had !== undefined ? [had] : [],
    };
  }
  const code = step.exit.code;
  if (exitCode === code) return undefined;
  const had = exitEvidence(evidence, code);
  const kind = exitCode === undefined ? "lost" : "changed";
  return {
    kind,
    cause: had !== undefined ? "bridge" : "adapter",
    item: at,
    field,
    expected: code,
    ...(exitCode !== undefined ? { actual: exitCode } : {}),
    why: had !== undefined ? `the agent-side lanes carry exit code ${code}` : kind === "lost" ? "the agent never sent the exit code" : "the agent sent another exit code",
    evidence: had !== undefined ? [had] : [],
  };
}

function exitEvidence(evidence: Lazy, code: number): Evidence | undefined {
  return (
    evidence().find((v, key, _path, dir) => dir === "provider→bridge" && typeof v === "number" && v === code && EXIT_KEY.test(key)) ??
    evidence().find((v, _key, _path, dir) => {
      if (dir !== "provider→bridge" || typeof v !== "string") return false;
      const match = EXIT_TEXT.exec(v);
      return match !== null && Number(match[1]) === code;
    })
  );
}

function judgeApproval(answer: FactApproval | null, item: Record<string, unknown>, evidence: Lazy, at: string): Omit<TruthFinding, "fact"> | undefined {
  const field = "item.approvalStatus";
  const status = typeof item.approvalStatus === "string" ? item.approvalStatus : undefined;
  if (answer === null) {
    if (status === undefined) return undefined;
    return { kind: "invented", cause: "bridge", item: at, field, actual: status, why: "nobody was asked, and the lane gives the item an approval status", evidence: [] };
  }
  const expected = expectedApprovalStatus(answer);
  if (status === expected) return undefined;
  const asked = evidence().method(PERMISSION_METHOD) ?? evidence().find((v, key) => typeof v === "string" && /^(subtype|type)$/.test(key) && PERMISSION_METHOD.test(v));
  const kind = status === undefined ? "lost" : "changed";
  return {
    kind,
    cause: asked !== undefined ? "bridge" : "adapter",
    item: at,
    field,
    expected,
    ...(status !== undefined ? { actual: status } : {}),
    why: asked !== undefined ? `the agent asked for permission and the cell answered ${answer}` : "the agent never asked for permission",
    evidence: asked !== undefined ? [asked] : [],
  };
}

function judgeRead(name: string, step: ReadFact, lane: LaneItem, evidence: Lazy, ownership: () => AcpOwnership, record: Record_): void {
  const item = lane.item;
  const at = lane.address;
  const args = isRecord(item.arguments) ? item.arguments : {};
  const rawPath = typeof item.path === "string" ? item.path : typeof args.path === "string" ? args.path : typeof args.filePath === "string" ? args.filePath : undefined;
  const path = rawPath === undefined ? undefined : relativePath(rawPath);
  // A path that names a changed file (an edit's diff, a write) is another call's, never the read's (acp-ownership.ts).
  const readPath = (e: Evidence) => !ownership().changedFilePaths.has(`${e.seq} ${e.path}`);
  record(`${name}.path`, judgePath(step.path, path, evidence, at, item.type === "fileRead" ? "item.path" : "item.arguments.path", readPath));
  if (step.exists === false || typeof step.content !== "string") return;
  const content = recorded(step.content);
  const text = resultText(item);
  if (text === content) {
    record(`${name}.content`, undefined);
    return;
  }
  const field = item.type === "fileRead" ? "item.content" : "item.result";
  // A diff's old or new text (a later edit of the same file) is not the read's result.
  // The bridge's answer to an fs read that no in-flight read call of the file made is not this read's (acp-ownership.ts).
  const had = evidence()
    .all((v, key, path) => v === content && !DIFF_KEY.test(key) && !/rawInput|arguments|\.input\b/i.test(path))
    .find((e) => !(e.dir === "bridge→provider" && ownership().unownedReadAnswers.has(e.seq)));
  if (had !== undefined) {
    record(`${name}.content`, {
      kind: text === undefined ? "lost" : "changed",
      cause: "bridge",
      item: at,
      field,
      expected: content,
      ...(text !== undefined ? { actual: text } : {}),
      why: text === undefined ? "the agent-side lanes carry the file's bytes and the lane has none" : "the agent-side lanes carry the file's exact bytes and the lane says something else",
      evidence: [had],
    });
    return;
  }
  // Not the exact bytes anywhere: the agent sent them trimmed (or not at all).
  const trimmed =
    content.trimEnd() === content
      ? undefined
      : evidence().find((v, key, path, dir) => dir === "provider→bridge" && v === content.trimEnd() && !DIFF_KEY.test(key) && !/rawInput|arguments/i.test(path));
  const changedText =
    text !== undefined
      ? evidence()
          .all((v) => v === text)
          .slice(0, 1)
      : [];
  record(`${name}.content`, {
    kind: text === undefined ? "lost" : "changed",
    cause: "adapter",
    item: at,
    field,
    expected: content,
    ...(text !== undefined ? { actual: text } : {}),
    why:
      trimmed !== undefined
        ? "the agent sent the file's bytes only with their trailing newline cut"
        : text === undefined
          ? "the agent never sent the file's bytes"
          : "the agent sent the file's content already changed",
    evidence: trimmed !== undefined ? [trimmed] : changedText,
  });
}

function judgePath(expected: string, actual: string | undefined, evidence: Lazy, at: string, field: string, counts: (e: Evidence) => boolean = () => true): Omit<TruthFinding, "fact"> | undefined {
  if (actual === expected) return undefined;
  const absolute = `${RECORDED_PATHS.workspace}/${expected}`;
  const had = evidence()
    .all((v) => v === expected || v === absolute)
    .find(counts);
  return {
    kind: actual === undefined ? "lost" : "changed",
    cause: had !== undefined ? "bridge" : "adapter",
    item: at,
    field,
    expected,
    ...(actual !== undefined ? { actual } : {}),
    why: had !== undefined ? "the agent-side lanes carry the file's real path" : "the agent never sent the file's real path",
    evidence: had !== undefined ? [had] : [],
  };
}

function judgeEdit(name: string, step: EditFact, lane: LaneItem, evidence: Lazy, record: Record_): void {
  const item = lane.item;
  const at = lane.address;
  const before = step.before === null ? null : recorded(step.before);
  if (step.after === null) return judgeUnappliedEdit(name, step, item, evidence, at, record);
  const after = recorded(step.after);
  // A diff the agent sent that turns the file before into the file after, in any format it sends
  // diffs in (unified-diff.ts agentDiff: pi's line-numbered diff, Claude Code's hunks, unified).
  const sentDiff = (): Evidence | undefined =>
    evidence()
      .diffs()
      .find((d) => diffApplies(d.unified, before, after));
  const carried = (): Evidence | undefined =>
    sentDiff() ?? evidence().find((v, key) => typeof v === "string" && v !== "" && (v === after || (/^new_?(text|string|str|content)$/i.test(key) && after.includes(v))));
  if (item.type !== "fileChange") {
    record(`${name}.item`, wrongItemType(at, "fileChange", item.type, carried(), "the agent-side lanes carry the change, and the lane shows no file change", "the agent never sent the change"));
    return;
  }
  const changes = Array.isArray(item.changes) ? item.changes.filter(isRecord) : [];
  const change = changes.find((c) => typeof c.path === "string" && relativePath(c.path) === step.path) ?? changes[0];
  const path = change !== undefined && typeof change.path === "string" ? relativePath(change.path) : undefined;
  record(`${name}.path`, judgePath(step.path, path, evidence, at, "item.changes.path"));

  const kind = change !== undefined && typeof change.kind === "string" ? change.kind : undefined;
  const expectedKind = step.created ? "add" : "update";
  if (kind === expectedKind) record(`${name}.created`, undefined);
  else {
    const had = step.created
      ? evidence().find((v, key) => (/^old_?(text|string|content)$/i.test(key) && (v === null || v === "")) || (/^(kind|type|operation|action)$/i.test(key) && (v === "add" || v === "create")))
      : undefined;
    record(`${name}.created`, {
      kind: kind === undefined ? "lost" : "changed",
      cause: step.created ? (had !== undefined ? "bridge" : "adapter") : "bridge",
      item: at,
      field: "item.changes.kind",
      expected: expectedKind,
      ...(kind !== undefined ? { actual: kind } : {}),
      why: step.created ? (had !== undefined ? "the agent-side lanes say the file is new" : "the agent never said the file is new") : "the file existed before: it was updated",
      evidence: had !== undefined ? [had] : [],
    });
  }

  const diff = change !== undefined && typeof change.diff === "string" ? change.diff : undefined;
  if (diff !== undefined && diffApplies(diff, before, after)) record(`${name}.diff`, undefined);
  else {
    // A replaced snippet (new_string and the like) tells no position in the file: a diff is the
    // bridge's to make from it only when the agent-side lanes carry the file before too, exactly.
    // A new file's "before" is known to the bridge only when the agent says the file is new (an empty
    // or null old text, a kind add/create): pi-acp's write sends only the content, and pi's write
    // creates or overwrites (acp-pi new-file-folder), so no diff is the bridge's to make from it.
    const saysNew = () =>
      evidence().find((v, key) => (/^old_?(text|string|content)$/i.test(key) && (v === null || v === "")) || (/^(kind|type|operation|action)$/i.test(key) && (v === "add" || v === "create")));
    const hasBefore = before === null ? saysNew() !== undefined : before === "" || evidence().find((v) => v === before) !== undefined;
    const had = sentDiff() ?? (hasBefore ? (evidence().find((v) => typeof v === "string" && v !== "" && v === after) ?? carried()) : undefined);
    record(`${name}.diff`, {
      kind: diff === undefined ? "lost" : "changed",
      cause: had !== undefined ? "bridge" : "adapter",
      item: at,
      field: "item.changes.diff",
      expected: { before, after },
      ...(diff !== undefined ? { actual: diff } : {}),
      why:
        had !== undefined
          ? `the agent-side lanes carry the change, and the lane's diff ${diff === undefined ? "is missing" : "does not turn the file before into the file after"}`
          : "the agent never sent the change in a form that gives the file after",
      evidence: had !== undefined ? [had] : [],
    });
  }
  if (step.approval !== undefined) record(`${name}.approval`, judgeApproval(step.approval, item, evidence, at));
}

/** An edit that did not run (denied) or could not apply: only its approval and that no change is claimed are judged. */
function judgeUnappliedEdit(name: string, step: EditFact, item: Record<string, unknown>, evidence: Lazy, at: string, record: Record_): void {
  if (step.approval !== undefined) record(`${name}.approval`, judgeApproval(step.approval, item, evidence, at));
  const claimed = item.type === "fileChange" && item.status === "completed";
  record(
    `${name}.applied`,
    claimed
      ? {
          kind: "invented",
          cause: "bridge",
          item: at,
          field: "item.status",
          expected: "failed",
          actual: "completed",
          why: step.ran === false ? "the edit never ran (denied)" : `the edit could not apply (${step.error ?? "its old text was not found"})`,
          evidence: [],
        }
      : undefined,
  );
}

/**
 * The lane turn each fact turn is, in order. A lane with fewer turns than the run had is one
 * thread of several (a fork: the recorded thread holds only its own turns): each fact turn is then
 * found by its model answers' text among the lane turns' messages, in order, and one not found is
 * on another thread (`elsewhere`: not judged).
 */
export function alignTurns(turns: readonly TurnFact[], model: readonly ModelFact[], lane: readonly LaneTurn[]): Array<LaneTurn | undefined | "elsewhere"> {
  if (lane.length >= turns.length) return turns.map((_, i) => lane[i]);
  let next = 0;
  return turns.map((fact) => {
    const texts = (fact.responses ?? []).map((r) => model.find((m) => m.response === r)?.text?.trim()).filter((t): t is string => t !== undefined && t !== "");
    for (let j = next; j < lane.length; j += 1) {
      if (lane[j]!.texts.some((t) => texts.includes(t.trim()))) {
        next = j + 1;
        return lane[j];
      }
    }
    return "elsewhere";
  });
}

function judgeTurns(turns: readonly TurnFact[], model: readonly ModelFact[], lane: readonly LaneTurn[], evidence: Lazy, record: Record_): void {
  const errors = model.filter((m) => m.error !== null);
  const aligned = alignTurns(turns, model, lane);
  turns.forEach((fact, i) => {
    const name = `turn#${i + 1}`;
    const found = aligned[i];
    if (found === "elsewhere") return;
    const turn = found;
    const status = turn?.status;
    // The model error the turn takes: one of its responses, else the next error in script order.
    const taken = fact.end !== "failed" ? undefined : (errors.find((m) => fact.responses?.includes(m.response)) ?? errors[0]);
    if (taken !== undefined) errors.splice(errors.indexOf(taken), 1);
    const modelError = taken?.error ?? undefined;
    if (status === fact.end) record(`${name}.end`, undefined);
    else {
      const had = fact.end === "failed" && modelError !== undefined ? errorEvidence(evidence, modelError.status) : endEvidence(evidence, fact.end);
      const kind = status === undefined ? "lost" : status === "completed" ? "invented" : "changed";
      record(`${name}.end`, {
        kind,
        // A turn the runtime started must end in the lane, whatever the agent did: a missing end is the bridge's.
        cause: status === undefined || had !== undefined ? "bridge" : "adapter",
        ...(turn !== undefined ? { item: `${turn.address} / turn/completed` } : {}),
        field: "status",
        expected: fact.end,
        ...(status !== undefined ? { actual: status } : {}),
        why:
          status === undefined
            ? "the turn never ends in the lane"
            : had !== undefined
              ? `the agent-side lanes say the turn ${fact.end === "failed" ? "failed" : `ended ${fact.end}`}`
              : fact.end === "failed"
                ? "the model answered with an error, and the agent never said so"
                : `the agent never said the turn ended ${fact.end}`,
        evidence: had !== undefined ? [had] : [],
      });
    }
    if (modelError === undefined || turn === undefined) return;
    const info = turn.errors.map((e) => (isRecord(e.errorInfo) ? e.errorInfo : undefined)).find((e) => e !== undefined);
    const statusCode = modelError.status;
    if (info !== undefined && (info.httpStatusCode === statusCode || info.httpStatusCode === null || info.httpStatusCode === undefined)) {
      record(`${name}.error`, undefined);
      return;
    }
    const had = errorEvidence(evidence, statusCode);
    record(`${name}.error`, {
      kind: info === undefined ? "lost" : "changed",
      cause: had !== undefined ? "bridge" : "adapter",
      item: `${turn.address} / provider/error`,
      field: "errorInfo.httpStatusCode",
      expected: { status: statusCode, ...(modelError.type ? { type: modelError.type } : {}) },
      ...(info !== undefined ? { actual: info.httpStatusCode } : {}),
      why: had !== undefined ? `the agent-side lanes carry the model's ${statusCode}` : `the agent never sent the model's ${statusCode}`,
      evidence: had !== undefined ? [had] : [],
    });
  });
}

/** Where the agent-side lanes carry the model's error status: a status field, or a message naming it. */
function errorEvidence(evidence: Lazy, status: number): Evidence | undefined {
  const word = new RegExp(`(^|\\D)${status}(\\D|$)`);
  // Only where the agent says it as an error (a JSON-RPC error, an error field, a status): an error
  // told only in the agent's prose (a message chunk) is not one a bridge can type.
  return (
    evidence().find((v, key, _path, dir) => dir === "provider→bridge" && v === status && /status/i.test(key)) ??
    evidence().find(
      (v, key, path, dir) => dir === "provider→bridge" && typeof v === "string" && /error/i.test(`${path}.${key}`) && word.test(v) && /error|unauthori[sz]ed|invalid|forbidden|denied|fail/i.test(v),
    )
  );
}

/** Where the agent-side lanes say a turn ended `end` (a stop reason or status). */
function endEvidence(evidence: Lazy, end: TurnFact["end"]): Evidence | undefined {
  const words = end === "interrupted" ? /^(cancell?ed|interrupted|aborted)$/i : end === "completed" ? /^(end_turn|completed|success|stop)$/i : /^(failed|error|refusal)$/i;
  return evidence().find((v, key) => typeof v === "string" && /stop_?reason|status|subtype|reason/i.test(key) && words.test(v));
}
