/**
 * Small text helpers every layer needs when it builds a pattern or a command line from data, kept
 * once here (the lowest layer) so no module carries its own copy.
 */

/** `text` with every RegExp metacharacter escaped: `new RegExp(escapeRegExp(s))` matches `s` literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * One word for a POSIX shell: as is when it holds only characters no shell treats specially
 * (letters, digits and `_./:=@%+-`), else in single quotes with each `'` written `'\''`.
 * Every command line the project prints for a user to paste (`parity allow …`, `git add …`,
 * an agent's sign-in command) quotes its words with it.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
