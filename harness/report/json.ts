/** The `json` reporter: exactly the fixed {@link CheckReport} shape, pretty-printed, newline-terminated. */
import type { CheckRunResult } from "./check-report.js";
import { toCheckReport } from "./check-report.js";

/** Renders a run as the fixed JSON report (docs/design/00-product.md, `check --reporter json`). */
export function renderJsonReport(run: CheckRunResult): string {
  return `${JSON.stringify(toCheckReport(run), null, 2)}\n`;
}
