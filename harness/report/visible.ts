/**
 * Strings from files a pull request can change (allowlist reasons and PRs, recordings, oracles,
 * an agent's output inside a lane) are printed with the characters that steer a terminal made
 * visible, so a reviewer's terminal shows them instead of obeying them: an OSC sequence that sets
 * the window title, a clear-screen, a carriage return that overwrites a line, or a right-to-left
 * override that reverses what follows it (the "Trojan Source" class of attack).
 *
 * Each such code point becomes `\uXXXX`. That spelling is chosen because it is also a valid JSON
 * escape: the same guard can run over JSON output (`--json`, `--reporter json|blob`) without
 * changing what the JSON means, and a reader of text output sees exactly the escape a JSON file
 * of the same value would hold.
 */

// C0 controls except tab and line feed, DEL, C1 controls; the Unicode format characters that
// change direction or hide text: ALM, LRM/RLM, the embeddings and overrides (U+202A–U+202E),
// the isolates (U+2066–U+2069), the zero-width characters and the line/paragraph separators,
// word joiner and the invisible operators (U+2060–U+2064), and the BOM used as a zero-width space.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const UNSAFE_OR_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const HAS_UNSAFE = new RegExp(UNSAFE.source);
// What chalk writes: Select Graphic Rendition, `ESC [ params m`, and nothing else.
const SGR = /^\u001b\[[0-9;]*m/;

function escapeCodePoint(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every terminal-steering code point written as `\uXXXX`; tab and line feed are kept.
 * For multi-line text from a file (an agent's output, a lane's text). Pure.
 */
export function visible(text: string): string {
  return text.replace(UNSAFE, escapeCodePoint);
}

/**
 * As {@link visible}, and tab and line feed escaped too: for a value that must stay on one line
 * (an allowlist entry's reason or PR, a path, a cell name), so a newline in it cannot forge a line
 * of the report. Pure.
 */
export function visibleLine(text: string): string {
  return text.replace(UNSAFE_OR_LINE, escapeCodePoint);
}

/**
 * The last guard before a terminal: every terminal-steering code point of `text` escaped as
 * {@link visible} does, except, when `keepColor`, the colour sequences (SGR, `ESC [ … m`) the CLI's
 * own chalk wrote. Run over everything a command writes to standard output and standard error
 * (`harness/cli/context.ts`), so a string no renderer escaped still cannot move the cursor, clear
 * the screen, set a title or reverse text. Pure; `text` without such code points is returned as is.
 */
export function terminalSafe(text: string, keepColor: boolean): string {
  if (!HAS_UNSAFE.test(text)) return text;
  if (!keepColor) return visible(text);
  let out = "";
  let from = 0;
  for (let i = text.indexOf("\u001b"); i !== -1; i = text.indexOf("\u001b", i + 1)) {
    const sgr = SGR.exec(text.slice(i, i + 32));
    if (sgr === null) continue;
    out += visible(text.slice(from, i)) + sgr[0];
    from = i + sgr[0].length;
    i = from - 1;
  }
  return out + visible(text.slice(from));
}
