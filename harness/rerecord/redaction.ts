/**
 * The redactor a rerecord applies to the current lane (spec 10 §6.6 step 5, §4 Redaction):
 * LIVE-RECORD's rules and passes (`textRules`, `applyTextRules`, `redactJsonValue`),
 * configured from the environment once per run, with one rule narrowed (see
 * {@link narrowDashedHomeRule}).
 */
import os from "node:os";
import {
  SECRET_KEY_PATTERN,
  applyTextRules,
  createRedactor,
  redactJsonValue,
  type Redactor,
  type TextRule,
} from "../recording/redact.js";

/** Shortest environment value treated as a secret to hide (shorter ones would match too much). */
export const MIN_SECRET_VALUE_CHARS = 8;

/** Options of {@link rerecordRedactor}; everything defaults to this process. */
export interface RerecordRedactionOptions {
  /** Home directory to hide (default `os.homedir()`); `/` and empty are refused. */
  home?: string;
  /** Environment whose secret-named variables' values are hidden wherever they appear (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** User `--redact` patterns. */
  patterns?: RegExp[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The dashed form of the home path (`/root` → `-root`, as in `~/.claude/projects/-root-ws`)
 * only where it starts a name: not preceded by a name character. Without that, a one-segment
 * home rewrites ordinary words (`multi-root` → `multi-home-user`) in the bridge's text, and
 * the rerecorded lane would no longer assemble to the live lane. Other rules pass unchanged.
 */
export function narrowDashedHomeRule(rule: TextRule, home: string): TextRule {
  const dashed = escapeRegExp(home.replace(/\/+$/, "").replace(/\//g, "-"));
  if (rule.name !== "path" || !rule.pattern.source.startsWith(dashed)) return rule;
  return { ...rule, pattern: new RegExp(`(?<![A-Za-z0-9_.])${rule.pattern.source}`, rule.pattern.flags) };
}

function parseObject(text: string): object | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}

/**
 * A redactor for rerecorded lanes: LIVE-RECORD's `createRedactor` (every field it has) with
 * the textual methods re-bound to its rules after {@link narrowDashedHomeRule}. It hides the
 * home path, the values of secret-named variables (`KEY|TOKEN|SECRET|…`,
 * {@link MIN_SECRET_VALUE_CHARS}+ characters) of the environment the bridge ran in, the
 * standard structural and textual passes, and user patterns. Idempotent.
 *
 * @throws UsageError for a refused home (see `createRedactor`)
 */
export function rerecordRedactor(options: RerecordRedactionOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const secrets = Object.entries(env)
    .filter(([key, value]) => SECRET_KEY_PATTERN.test(key) && typeof value === "string" && value.length >= MIN_SECRET_VALUE_CHARS)
    .map(([, value]) => value as string);
  const base = createRedactor({ home, secrets, ...(options.patterns ? { patterns: options.patterns } : {}) });
  const rules = base.rules.map((r) => narrowDashedHomeRule(r, home));
  const redactText = (text: string) => applyTextRules(text, rules);
  const redactLine = (line: string): string => {
    const value = parseObject(line);
    if (value === null) return redactText(line);
    const serialized = JSON.stringify(redactJsonValue(value));
    return redactText(serialized === JSON.stringify(value) ? line : serialized);
  };
  const redactLaneEntry = (entryText: string): string => {
    const entry = parseObject(entryText) as { line?: unknown } | null;
    if (entry === null || Array.isArray(entry) || typeof entry.line !== "string") return redactText(entryText);
    const line = redactLine(entry.line);
    return line === entry.line ? entryText : JSON.stringify({ ...entry, line });
  };
  return {
    ...base,
    rules,
    redactLine,
    redactText,
    redactLaneEntry,
    redactFile: (fileName, text) =>
      fileName.endsWith(".ndjson")
        ? text
            .split("\n")
            .map((l) => (l === "" ? l : redactLaneEntry(l)))
            .join("\n")
        : redactText(text),
  };
}
