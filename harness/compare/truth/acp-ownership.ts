/**
 * Which ACP tool call a value in the agent-side lanes belongs to, where the judge must not take one
 * call's value as another's (issue 37: a finding blames the bridge only for a fact the bridge had).
 * ACP client requests carry no tool-call id, so the same rule the ACP bridge follows decides
 * (stack/acp/translate/README.md, "Which read call an `fs/read_text_file` belongs to"): an answer
 * to the agent's `fs/read_text_file` is a read's only when the request came while an ACP read
 * call (`kind: "read"`) of that file was in flight (announced, not yet completed or failed). And
 * a path inside an ACP `diff` content entry, or an `fs/write_text_file` request, names a file that
 * was changed, never one that was read. Lines of other protocols hold neither shape: nothing of
 * theirs is set aside. Pure.
 */
import { isRecord } from "../../../stack/protocol/json-value.js";
import type { AgentSideLine } from "./evidence.js";

/** What the agent-side lanes say about ACP file values, by `seq`. */
export interface AcpOwnership {
  /** Seqs of the bridge's answers to `fs/read_text_file` requests that no in-flight read call of the file made. */
  unownedReadAnswers: ReadonlySet<number>;
  /** `"<seq> <json path>"` of every path that names a changed file (diff content entries, fs writes). */
  changedFilePaths: ReadonlySet<string>;
}

interface AcpCall {
  kind?: string;
  paths: Set<string>;
  settled: boolean;
}

/** The same file: the same path, or a relative path the absolute one ends with. */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  const [relative, absolute] = a.startsWith("/") ? [b, a] : [a, b];
  return !relative.startsWith("/") && relative.length > 0 && absolute.endsWith(`/${relative.replace(/^\.\//, "")}`);
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Follows one ACP tool-call update (`tool_call`, `tool_call_update`, or a permission request's `toolCall`). */
function follow(calls: Map<string, AcpCall>, update: Record<string, unknown>): void {
  if (typeof update.toolCallId !== "string") return;
  const call = calls.get(update.toolCallId) ?? { paths: new Set<string>(), settled: false };
  calls.set(update.toolCallId, call);
  if (typeof update.kind === "string") call.kind = update.kind;
  if (Array.isArray(update.locations)) for (const l of update.locations) if (isRecord(l) && typeof l.path === "string") call.paths.add(l.path);
  if (isRecord(update.rawInput)) for (const key of ["path", "file_path", "filePath"]) if (typeof update.rawInput[key] === "string") call.paths.add(update.rawInput[key]);
  if (update.status === "completed" || update.status === "failed") call.settled = true;
}

/** Reads {@link AcpOwnership} from a recording's agent-side lines, in `(run, seq)` order. */
export function acpOwnership(lines: readonly AgentSideLine[]): AcpOwnership {
  const calls = new Map<string, AcpCall>();
  const readRequests = new Map<string, boolean>();
  const unownedReadAnswers = new Set<number>();
  const changedFilePaths = new Set<string>();
  for (const entry of lines) {
    const message = parse(entry.line);
    if (message === undefined) continue;
    const params = isRecord(message.params) ? message.params : {};
    if (entry.dir === "provider→bridge") {
      const updates = [params.update, params.toolCall].filter(isRecord);
      for (const update of updates) {
        if (message.method === "session/update" && update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") continue;
        follow(calls, update);
        const base = update === params.update ? "$.params.update" : "$.params.toolCall";
        if (Array.isArray(update.content)) update.content.forEach((c, i) => isRecord(c) && c.type === "diff" && changedFilePaths.add(`${entry.seq} ${base}.content[${i}].path`));
      }
      if (message.method === "fs/write_text_file") changedFilePaths.add(`${entry.seq} $.params.path`);
      if (message.method === "fs/read_text_file" && message.id !== undefined && typeof params.path === "string") {
        const path = params.path;
        const owned = [...calls.values()].some((call) => !call.settled && call.kind === "read" && [...call.paths].some((p) => sameFile(p, path)));
        readRequests.set(String(message.id), owned);
      }
      continue;
    }
    // bridge→provider: an answer (no method) to a request the agent made.
    if (message.method === undefined && message.id !== undefined && readRequests.has(String(message.id))) {
      if (readRequests.get(String(message.id)) === false) unownedReadAnswers.add(entry.seq);
      readRequests.delete(String(message.id));
    }
  }
  return { unownedReadAnswers, changedFilePaths };
}
