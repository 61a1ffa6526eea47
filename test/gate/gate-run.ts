/**
 * The gate as `parity check` composes it (harness/cli/check.ts), with one addition the CLI
 * does not offer yet: the bridge module to replay. `parity check` has no `--module`, so the
 * self-parity test builds the same run from the same parts (recording selection, the
 * committed allowlists, `checkCells`, the reporters, `checkExitCode`) and only adds
 * `replay.modulePath`.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAllowlists } from "../../harness/compare/allowlist.js";
import { resolveRecordingRoots, selectRecordings } from "../../harness/recording/select.js";
import { checkExitCode, type CheckRunResult } from "../../harness/report/check-report.js";
import { selectReporter } from "../../harness/report/reporters.js";
import { checkCells } from "../../harness/replay/check-cells.js";

/** The repository root; `../shared/...` is resolved from it and read by path, never copied. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** What one gate run printed and returned, as `parity check --reporter json` and `text` would. */
export interface GateRun {
  /** 0 every cell passed or was skipped, 1 some cell failed (00-product.md, CLI). */
  code: 0 | 1;
  /** The fixed JSON report (`--reporter json`), parsed. */
  report: {
    passed: number;
    failed: number;
    skipped: number;
    cells: Array<{ provider: string; cell: string; status: string; diffs: Array<{ against: string; op: string; path: string }>; divergences: unknown[] }>;
  };
  /** The `--reporter text` output (no colour). */
  text: string;
  run: CheckRunResult;
}

/**
 * Runs the gate over `provider`/`cell` under `recordings` (relative to the repo root; default
 * the committed `recordings/`), replaying through `modulePath` (absolute) when given.
 */
export async function runGate(options: { provider: string; cell: string; modulePath?: string; recordings?: string }): Promise<GateRun> {
  const roots = resolveRecordingRoots([options.recordings ?? "recordings"], repoRoot, ["recordings"]);
  const locations = await selectRecordings(roots, { provider: options.provider, cell: options.cell });
  if (locations.length !== 1) throw new Error(`expected one cell ${options.provider}/${options.cell}, found ${locations.length}`);
  const allowlist = await loadAllowlists({ cwd: repoRoot, files: [] });
  const { run } = await checkCells({
    locations,
    repoRoot,
    lanesDir: path.join(repoRoot, "lanes"),
    allowlist,
    jobs: 1,
    // CI mode: a gate run from a test must never write an oracle.
    ci: true,
    ...(options.modulePath !== undefined ? { replay: { modulePath: options.modulePath } } : {}),
  });
  return {
    code: checkExitCode(run),
    report: JSON.parse(selectReporter("json")(run, { color: false })) as GateRun["report"],
    text: selectReporter("text")(run, { color: false }),
    run,
  };
}
