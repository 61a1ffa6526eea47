/** Reporters for check runs (text, json, junit, github) and the lane timeline (docs/design/00-product.md, report/). */
export * from "./check-report.js";
export * from "./suggest.js";
export * from "./advice.js";
export * from "./change-window.js";
export * from "./text.js";
export * from "./json.js";
export * from "./junit.js";
export * from "./github.js";
export * from "./reporters.js";
export * from "./reporter-names.js";
export * from "./timeline.js";
export * from "./lane-set.js";
export * from "./html.js";
