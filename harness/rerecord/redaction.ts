/**
 * The redactor a rerecord applies to the current lane (spec 10 §6.6 step 5, §4 Redaction):
 * LIVE-RECORD's `createRedactor`, configured from the environment once per run.
 */
import os from "node:os";
import { SECRET_KEY_PATTERN, createRedactor, type Redactor } from "../recording/redact.js";

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

/**
 * A redactor for rerecorded lanes (LIVE-RECORD's `createRedactor`): the home path (as is and
 * in dashed form), the values of secret-named variables (`KEY|TOKEN|SECRET|…`,
 * {@link MIN_SECRET_VALUE_CHARS}+ characters) of the environment the bridge ran in, the
 * standard structural and textual passes, and user patterns. Idempotent.
 *
 * @throws UsageError for a refused home (see `createRedactor`)
 */
export function rerecordRedactor(options: RerecordRedactionOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const secrets = Object.entries(env)
    .filter(([key, value]) => SECRET_KEY_PATTERN.test(key) && typeof value === "string" && value.length >= MIN_SECRET_VALUE_CHARS)
    .map(([, value]) => value as string);
  return createRedactor({ home: options.home ?? os.homedir(), secrets, ...(options.patterns ? { patterns: options.patterns } : {}) });
}
