import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../harness/cli/main.js";
import type { CliContext } from "../../harness/cli/context.js";

/** The repository root, for resolving `../shared/...` by path (never copied). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The shared real recordings root. */
export const sharedRecordings = path.resolve(repoRoot, "../shared/recordings");
/** The reference implementation's normalized lanes of the acp-cursor thread cells. */
export const referenceLanes = path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor");

/** Result of one in-process `parity` run. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs `parity <argv>` in-process with captured output, no colour, cwd = repo root unless given. */
export async function runCli(argv: string[], ctx: Partial<CliContext> = {}): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    color: false,
    verbose: false,
    ci: false,
    cwd: repoRoot,
    ...ctx,
  });
  return { code, out, err };
}
