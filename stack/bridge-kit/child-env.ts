/**
 * The environment a bridge hands to the children it spawns (spec 30 §6.5; spec 02 §7; spec 10 §4 "the variable
 * is stripped from provider children").
 */

/** Enables record mode in a bridge process (spec 10 §4). Never reaches a child. */
export const RECORD_DIR_ENV_VAR = "BB_PROVIDER_BRIDGE_RECORD_DIR";

/**
 * Exact keys never inherited by a child: `NODE_ENV` (the runtime's build mode is not the
 * agent's business).
 */
export const RUNTIME_PRIVATE_ENV_KEYS: readonly string[] = ["NODE_ENV"];

/**
 * Key prefixes never inherited by a child: `BB_` (every runtime-private variable, the record
 * variable {@link RECORD_DIR_ENV_VAR} included).
 */
export const RUNTIME_PRIVATE_ENV_PREFIXES: readonly string[] = ["BB_"];

/** Options of {@link sanitizeInheritedChildProcessEnv}. */
export interface SanitizeChildEnvOptions {
  /** The environment to copy (usually the bridge's own). */
  env: Readonly<Record<string, string | undefined>>;
  /** Replaces `PATH` when given (children of daemons find user tools); absent: `PATH` kept. */
  shellPath?: string;
}

/** True when `key` is runtime-private and must not reach a child. */
export function isRuntimePrivateEnvKey(key: string): boolean {
  return RUNTIME_PRIVATE_ENV_KEYS.includes(key) || RUNTIME_PRIVATE_ENV_PREFIXES.some((prefix) => key.startsWith(prefix));
}

function isOptions(value: unknown): value is SanitizeChildEnvOptions {
  // An env's values are strings, so an object under `env` can only mean the options form.
  return typeof value === "object" && value !== null && typeof (value as { env?: unknown }).env === "object" && (value as { env?: unknown }).env !== null;
}

/**
 * Copies an environment for a child process (spec 30 §6.5): undefined values, the keys of
 * {@link RUNTIME_PRIVATE_ENV_KEYS} and every key starting with one of
 * {@link RUNTIME_PRIVATE_ENV_PREFIXES} are left out; `shellPath` replaces `PATH`. Nothing
 * else is removed. Accepts `{env, shellPath?}` (the reference's form) or the env itself.
 * Returns a new object.
 */
export function sanitizeInheritedChildProcessEnv(input: SanitizeChildEnvOptions | Readonly<Record<string, string | undefined>>): Record<string, string> {
  const options: SanitizeChildEnvOptions = isOptions(input) ? input : { env: input as Readonly<Record<string, string | undefined>> };
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value === undefined || isRuntimePrivateEnvKey(key)) continue;
    result[key] = value;
  }
  if (options.shellPath !== undefined) result.PATH = options.shellPath;
  return result;
}
