/**
 * Where each event of an oracle file starts, so reporters can point at a line (GitHub
 * annotations' `line=`). Oracles are written by `serializeThreadLane` (harness/lanes): a JSON
 * array indented by two spaces, so each event starts on a line that is exactly two spaces
 * and an opening bracket; nested values are indented further.
 */

/**
 * 1-based line numbers of each top-level event's first line in `text`, in order, or
 * undefined when `text` is not laid out as `serializeThreadLane` writes it (a compact or
 * `{events: …}` oracle) or the count disagrees with `events`.
 */
export function oracleEventLines(text: string, events: number): number[] | undefined {
  const lines = text.split("\n");
  if (lines[0] !== "[" && !(events === 0 && lines[0] === "[]")) return undefined;
  const starts: number[] = [];
  lines.forEach((line, index) => {
    if (/^ {2}[[{]/.test(line) || /^ {2}[^ \]}]/.test(line)) starts.push(index + 1);
  });
  return starts.length === events ? starts : undefined;
}

/**
 * How many lines below `value`'s first line the value at `segments` starts, in the layout
 * `JSON.stringify(value, null, 2)` writes (one key or element per line). A segment that is not
 * there stops the walk at its container's line.
 */
export function pointerLineOffset(value: unknown, segments: readonly string[]): number {
  if (segments.length === 0 || value === null || typeof value !== "object") return 0;
  const [head, ...rest] = segments;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== "function");
  let offset = 1;
  for (const [key, child] of entries) {
    if (key === head) return offset + pointerLineOffset(child, rest);
    offset += (JSON.stringify(child, null, 2) ?? "null").split("\n").length;
  }
  return 0;
}

/**
 * The 1-based line in an oracle file of the changed field of each difference against the oracle
 * (GitHub annotations' `line=`), keyed by the difference's position in `diffs`. A field the
 * oracle lacks (an added field) points at its nearest enclosing value; a whole added event at
 * the event it comes before. `undefined` when the text is not the layout `eventLines` came from.
 *
 * @param text the oracle file's text; `eventLines` from {@link oracleEventLines}.
 * @param diffs differences with `against`, `path` (a JSON pointer whose first segment is the
 *   event position) and `oldIndex` (the event's position in the oracle).
 */
export function oracleFieldLines(text: string, eventLines: readonly number[], diffs: ReadonlyArray<{ against: string; path: string; oldIndex?: number }>): Record<number, number> | undefined {
  let events: unknown;
  try {
    events = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(events) || events.length !== eventLines.length) return undefined;
  const lines = text.split("\n");
  const out: Record<number, number> = {};
  diffs.forEach((d, k) => {
    if (d.against !== "oracle" || d.oldIndex === undefined || d.oldIndex >= eventLines.length) return;
    const segments = d.path
      .split("/")
      .slice(2)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const line = eventLines[d.oldIndex]! + pointerLineOffset(events[d.oldIndex], segments);
    // A field's line names its key (`"exitCode": 0`); anything else means a layout other than ours.
    const last = segments[segments.length - 1];
    const named = last === undefined || /^\d+$/.test(last) || (lines[line - 1] ?? "").trimStart().startsWith(`${JSON.stringify(last)}:`);
    out[k] = named ? line : eventLines[d.oldIndex]!;
  });
  return out;
}
