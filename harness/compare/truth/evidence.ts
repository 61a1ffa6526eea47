/**
 * The agent-side lanes of a recording as evidence (issue 37, build point 2): every string and
 * number the agent sent (`provider→bridge`) or was sent (`bridge→provider`), with the line's
 * `seq` and the value's place in the line, so a finding can say whether the bridge had a fact
 * and where. Built once per judged lane and only when the lane contradicts a fact. Every diff the
 * agent sent is kept too, in whichever format it sent it (unified-diff.ts `agentDiff`), so a pi
 * diff or Claude Code's hunks are evidence of a change as a unified diff is.
 */
import { isRecord } from "../../../stack/protocol/json-value.js";
import { agentDiff, type AgentDiffFormat } from "./unified-diff.js";

/** One agent-side line: its direction, `seq` and raw text, as the recording holds it. */
export interface AgentSideLine {
  dir: "provider→bridge" | "bridge→provider";
  seq: number;
  line: string;
}

/** A value found in an agent-side line: where (`dir`, `seq`, the JSON path in the line) and what. */
export interface Evidence {
  dir: AgentSideLine["dir"];
  seq: number;
  path: string;
  value: string | number | boolean | null;
  /** The JSON-RPC method of the line, when it has one. */
  method?: string;
  /** Set on a diff ({@link EvidenceIndex.diffs}): the format the agent sent it in. */
  format?: AgentDiffFormat;
}

/** A diff the agent sent, where it is, and its text as a unified diff (`value`: as sent when a text; the unified text for hunks sent as JSON). */
export interface DiffEvidence extends Evidence {
  format: AgentDiffFormat;
  unified: string;
}

/** Searches over the values of a recording's agent-side lines. */
export interface EvidenceIndex {
  /** The first value that satisfies `test` (its key is the last path segment). */
  find(test: (value: string | number | boolean | null, key: string, path: string, dir: AgentSideLine["dir"]) => boolean): Evidence | undefined;
  /** Every value that satisfies `test`, in lane order. */
  all(test: (value: string | number | boolean | null, key: string, path: string, dir: AgentSideLine["dir"]) => boolean): Evidence[];
  /** The first line whose method matches `pattern`. */
  method(pattern: RegExp): Evidence | undefined;
  /**
   * Every diff in the lines, in lane order, whatever its format (unified-diff.ts `agentDiff`: a
   * unified text, pi's line-numbered text, Claude Code's `structuredPatch` hunks).
   */
  diffs(): DiffEvidence[];
}

/**
 * Indexes `lines` (in `(run, seq)` order): each line parsed as JSON (a line that is not JSON is
 * one string value at path `$`), strings inside it that are JSON documents parsed too (an agent's
 * tool result is often JSON in a string), every leaf kept with its path.
 */
export function evidenceIndex(lines: readonly AgentSideLine[]): EvidenceIndex {
  const values: Array<Evidence & { key: string }> = [];
  const methods: Evidence[] = [];
  const diffs: DiffEvidence[] = [];
  for (const entry of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry.line);
    } catch {
      values.push({ dir: entry.dir, seq: entry.seq, path: "$", value: entry.line, key: "" });
      continue;
    }
    const method = isRecord(parsed) && typeof parsed.method === "string" ? parsed.method : undefined;
    if (method !== undefined) methods.push({ dir: entry.dir, seq: entry.seq, path: "method", value: method, method });
    const at = { dir: entry.dir, seq: entry.seq, ...(method !== undefined ? { method } : {}) };
    const diffAt = (value: unknown, path: string): void => {
      const diff = agentDiff(value);
      if (diff !== undefined) diffs.push({ ...at, path, value: typeof value === "string" ? value : diff.unified, format: diff.format, unified: diff.unified });
    };
    walk(parsed, "$", "", (value, key, path) => values.push({ ...at, path, value, key }), 0, diffAt);
  }
  const strip = ({ key: _key, ...evidence }: Evidence & { key: string }): Evidence => evidence;
  return {
    find: (test) => {
      const hit = values.find((v) => test(v.value, v.key, v.path, v.dir));
      return hit === undefined ? undefined : strip(hit);
    },
    all: (test) => values.filter((v) => test(v.value, v.key, v.path, v.dir)).map(strip),
    method: (pattern) => methods.find((m) => pattern.test(String(m.value))),
    diffs: () => diffs,
  };
}

/** Calls `leaf` on every leaf of `value` and `texts` on every string and array (a diff is one of them), with its path. */
function walk(
  value: unknown,
  path: string,
  key: string,
  leaf: (value: string | number | boolean | null, key: string, path: string) => void,
  depth: number,
  texts: (value: unknown, path: string) => void,
): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    leaf(value, key, path);
    texts(value, path);
    const first = value.trimStart()[0];
    if ((first === "{" || first === "[") && value.length < 1_000_000) {
      try {
        walk(JSON.parse(value), `${path}(json)`, key, leaf, depth + 1, texts);
      } catch {
        // Not JSON after all: the string itself was kept.
      }
    }
  } else if (typeof value === "number" || typeof value === "boolean" || value === null) {
    leaf(value, key, path);
  } else if (Array.isArray(value)) {
    texts(value, path);
    value.forEach((element, i) => walk(element, `${path}[${i}]`, key, leaf, depth + 1, texts));
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, k, leaf, depth + 1, texts);
  }
}

/** `seq 41 (provider→bridge) $.params.update.rawOutput.content[0].text` */
export function formatEvidence(evidence: Evidence): string {
  return `seq ${evidence.seq} (${evidence.dir}) ${evidence.path}`;
}
