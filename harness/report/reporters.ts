/** The closed set of `--reporter` values and how each renders a run (docs/design/00-product.md, `check`). */
import type { CheckRunResult } from "./check-report.js";
import { renderGithubReport } from "./github.js";
import { renderJsonReport } from "./json.js";
import { renderJunitReport } from "./junit.js";
import { renderTextReport } from "./text.js";
import { renderRunHtml } from "./run-html.js";
import { renderBlob } from "./blob.js";

import { reporterNameOf, type ReporterName } from "./reporter-names.js";

/**
 * A reporter turns a run into the text written to stdout; only `text` uses colour and `width`
 * (the terminal's, in characters), only `github` the `cwd` and the repository root `workspace`
 * (`GITHUB_WORKSPACE`; annotation paths are relative to it), only `text` `explain` (each
 * untruth's evidence lines).
 */
export type Reporter = (run: CheckRunResult, options: { color: boolean; width?: number; cwd?: string; workspace?: string; explain?: boolean }) => string;

const REPORTERS: Readonly<Record<ReporterName, Reporter>> = {
  text: (run, options) => renderTextReport(run, options),
  json: (run) => renderJsonReport(run),
  junit: (run) => renderJunitReport(run),
  html: (run) => renderRunHtml(run),
  blob: (run) => renderBlob(run),
  github: (run, options) => renderGithubReport(run, { ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), ...(options.workspace !== undefined ? { workspace: options.workspace } : {}) }),
};

/**
 * Returns the reporter called `name`.
 * @throws UsageError naming the valid reporters for anything else.
 */
export function selectReporter(name: string): Reporter {
  return REPORTERS[reporterNameOf(name)];
}
