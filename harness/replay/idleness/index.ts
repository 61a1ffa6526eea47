/**
 * The replay's idleness room: one interface ({@link IdlenessJudge}), its judges, and the choice
 * between them. See README.md.
 */
export type { IdlenessJudge, LookContext, Settlement } from "./judge.js";
export { chooseIdlenessJudge, type JudgeChoice } from "./choose.js";
export { createProcJudge, settlementOf } from "./proc-judge.js";
export { createQuietJudge } from "./quiet-judge.js";
