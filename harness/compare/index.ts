/** Lane diff, allowlist masking, stale entries and verdicts (spec 10 §6.3–6.4). */
export * from "./lcs.js";
export * from "./skeleton.js";
export * from "./id-correspondence.js";
export * from "./address.js";
export * from "./pointer.js";
export * from "./event-selector.js";
export * from "./allowlist.js";
export * from "./mask.js";
export * from "./lane-diff.js";
export * from "./parity.js";
export * from "./lane-sources.js";
export * from "./lane-set-diff.js";
export * from "./leg.js";
export * from "./stream-compare.js";
