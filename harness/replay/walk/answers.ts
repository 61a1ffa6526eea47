/**
 * Compares what the bridge answered to an agent's request (`fs/read_text_file` contents,
 * `session/request_permission` outcomes, …) with the recorded answer (docs/design/00-product.md,
 * Determinism: the gate judges every bridge output, not only the thread lane). Both lines
 * are JSON-RPC responses already mapped to recorded paths; the `id` is not compared (live
 * ids are mapped), the `result` or `error` is, with object keys in sorted order so key order
 * alone is no difference.
 */

/**
 * The agent→client methods whose answers are compared: the core ones every dialect accepts
 * (spec 30, `clientRequestMethods`; spec 20 §3). Vendor extensions (`cursor/task`, …) are
 * dialect-specific and answered as each dialect's spec says; they are not compared here.
 */
export const COMPARED_ANSWER_METHODS: ReadonlySet<string> = new Set(["session/request_permission", "fs/read_text_file", "fs/write_text_file", "elicitation/create"]);

/** JSON text with object keys sorted at every level. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The compared part of a response line: `{result}` or `{error}`; the raw line when it is not JSON. */
function answerOf(line: string): string {
  try {
    const message = JSON.parse(line) as { result?: unknown; error?: unknown };
    return "error" in message ? canonical({ error: message.error }) : canonical({ result: message.result });
  } catch {
    return line;
  }
}

/**
 * The recorded and live answers when they differ (canonical JSON, each at most `width`
 * characters, cut around the first difference), else undefined.
 */
export function answerDifference(recordedLine: string, liveLine: string, width = 200): { expected: string; got: string } | undefined {
  const expected = answerOf(recordedLine);
  const got = answerOf(liveLine);
  if (expected === got) return undefined;
  let at = 0;
  while (at < expected.length && at < got.length && expected[at] === got[at]) at += 1;
  const start = Math.max(0, at - Math.floor(width / 4));
  const cut = (text: string): string => `${start > 0 ? "…" : ""}${text.slice(start, start + width)}${start + width < text.length ? "…" : ""}`;
  return { expected: cut(expected), got: cut(got) };
}
