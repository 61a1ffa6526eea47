/**
 * Size limits and default windows of the delta assembler and host grammar (spec 10 §2.1, §2.4,
 * §2.10, §2.11, §3). One place, so a reader can see every bound at once.
 */

/** Threads kept before the oldest idle one is evicted (spec 10 §2.4). */
export const MAX_ASSEMBLER_THREADS = 256;

/** Entries per id map and per `lastEmit` map; the oldest inserted is evicted first (spec 10 §2.1, §2.11). */
export const MAX_ID_MAP_ENTRIES = 1024;

/** Settled item keys remembered per thread for close dedup (spec 10 §2.4). */
export const MAX_SETTLED_ITEM_KEYS = 512;

/** Open and settled item ids the host grammar remembers per thread (spec 10 §3). */
export const MAX_GRAMMAR_ITEM_IDS = 512;

/** Default progress throttle window per key, in ms (spec 10 §2.10). */
export const DEFAULT_PROGRESS_THROTTLE_MS = 500;

/** Default text batching window per stream, in ms; 0 disables batching (spec 10 §2.11). */
export const DEFAULT_TEXT_DELTA_FLUSH_MS = 100;

/** Default id prefix head; the assembler appends 8 characters of a random UUID (spec 10 §2.1). */
export const DEFAULT_ID_PREFIX_HEAD = "da";
