/**
 * The delta assembler and host grammar (spec 10 §2–3): public surface of `stack/assembler`.
 */
export { createDeltaAssembler, type DeltaAssembler } from "./assembler.js";
export { DeltaAssemblerOptionsError, resolveDeltaAssemblerOptions, type DeltaAssemblerOptions, type ResolvedDeltaAssemblerOptions } from "./options.js";
export { createThreadEventGrammar, THREAD_EVENT_GRAMMAR_RULES, type GrammarVerdict, type ThreadEventGrammar, type ThreadEventGrammarRule } from "./host-grammar.js";
export { fileChangeDiff, changedLines, diffHeaderPath } from "./file-diff.js";
export { DEFAULT_PROGRESS_THROTTLE_MS, DEFAULT_TEXT_DELTA_FLUSH_MS, MAX_ASSEMBLER_THREADS, MAX_GRAMMAR_ITEM_IDS, MAX_ID_MAP_ENTRIES, MAX_SETTLED_ITEM_KEYS } from "./limits.js";
