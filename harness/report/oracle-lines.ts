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
