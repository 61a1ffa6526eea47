import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../harness/cli/main.js";
import type { CliContext } from "../../harness/cli/context.js";

/** The repository root; `../shared/...` is resolved from it and read by path, never copied into the repo. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Result of one in-process `parity` run: the exit code and everything written to stdout / stderr. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `parity <argv>` in-process with captured output: no colour, not verbose, not CI, cwd = repo
 * root, unless `ctx` says otherwise. The one runner every CLI test shares.
 */
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
