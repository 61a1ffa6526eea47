/**
 * Strings cut around the change (as jest and cargo-insta show a changed line): when an old and a
 * new text do not fit, both are cut to the same window that starts a little before their first
 * differing character, so the change stays visible instead of being cut off at the right. Each
 * side says where its changed part lies, for an intra-line highlight.
 */

/** One side of a windowed pair: the text shown and the changed range `[from, to)` within it. */
export interface WindowedText {
  text: string;
  from: number;
  to: number;
}

/** Length of the common prefix of `a` and `b`, and of their common suffix after it. */
export function commonEnds(a: string, b: string): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix += 1;
  return { prefix, suffix };
}

/**
 * `a` and `b` each cut to at most `room` characters (at least 8) around their first difference:
 * up to a quarter of the room of unchanged text before it, `…` where text was left out. `keep`
 * is a head always kept when the window starts after it (an event's `{"type":"…",`).
 */
export function windowPair(a: string, b: string, room: number, keep = ""): [WindowedText, WindowedText] {
  const width = Math.max(8, room);
  const { prefix, suffix } = commonEnds(a, b);
  const side = (text: string): WindowedText => ({ text, from: prefix, to: text.length - suffix });
  if (a.length <= width && b.length <= width) return [side(a), side(b)];
  const head = keep !== "" && a.startsWith(keep) && b.startsWith(keep) && prefix > keep.length + width / 2 ? `${keep}…` : "";
  const lead = Math.min(prefix, Math.max(4, Math.floor((width - head.length) / 4)));
  const start = prefix - lead;
  return [cut(a, start, prefix, suffix, width, head), cut(b, start, prefix, suffix, width, head)];
}

function cut(text: string, start: number, prefix: number, suffix: number, width: number, head: string): WindowedText {
  const open = start > 0 ? (head !== "" ? head : "…") : "";
  const from = start;
  let body = text.slice(from);
  const avail = width - open.length;
  const clipped = body.length > avail;
  if (clipped) body = `${body.slice(0, Math.max(0, avail - 1))}…`;
  const changeFrom = open.length + (prefix - from);
  const changeTo = Math.min(open.length + (text.length - suffix - from), clipped ? width - 1 : open.length + body.length);
  return { text: `${open}${body}`, from: Math.min(changeFrom, changeTo), to: changeTo };
}

/** `text` cut to `width` characters from the right, with `…` (no change to keep in view). */
export function cutRight(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}
