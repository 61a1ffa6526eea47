/**
 * The agent-side lanes of a recording as evidence (issue 37, build point 2): every string and
 * number the agent sent (`provider→bridge`) or was sent (`bridge→provider`), with the line's
 * `seq` and the value's place in the line, so a finding can say whether the bridge had a fact
 * and where. Built once per judged lane and only when the lane contradicts a fact.
 */
import { isRecord } from "../../../stack/protocol/json-value.js";

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
}

/** Searches over the values of a recording's agent-side lines. */
export interface EvidenceIndex {
  /** The first value that satisfies `test` (its key is the last path segment). */
  find(test: (value: string | number | boolean | null, key: string, path: string, dir: AgentSideLine["dir"]) => boolean): Evidence | undefined;
  /** Every value that satisfies `test`, in lane order. */
  all(test: (value: string | number | boolean | null, key: string, path: string, dir: AgentSideLine["dir"]) => boolean): Evidence[];
  /** The first line whose method matches `pattern`. */
  method(pattern: RegExp): Evidence | undefined;
}

/**
 * Indexes `lines` (in `(run, seq)` order): each line parsed as JSON (a line that is not JSON is
 * one string value at path `$`), strings inside it that are JSON documents parsed too (an agent's
 * tool result is often JSON in a string), every leaf kept with its path.
 */
export function evidenceIndex(lines: readonly AgentSideLine[]): EvidenceIndex {
  const values: Array<Evidence & { key: string }> = [];
  const methods: Evidence[] = [];
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
    walk(parsed, "$", "", (value, key, path) => values.push({ dir: entry.dir, seq: entry.seq, path, value, key, ...(method !== undefined ? { method } : {}) }), 0);
  }
  const strip = ({ key: _key, ...evidence }: Evidence & { key: string }): Evidence => evidence;
  return {
    find: (test) => {
      const hit = values.find((v) => test(v.value, v.key, v.path, v.dir));
      return hit === undefined ? undefined : strip(hit);
    },
    all: (test) => values.filter((v) => test(v.value, v.key, v.path, v.dir)).map(strip),
    method: (pattern) => methods.find((m) => pattern.test(String(m.value))),
  };
}

function walk(value: unknown, path: string, key: string, leaf: (value: string | number | boolean | null, key: string, path: string) => void, depth: number): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    leaf(value, key, path);
    const first = value.trimStart()[0];
    if ((first === "{" || first === "[") && value.length < 1_000_000) {
      try {
        walk(JSON.parse(value), `${path}(json)`, key, leaf, depth + 1);
      } catch {
        // Not JSON after all: the string itself was kept.
      }
    }
  } else if (typeof value === "number" || typeof value === "boolean" || value === null) {
    leaf(value, key, path);
  } else if (Array.isArray(value)) {
    value.forEach((element, i) => walk(element, `${path}[${i}]`, key, leaf, depth + 1));
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, k, leaf, depth + 1);
  }
}

/** `seq 41 (provider→bridge) $.params.update.rawOutput.content[0].text` */
export function formatEvidence(evidence: Evidence): string {
  return `seq ${evidence.seq} (${evidence.dir}) ${evidence.path}`;
}
