/**
 * Is a lane's command output what the command printed? (issue 37, build point 1.) Exact bytes,
 * but where stdout and stderr come from separate pipes any interleaving of their lines is true:
 * an agent that reads both pipes sees their lines in the order they arrived, which the cell does
 * not fix (cells/README.md, `command-fails`). A line lost, trimmed, or text added is not.
 */

/** `text` cut into lines, each with its `\n` (the last without, when the text has no final newline). */
export function linesOf(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === "\n") {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * True when `output` is `stdout` and `stderr` interleaved line by line, each pipe's lines in
 * their order, nothing lost, trimmed or added (the lengths must match, so no byte is extra).
 */
export function isInterleaving(output: string, stdout: string, stderr: string): boolean {
  if (output.length !== stdout.length + stderr.length) return false;
  const a = linesOf(stdout);
  const b = linesOf(stderr);
  // reachable[j] after row i: the first i lines of stdout and j of stderr make a prefix of `output`.
  let reachable: Array<number | undefined> = new Array(b.length + 1);
  reachable[0] = 0;
  for (let j = 1; j <= b.length; j += 1) {
    const at = reachable[j - 1];
    reachable[j] = at !== undefined && output.startsWith(b[j - 1]!, at) ? at + b[j - 1]!.length : undefined;
  }
  for (let i = 1; i <= a.length; i += 1) {
    const row: Array<number | undefined> = new Array(b.length + 1);
    for (let j = 0; j <= b.length; j += 1) {
      const up = reachable[j];
      let at = up !== undefined && output.startsWith(a[i - 1]!, up) ? up + a[i - 1]!.length : undefined;
      const left = j > 0 ? row[j - 1] : undefined;
      if (at === undefined && left !== undefined && output.startsWith(b[j - 1]!, left)) at = left + b[j - 1]!.length;
      row[j] = at;
    }
    reachable = row;
  }
  return reachable[b.length] === output.length;
}

// The mark a recording's redaction leaves where it cut a long string (harness/recording/redact.ts
// `trimMarker`): the head, the mark naming how many characters it took out, the tail.
const CUT = /⟦redacted: (\d+) chars trimmed⟧/;

/**
 * True when `output` is `printed` cut once by the recorder, with its mark: `output` is a head of
 * `printed`, the mark naming exactly the characters taken out, and the rest of `printed` as tail
 * (or, where stdout and stderr are two pipes, of either order of them). The recorder makes that cut
 * on every side at once (record's cut replay), so it is no untruth of the lane: the mark says so.
 */
export function isMarkedCut(output: string, stdout: string, stderr: string): boolean {
  const match = CUT.exec(output);
  if (match === null) return false;
  const head = output.slice(0, match.index);
  const tail = output.slice(match.index + match[0].length);
  const removed = Number(match[1]);
  return [stdout + stderr, stderr + stdout].some((printed) => printed.length === head.length + removed + tail.length && printed.startsWith(head) && printed.endsWith(tail));
}
