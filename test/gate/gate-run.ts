/**
 * The gate as a user runs it: `parity check --provider P --cell C --module M`, once with the
 * JSON reporter and once with the text reporter, in-process, with CI=true so no oracle is
 * ever written by a test.
 */
import { runCli } from "../helpers/run-cli.js";

export { repoRoot } from "../helpers/run-cli.js";

/** What one gate run printed and returned. */
export interface GateRun {
  /** The exit code of `parity check` (docs/design/00-product.md, CLI). */
  code: number;
  /** The fixed JSON report (`--reporter json`), parsed. */
  report: {
    passed: number;
    failed: number;
    skipped: number;
    cells: Array<{ provider: string; cell: string; status: string; diffs: Array<{ against: string; op: string; path: string }>; divergences: unknown[] }>;
  };
  /** The `--reporter text` output (no colour). */
  text: string;
}

/** Runs the gate over `provider`/`cell` of the committed recordings through `modulePath` (absolute). */
export async function runGate(options: { provider: string; cell: string; modulePath: string }): Promise<GateRun> {
  const argv = ["check", "--provider", options.provider, "--cell", options.cell, "--module", options.modulePath];
  const json = await runCli([...argv, "--reporter", "json"], { ci: true });
  const text = await runCli([...argv, "--reporter", "text"], { ci: true });
  if (json.code !== text.code) throw new Error(`the two reporters' runs disagree: exit ${json.code} vs ${text.code}`);
  return { code: json.code, report: JSON.parse(json.out) as GateRun["report"], text: text.out };
}
