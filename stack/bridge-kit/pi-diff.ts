/**
 * pi's edit diff → a unified diff (spec 60 "pi": an edit's `details.diff` is pi's own
 * line-numbered format, not a unified diff). pi 0.73.1 writes one line per shown line:
 * `+<n> text` (added, new line number), `-<n> text` (removed, old line number), ` <n> text`
 * (context, old line number) and ` <blank> ...` where unchanged lines were skipped
 * (`dist/core/tools/edit-diff.js` `generateDiffString`, numbers right-aligned to one width).
 * Pure: no I/O.
 */

/** One parsed line of pi's diff. */
interface PiDiffLine {
  op: " " | "+" | "-";
  /** The line number pi printed (old for context and removals, new for additions). */
  number: number;
  text: string;
}

/** A hunk being built: its starts and its body lines (` `, `+`, `-` prefixed). */
interface Hunk {
  oldStart: number;
  newStart: number;
  oldLines: number;
  newLines: number;
  body: string[];
}

const LINE = /^([ +-])\s*(\d+) (.*)$/s;
const SKIP = /^ \s*\.\.\.$/;

/** Parses pi's lines; `undefined` marks a skip (`...`). A line of another shape makes the whole diff unreadable (null). */
function parsePiDiff(diff: string): Array<PiDiffLine | undefined> | null {
  const out: Array<PiDiffLine | undefined> = [];
  for (const raw of diff.split("\n")) {
    if (SKIP.test(raw)) {
      out.push(undefined);
      continue;
    }
    const m = LINE.exec(raw);
    if (!m) return null;
    out.push({ op: m[1] as PiDiffLine["op"], number: Number(m[2]), text: m[3]! });
  }
  return out;
}

/** Starts a hunk at `line`, given the running offset new − old of everything before it. */
function startHunk(line: PiDiffLine, offset: number): Hunk {
  const oldStart = line.op === "+" ? line.number - offset : line.number;
  const newStart = line.op === "+" ? line.number : line.number + offset;
  return { oldStart, newStart, oldLines: 0, newLines: 0, body: [] };
}

/** `@@ -a,b +c,d @@` of a hunk (a zero-length side starts one line earlier, as diff(1) writes it). */
function hunkHeader(h: Hunk): string {
  const side = (start: number, count: number) => `${count === 0 ? Math.max(0, start - 1) : start},${count}`;
  return `@@ -${side(h.oldStart, h.oldLines)} +${side(h.newStart, h.newLines)} @@`;
}

/**
 * Converts pi's line-numbered edit diff into a unified diff of `path` (headers `--- a/<path>`,
 * `+++ b/<path>`, one `@@` hunk per run of shown lines, every line ending in `\n`).
 *
 * @param diff pi's `details.diff` of an `edit` tool result
 * @param path the file's path as the hunk headers should name it (relative to the workspace)
 * @returns the unified diff, or `undefined` when `diff` is empty or not in pi's format (the
 *   caller then reports the change without a diff rather than a wrong one)
 */
export function unifiedDiffFromPi(diff: string, path: string): string | undefined {
  if (diff.trim() === "") return undefined;
  const lines = parsePiDiff(diff);
  if (!lines) return undefined;
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  let offset = 0;
  for (const line of lines) {
    if (!line) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = startHunk(line, offset);
      hunks.push(current);
    }
    current.body.push(`${line.op}${line.text}`);
    if (line.op !== "+") current.oldLines++;
    if (line.op !== "-") current.newLines++;
    if (line.op === "+") offset++;
    if (line.op === "-") offset--;
  }
  if (hunks.length === 0) return undefined;
  const clean = path.replace(/\\/g, "/").replace(/^\/+/, "");
  const text = [`--- a/${clean}`, `+++ b/${clean}`, ...hunks.flatMap((h) => [hunkHeader(h), ...h.body])];
  return `${text.join("\n")}\n`;
}
