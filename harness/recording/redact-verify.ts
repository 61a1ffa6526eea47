/**
 * The final sweep of redaction (spec 10 §4: "A final sweep exits 3 if any pattern
 * survives"): every file of a redacted recording is scanned, line by line, for anything the
 * redactor would still change and for secret shapes the passes do not rewrite (a
 * `NAME_TOKEN=value` assignment in command output, a secret-named JSON key). Each survivor is
 * reported with `file:line`, never with the secret itself.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { RECORD_DIR_ENV_VAR } from "../../stack/bridge-kit/child-env.js";
import { EXIT_CODES, ParityError } from "../errors.js";
import { REDACTED, SECRET_KEY_PATTERN, type Redactor, type TextRule } from "./redact.js";

/** One match that survived redaction. */
export interface RedactionSurvivor {
  /** File path as given to the sweep. */
  file: string;
  /** 1-based line of the file. */
  line: number;
  /** The rule that matched (`email`, `bearer`, `secret assignment`, `--redact <re>`, …). */
  rule: string;
  /** A masked excerpt: the first 4 characters of the match and its length. */
  excerpt: string;
}

const mask = (match: string) => `${match.slice(0, 4)}… (${match.length} chars)`;

/** Detectors the sweep adds to the redactor's own rules (they find, they do not rewrite). */
const SWEEP_ONLY_RULES: TextRule[] = [
  {
    name: "secret assignment",
    pattern: /\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH)[A-Z0-9_]*=(?!REDACTED)[^\s"'\\]{8,}/g,
    replace: () => "",
  },
  {
    name: "secret-named JSON key",
    pattern: /\\*"(?:api[_-]?key|apiKey|password|passwd|secret|client_secret|access_?token|refresh_?token|accessToken|refreshToken)\\*"\s*:\s*\\*"(?!REDACTED)[^"\\]{8,}/gi,
    replace: () => "",
  },
];

function scanText(text: string, rules: readonly TextRule[], report: (rule: string, match: string) => void): void {
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    for (const m of text.matchAll(rule.pattern)) {
      const groups = m.slice(1).filter((g): g is string => typeof g === "string");
      // A rule's own output is not a survivor (idempotence); the sweep-only rules never rewrite.
      if (rule.replace(m[0], ...groups) !== m[0]) report(rule.name, m[0]);
    }
  }
}

function scanEnvMaps(value: unknown, report: (rule: string, match: string) => void): void {
  if (Array.isArray(value)) {
    for (const v of value) scanEnvMaps(v, report);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, v] of Object.entries(value)) {
    if (["env", "envVars", "environment"].includes(key) && typeof v === "object" && v !== null && !Array.isArray(v)) {
      for (const [name, val] of Object.entries(v)) {
        if (name === RECORD_DIR_ENV_VAR) report("record variable in env map", name);
        else if (SECRET_KEY_PATTERN.test(name) && typeof val === "string" && val !== "" && val !== REDACTED) report("secret env value", name);
      }
    }
    scanEnvMaps(v, report);
  }
}

/**
 * Sweeps one file's text (spec 10 §4 final sweep). `.ndjson` lines are lane entries whose
 * decoded `line` is scanned (also structurally, for env maps); other lines are scanned as text.
 */
export function sweepFileText(file: string, text: string, redactor: Redactor): RedactionSurvivor[] {
  const survivors: RedactionSurvivor[] = [];
  const rules = [...redactor.rules, ...SWEEP_ONLY_RULES, ...redactor.forbidden];
  text.split("\n").forEach((raw, index) => {
    if (raw === "") return;
    const report = (rule: string, match: string) => survivors.push({ file, line: index + 1, rule, excerpt: mask(match) });
    let scanned = raw;
    if (file.endsWith(".ndjson")) {
      try {
        const entry = JSON.parse(raw) as { line?: unknown };
        if (typeof entry.line === "string") {
          scanned = entry.line;
          try {
            scanEnvMaps(JSON.parse(entry.line), report);
          } catch {
            // Not JSON: the textual scan below covers it.
          }
        }
      } catch {
        // Not an entry: scan the raw text.
      }
    }
    scanText(scanned, rules, report);
  });
  return survivors;
}

/** Sweeps every regular file directly in `dir` (a recording directory); sorted by file, then line. */
export async function sweepDirectory(dir: string, redactor: Redactor): Promise<RedactionSurvivor[]> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => d.name)
    .sort();
  const survivors: RedactionSurvivor[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    survivors.push(...sweepFileText(file, await readFile(file, "utf8"), redactor));
  }
  return survivors;
}

/** One line per survivor: `file:line: <rule> survived redaction (<excerpt>)`. */
export function formatSurvivors(survivors: readonly RedactionSurvivor[]): string {
  return survivors.map((s) => `${s.file}:${s.line}: ${s.rule} survived redaction (${s.excerpt})\n`).join("");
}

/**
 * A secret survived redaction (spec 10 §4: exit 3). The message lists every survivor
 * `file:line`; nothing was written.
 */
export class RedactionSurvivorError extends ParityError {
  readonly survivors: readonly RedactionSurvivor[];

  constructor(survivors: readonly RedactionSurvivor[], displayFile: (file: string) => string = (f) => f) {
    const lines = survivors.map((s) => `${displayFile(s.file)}:${s.line}: ${s.rule} survived redaction (${s.excerpt})`);
    super("E_SECRET", `${lines.join("\n")}\n${survivors.length} match(es) survived redaction; nothing was written. Add a --redact <regex> for each, or change the cell.`, EXIT_CODES.secretSurvived);
    this.survivors = survivors;
  }
}
