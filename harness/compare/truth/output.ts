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
