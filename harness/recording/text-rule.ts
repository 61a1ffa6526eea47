/**
 * The shape of one textual redaction rule (recording/redact.ts), apart so that the modules that
 * make rules (abbreviated-path.ts) need not import the redactor.
 */

/** A named textual rule: a global pattern and the replacement of one match (its capture groups in order). */
export interface TextRule {
  name: string;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

/** Regex source: a path ends where a path-name character cannot continue it (so /home/al does not hit /home/alice). */
export const PATH_END = "(?![A-Za-z0-9_.-])";
