import { escapeRegExp } from "../../../stack/protocol/text.js";

/**
 * One directory rewrite of the replay sandbox: every path at or below `from` becomes the
 * same path below `to` (spec 10 §5.1 g, extended from `params.cwd` to every path the
 * recording names; docs/design/00-product.md, Determinism). Both are absolute paths without a trailing
 * slash.
 */
export interface PathRewriteRule {
  from: string;
  to: string;
}

/** A compiled set of {@link PathRewriteRule}s, applied in one pass (see {@link createPathMap}). */
export interface PathMap {
  /** The rules, longest `from` first (the order they are tried at one position). */
  readonly rules: readonly PathRewriteRule[];
  /** Rewrites every occurrence in a plain string (no JSON decoding). */
  mapText(text: string): string;
  /**
   * Rewrites the string values and object keys of one JSON line. A line that is not JSON,
   * or in which no string names a `from` path, is returned unchanged, byte for byte; in a
   * rewritten line only the changed string tokens are re-encoded, so numbers, ids, key
   * order and whitespace stay as they were.
   */
  mapJsonLine(line: string): string;
}

/** Characters that continue a path segment: an occurrence followed by one is a different name. */
const SEGMENT_CHAR = /[\w.\-~]/;

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/**
 * Compiles path rewrites for the replay sandbox (docs/design/00-product.md flow 2; spec 10 §5.1 g). An
 * occurrence of `from` is rewritten only on a path boundary: it must not be followed by a
 * character that continues the last segment (`/tmp/parity-workspace2` and
 * `/tmp/parity-workspace.bak` are other directories), while `/`, the end of the string or
 * any other character (a quote, `<`, a newline) ends it. `from` starts with `/`, so its
 * start is always a segment start; it is found inside longer strings too (diff headers
 * such as `--- a/tmp/parity-workspace/notes.txt`, `<path>…</path>` tool output). The pass is
 * single: a rewritten part is never rewritten again, so a map and its inverse round-trip.
 *
 * @throws Error when a `from` is not absolute or two rules share a `from`
 */
export function createPathMap(rules: readonly PathRewriteRule[]): PathMap {
  const sorted = rules
    .map((r) => ({ from: trimSlash(r.from), to: trimSlash(r.to) }))
    .filter((r) => r.from !== r.to)
    .sort((a, b) => b.from.length - a.from.length);
  const targets = new Map<string, string>();
  for (const rule of sorted) {
    if (!rule.from.startsWith("/") || rule.from === "/") throw new Error(`path rewrite from "${rule.from}": not an absolute directory`);
    if (targets.has(rule.from)) throw new Error(`path rewrite from "${rule.from}" given twice`);
    targets.set(rule.from, rule.to);
  }
  // Escapes JSON may use for a path's characters; a line using either is decoded to check.
  const plainFroms = sorted.map((r) => r.from);
  const pattern = sorted.length === 0 ? undefined : new RegExp(`(?:${plainFroms.map(escapeRegExp).join("|")})(?!${SEGMENT_CHAR.source})`, "g");

  const mapText = (text: string): string => {
    if (!pattern || !plainFroms.some((from) => text.includes(from))) return text;
    return text.replace(pattern, (match) => targets.get(match) ?? match);
  };

  const mayName = (line: string): boolean => line.includes("\\/") || line.includes("\\u") || plainFroms.some((from) => line.includes(from));

  const mapJsonLine = (line: string): string => {
    if (!pattern || !mayName(line)) return line;
    try {
      JSON.parse(line);
    } catch {
      return line;
    }
    let out = "";
    let copied = 0;
    let i = 0;
    while (i < line.length) {
      if (line[i] !== '"') {
        i += 1;
        continue;
      }
      let end = i + 1;
      while (end < line.length && line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
      const token = line.slice(i, end + 1);
      const decoded = JSON.parse(token) as string;
      const mapped = mapText(decoded);
      if (mapped !== decoded) {
        out += line.slice(copied, i) + JSON.stringify(mapped);
        copied = end + 1;
      }
      i = end + 1;
    }
    return copied === 0 ? line : out + line.slice(copied);
  };

  return { rules: sorted, mapText, mapJsonLine };
}
