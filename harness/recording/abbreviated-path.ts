/**
 * Abbreviated spellings of a machine path, for redaction (recording/redact.ts).
 *
 * Agents shorten long paths in what they show: GitHub Copilot CLI 1.0.102 titles a tool call
 * whose path is longer than 50 characters with `...` and the path's last 47 characters
 * (`Creating ...parity-abcdef/rec-00000000/ws/src/new/hello.txt`, observed live). An agent may
 * as well elide with `…`, or keep the head and drop the middle (`/tmp/…/ws/notes.txt`). Whether a
 * path is shortened, and where the cut falls, follows the length of the recording machine's temp
 * root, so such a title must not be kept as it came: it holds part of the run's temp root (a
 * survivor, refused by the final sweep) and would make two recordings of one cell differ by where
 * they ran.
 *
 * A spelling `[head]<ellipsis>tail` is read as the path `from` shortened when `head` is a
 * prefix of `from` (or absent), `tail` a suffix of it that ends where a path segment ends, the two
 * together shorter than `from`, and what they keep is specific to it: `tail` spans a `/` and
 * head and tail keep at least {@link ABBREVIATED_MIN_CHARS} characters of `from` (a bare `…/ws`,
 * `…0/ws` or `…/home` could name folders anywhere and is left alone; a tail that short starts in
 * the run's fixed names, the same under every temp root). It becomes `to` in full, as the agent
 * shows the path under a root short enough not to shorten it: the recording is then the same
 * whatever temp root it was made under.
 */
import { escapeRegExp } from "../../stack/protocol/text.js";
import { PATH_END, type TextRule } from "./text-rule.js";

/** The fewest characters of the machine path an abbreviation must keep to be read as that path. */
export const ABBREVIATED_MIN_CHARS = 8;

// `...` (Copilot) or `…` (U+2026).
const ELLIPSIS = "(?:\\.\\.\\.|…)";
// A head starts where no path-name character or `/` precedes (`/var/…` is another path's head).
const HEAD_START = "(?<![A-Za-z0-9_./-])";

/** `text`'s non-empty prefixes as one regex source: `a(?:b(?:c)?)?` for `abc`. */
function prefixesSource(text: string): string {
  let source = "";
  for (let i = text.length - 1; i >= 0; i -= 1) source = `${escapeRegExp(text[i]!)}${source === "" ? "" : `(?:${source})?`}`;
  return source;
}

/**
 * The rule that rewrites the abbreviated spellings of `from` to `to` (see the module doc).
 *
 * @param from an absolute path (no trailing slash) of the recording machine
 * @param to what the recording names it instead
 * @returns undefined when `from` is not an absolute path of more than
 *   {@link ABBREVIATED_MIN_CHARS} characters (a `PATH` list, a URL, a short home like `/root`):
 *   no abbreviation of it could be told from another path's.
 */
export function abbreviatedPathRule(from: string, to: string): TextRule | undefined {
  if (!from.startsWith("/") || from.includes(":") || from.length <= ABBREVIATED_MIN_CHARS) return undefined;
  // Every proper suffix, longest first, so the tail read is the longest one that ends a segment.
  const tails = Array.from({ length: from.length - 1 }, (_, i) => escapeRegExp(from.slice(i + 1)));
  // The head group always takes part (empty when absent), so the replace sees head and tail in place.
  const pattern = new RegExp(`${HEAD_START}((?:${prefixesSource(from.slice(0, -1))})?)${ELLIPSIS}(${tails.join("|")})${PATH_END}`, "g");
  return {
    name: "abbreviated path",
    pattern,
    replace: (match, head = "", tail = "") => {
      const kept = head.length + tail.length;
      const specific = tail.includes("/") && kept >= ABBREVIATED_MIN_CHARS && kept < from.length;
      return specific ? to : match;
    },
  };
}
