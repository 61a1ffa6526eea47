/**
 * Redaction of a recording before it is committed (spec 10 §4 "Redaction"): a structural
 * pass over each lane entry's JSON `line` and a textual pass. The textual pass comes first, so
 * the structural pass cuts a long string as it is stored, machine paths already replaced by their
 * placeholders: a recording does not depend on the length of the recording machine's temp root
 * or home. Both are idempotent: redacting a redacted text changes nothing. The final sweep lives
 * in `redact-verify.ts`.
 */
import { RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { isRecord } from "../../stack/protocol/json-value.js";
import { UsageError } from "../errors.js";
import { escapeRegExp } from "../../stack/protocol/text.js";
import { abbreviatedPathRule } from "./abbreviated-path.js";
import { PATH_END, type TextRule } from "./text-rule.js";

/** Strings longer than this many characters are trimmed by the structural pass (spec 10 §4). */
export const TRIM_OVER_CHARS = 2000;
/** Characters kept before the trim marker. */
export const TRIM_KEEP_HEAD = 1400;
/** Characters kept after the trim marker. */
export const TRIM_KEEP_TAIL = 300;
/** Text every redacted value becomes (tokens keep their prefix in front of it). */
export const REDACTED = "REDACTED";
/** The home path's replacement (spec 10 §4). */
export const REDACTED_HOME = "/home/user";
/** Every email's replacement. */
export const REDACTED_EMAIL = "user@example.com";

/** The marker left where a long string was trimmed; `N` is the number of characters removed. */
export function trimMarker(removed: number): string {
  return `⟦redacted: ${removed} chars trimmed⟧`;
}
const TRIM_MARKER_PATTERN = /⟦redacted: \d+ chars trimmed⟧/;

/** How many cut marks ({@link trimMarker}) `text` holds: the strings redaction shortened. */
export function countTrimMarkers(text: string): number {
  return text.match(new RegExp(TRIM_MARKER_PATTERN.source, "g"))?.length ?? 0;
}

/** Keys of environment maps whose values are secrets (spec 10 §4), case-insensitive. */
export const SECRET_KEY_PATTERN = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH/i;
const ENV_MAP_KEYS = new Set(["env", "envVars", "environment"]);

/** One path rewritten by the textual pass: `from` (absolute) becomes `to`, as is and in dashed form. */
export interface PathRewrite {
  from: string;
  to: string;
}

/** Options of {@link createRedactor}. */
export interface RedactionOptions {
  /** The home directory to hide (spec 10 §4 `--home`); `/` and empty are refused. */
  home: string;
  /** The user name of the `ls -l` owner pair ` U U `; default: the last segment of `home`. */
  user?: string;
  /** Further paths to rewrite before the home path (e.g. a temp workspace → a fixed path); longest first. */
  paths?: PathRewrite[];
  /** Literal secret values (e.g. of secret-named variables of the recording environment) → `REDACTED`. */
  secrets?: string[];
  /**
   * Texts (lane entries, JSON lines) whose env maps teach further secret values: every value of a
   * secret-named key in an `env`/`envVars`/`environment` map (the agent's launch spec env, the
   * cell's envVars) is redacted wherever else it appears, e.g. echoed by the agent in a message.
   */
  learnFrom?: readonly string[];
  /** User `--redact` patterns; every match becomes `REDACTED`. */
  patterns?: RegExp[];
  /** Sweep-only detectors: anything they match after redaction is a survivor (e.g. a temp dir name). */
  forbidden?: RegExp[];
}

export type { TextRule } from "./text-rule.js";

/** The token rules of spec 10 §4: each token keeps its prefix and becomes `<prefix>REDACTED`. */
export function tokenRules(): TextRule[] {
  const token = (name: string, source: string): TextRule => ({
    name,
    pattern: new RegExp(source, "g"),
    replace: (_match, prefix) => `${prefix}${REDACTED}`,
  });
  return [
    {
      name: "authorization",
      // Tolerates escaped quotes, so a JSON text nested in a JSON string is covered too.
      pattern: /(\\*"authorization\\*"\s*:\s*\\*")((?:(?!\\*").)*)/gi,
      replace: (_match, head) => `${head}${REDACTED}`,
    },
    token("bearer", "((?<![A-Za-z0-9])[Bb]earer\\s+)[A-Za-z0-9._~+/=-]{8,}"),
    token("jwt", "(?<![A-Za-z0-9_-])(eyJ)[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*"),
    token("bbde", "(?<![A-Za-z0-9])(bbde_)[A-Za-z0-9_-]{6,}"),
    token("bbcm", "(?<![A-Za-z0-9])(bbcm_)[A-Za-z0-9_-]{6,}"),
    token("github", "(?<![A-Za-z0-9])(gh[pousr]_)[A-Za-z0-9]{10,}"),
    token("github-pat", "(?<![A-Za-z0-9])(github_pat_)[A-Za-z0-9_]{10,}"),
    token("anthropic", "(?<![A-Za-z0-9_-])(sk-ant-)[A-Za-z0-9_-]{10,}"),
    token("sk", "(?<![A-Za-z0-9_-])(sk-)(?!ant-)[A-Za-z0-9_-]{10,}"),
    token("slack", "(?<![A-Za-z0-9])(xox[abprs]-)[A-Za-z0-9-]{10,}"),
  ];
}

function pathRules(options: RedactionOptions): TextRule[] {
  const home = options.home.replace(/\/+$/, "");
  if (home === "") throw new UsageError(`--home "${options.home}" is refused: redacting "/" or an empty path would rewrite every path`);
  const rewrites = [...(options.paths ?? []), { from: home, to: REDACTED_HOME }]
    .map((r) => ({ from: r.from.replace(/\/+$/, ""), to: r.to }))
    .filter((r) => r.from !== "" && r.from !== r.to)
    .sort((a, b) => b.from.length - a.from.length);
  const rules: TextRule[] = [];
  for (const { from, to } of rewrites) {
    if (to.startsWith(`${from}/`)) throw new UsageError(`path rewrite ${from} → ${to} is refused: it would rewrite its own result`);
    // Tools also print absolute paths without their leading slash (opencode titles, diff headers
    // `a/tmp/…`), so the slash is optional where no path-name character precedes.
    // Only for paths of two or more segments: a bare `root` is a word, not a path.
    const bare = from.replace(/^\/+/, "");
    const slash = bare.includes("/") ? "(/?)" : "(/)";
    rules.push({
      name: "path",
      pattern: new RegExp(`(?<![A-Za-z0-9_.-])${slash}${escapeRegExp(bare)}${PATH_END}`, "g"),
      replace: (_match, slash) => (slash || !to.startsWith("/") ? to : to.slice(1)),
    });
    const dashed = (p: string) => p.replace(/\//g, "-");
    // In the dashed form `-` separates segments, so it may follow.
    // Bounded on both sides so words like `multi-root` keep their `-root` (home /root).
    rules.push({
      name: "path",
      pattern: new RegExp(`(?<![A-Za-z0-9_.])${escapeRegExp(dashed(from))}(?![A-Za-z0-9_.])`, "g"),
      replace: () => dashed(to),
    });
    // An agent's shortened spelling of the path (`...0000/ws/src/new/hello.txt`), see abbreviated-path.ts.
    const abbreviated = abbreviatedPathRule(from, to);
    if (abbreviated !== undefined) rules.push(abbreviated);
  }
  const user = options.user ?? home.split("/").pop() ?? "";
  if (user !== "" && user !== "user") {
    rules.push({ name: "owner", pattern: new RegExp(` ${escapeRegExp(user)} ${escapeRegExp(user)} `, "g"), replace: () => " user user " });
  }
  return rules;
}

/**
 * Every textual rule in the order the pass applies them (spec 10 §4 "Textual pass"): paths
 * (extra rewrites, then home: each as is, in its dashed form and abbreviated), the owner pair, known secret values,
 * emails, `"Authorization"` values, tokens, then the user patterns.
 *
 * @throws UsageError for an empty or `/` home, or a rewrite whose result contains its source.
 */
export function textRules(options: RedactionOptions): TextRule[] {
  const secrets = [...new Set([...(options.secrets ?? []), ...secretValuesIn(options.learnFrom ?? [])])].filter((s) => s.length >= 8 && s !== REDACTED).sort((a, b) => b.length - a.length);
  return [
    ...pathRules(options),
    ...secrets.map((secret) => ({ name: "secret value", pattern: new RegExp(escapeRegExp(secret), "g"), replace: () => REDACTED })),
    {
      name: "email",
      pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g,
      replace: () => REDACTED_EMAIL,
    },
    ...tokenRules(),
    ...(options.patterns ?? []).map((pattern) => ({
      name: `--redact ${pattern.source}`,
      pattern: new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
      replace: () => REDACTED,
    })),
  ];
}

/**
 * Compiles user `--redact` patterns (JavaScript regular expressions, matched globally).
 * @throws UsageError naming the pattern when it does not compile or matches the empty string.
 */
export function compileUserPatterns(sources: readonly string[]): RegExp[] {
  return sources.map((source) => {
    let pattern: RegExp;
    try {
      pattern = new RegExp(source, "g");
    } catch (error) {
      throw new UsageError(`--redact ${JSON.stringify(source)}: ${(error as Error).message}`);
    }
    if (pattern.test("")) throw new UsageError(`--redact ${JSON.stringify(source)} matches the empty string`);
    return pattern;
  });
}

/** Applies the textual rules to `text`, in order. */
export function applyTextRules(text: string, rules: readonly TextRule[]): string {
  let out = text;
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((g): g is string => typeof g === "string");
      return rule.replace(match, ...groups);
    });
  }
  return out;
}

function trimString(text: string): string {
  if (text.length <= TRIM_OVER_CHARS || TRIM_MARKER_PATTERN.test(text)) return text;
  const removed = text.length - TRIM_KEEP_HEAD - TRIM_KEEP_TAIL;
  return `${text.slice(0, TRIM_KEEP_HEAD)}${trimMarker(removed)}${text.slice(-TRIM_KEEP_TAIL)}`;
}

function redactEnvMap(value: unknown): unknown {
  const secretValue = (key: string, v: unknown) => (SECRET_KEY_PATTERN.test(key) && typeof v === "string" && v !== "" ? REDACTED : v);
  // ACP spells an env as `[{name, value}]` (mcpServers); the bridge protocol as a plain map.
  if (Array.isArray(value)) {
    return value
      .filter((entry) => !(isRecord(entry) && entry.name === RECORD_DIR_ENV_VAR))
      .map((entry) => (isRecord(entry) && typeof entry.name === "string" ? { ...entry, value: secretValue(entry.name, entry.value) } : entry));
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === RECORD_DIR_ENV_VAR) continue;
    out[key] = secretValue(key, v);
  }
  return out;
}

/** The non-empty string values of secret-named keys of one env map (plain map or ACP `[{name, value}]`). */
function envMapSecrets(value: unknown): string[] {
  const pairs: Array<[unknown, unknown]> = Array.isArray(value) ? value.filter(isRecord).map((entry) => [entry.name, entry.value]) : isRecord(value) ? Object.entries(value) : [];
  return pairs
    .filter(([key, v]) => typeof key === "string" && key !== RECORD_DIR_ENV_VAR && SECRET_KEY_PATTERN.test(key) && typeof v === "string" && v !== "" && v !== REDACTED)
    .map(([, v]) => v as string);
}

function collectEnvSecrets(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectEnvSecrets(v, out);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (ENV_MAP_KEYS.has(key)) for (const secret of envMapSecrets(v)) out.add(secret);
    collectEnvSecrets(v, out);
  }
}

/**
 * The secret values the env maps in `texts` hold (see {@link RedactionOptions.learnFrom}). Each
 * text is a lane entry (its `line` is read), a JSON line, or anything else (skipped). Unordered,
 * without duplicates.
 */
export function secretValuesIn(texts: readonly string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    const parsed = parseJson(text);
    if (!parsed.ok) continue;
    collectEnvSecrets(parsed.value, out);
    if (isRecord(parsed.value) && typeof parsed.value.line === "string") {
      const line = parseJson(parsed.value.line);
      if (line.ok) collectEnvSecrets(line.value, out);
    }
  }
  return [...out];
}

/**
 * The structural pass over one parsed JSON value (spec 10 §4): strings over
 * {@link TRIM_OVER_CHARS} characters keep their first {@link TRIM_KEEP_HEAD} and last
 * {@link TRIM_KEEP_TAIL} around {@link trimMarker} (strings already holding a marker are left
 * alone); in `env`/`envVars`/`environment` maps the record variable is removed and non-empty
 * string values of secret-named keys become `REDACTED`. Returns a new value.
 */
export function redactJsonValue(value: unknown): unknown {
  if (typeof value === "string") return trimString(value);
  if (Array.isArray(value)) return value.map(redactJsonValue);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const walked = redactJsonValue(v);
    out[key] = ENV_MAP_KEYS.has(key) ? redactEnvMap(walked) : walked;
  }
  return out;
}

/** A configured redactor (see {@link createRedactor}). */
export interface Redactor {
  /** The textual rules it applies (the sweep reuses them). */
  readonly rules: readonly TextRule[];
  /** Sweep-only detectors (see {@link RedactionOptions.forbidden}). */
  readonly forbidden: readonly TextRule[];
  /**
   * A JSON `line`: the textual pass, then the structural pass over the text it made (re-serialized
   * only when it changed, and then the textual pass again), so a string's cut is decided on its
   * stored form and no machine path's length shows in it; anything else: the textual pass.
   */
  redactLine(line: string): string;
  /** The textual pass only (`.json` files, spec 10 §4). */
  redactText(text: string): string;
  /**
   * Redacts one NDJSON lane entry `{ts, run, seq, dir, line}`: its `line` goes through
   * {@link Redactor.redactLine}; other fields are kept. A text that is not an entry gets the textual pass.
   */
  redactLaneEntry(entryText: string): string;
  /** Redacts a whole file: `.ndjson` entry by entry, anything else with the textual pass. */
  redactFile(fileName: string, text: string): string;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Creates a redactor for one recording (spec 10 §4 "Redaction"). Idempotent: every method
 * returns its input unchanged when given its own output.
 *
 * @throws UsageError for a refused home or path rewrite (see {@link textRules}).
 */
export function createRedactor(options: RedactionOptions): Redactor {
  const rules = textRules(options);
  const redactText = (text: string) => applyTextRules(text, rules);
  // The structural pass over a parsed line: its re-serialization when it changed something, else undefined.
  const structured = (value: unknown): string | undefined => {
    if (typeof value !== "object" || value === null) return undefined;
    const serialized = JSON.stringify(redactJsonValue(value));
    return serialized !== JSON.stringify(value) ? serialized : undefined;
  };
  const redactLine = (line: string): string => {
    // The cut is measured on the text as it is stored: paths already their placeholders, secrets
    // REDACTED. Cut before the textual pass, a string's length held the machine's own paths (the
    // run's temp root, the home), so "N chars trimmed" and the tail kept followed TMPDIR's length
    // (pi long-output: 10434 chars trimmed under npm test's run directory, 10411 under /tmp).
    const textual = redactText(line);
    const reparsed = parseJson(textual);
    if (reparsed.ok) {
      const cut = structured(reparsed.value);
      // The textual pass again over the cut text: a cut can leave the head of a token or path behind.
      return cut === undefined ? textual : redactText(cut);
    }
    // Only a user --redact pattern can break a line's JSON; such a line is cut as it came, as before.
    const parsed = parseJson(line);
    const cut = parsed.ok ? structured(parsed.value) : undefined;
    return cut === undefined ? textual : redactText(cut);
  };
  const redactLaneEntry = (entryText: string): string => {
    const parsed = parseJson(entryText);
    if (!parsed.ok || !isRecord(parsed.value) || typeof parsed.value.line !== "string") return redactText(entryText);
    const line = redactLine(parsed.value.line);
    return line === parsed.value.line ? entryText : JSON.stringify({ ...parsed.value, line });
  };
  const forbidden = (options.forbidden ?? []).map((pattern) => ({
    name: `forbidden ${pattern.source}`,
    pattern: new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    replace: () => "",
  }));
  return {
    rules,
    forbidden,
    redactLine,
    redactText,
    redactLaneEntry,
    redactFile(fileName, text) {
      if (!fileName.endsWith(".ndjson")) return redactText(text);
      return text
        .split("\n")
        .map((entry) => (entry === "" ? entry : redactLaneEntry(entry)))
        .join("\n");
    },
  };
}
