import type { Argv } from "yargs";
import type { CliContext } from "./context.js";

/**
 * One `parity` sub-command (docs/design/00-product.md, CLI). Each lives in its own module under
 * `harness/cli/` and is listed in `commands.ts`.
 *
 * `run` returns the exit code (0 pass, 1 parity failure, 2 usage or input error) and throws
 * only {@link import("../errors.js").ParityError}s for user-caused problems.
 */
export interface ParityCommand {
  /** yargs command string, e.g. `"lanes"` or `"diff <a> <b>"`. */
  command: string;
  /** One line for `parity --help`. */
  describe: string;
  /** Declares flags and examples. */
  builder(y: Argv): Argv;
  /**
   * The command makes temp files (replays, records, spawns bridges or agents): a real run gets
   * a session temp dir, removed as one at the end or on an interrupt (harness/cli/interrupt.ts).
   */
  tempDir?: boolean;
  /** The command stops itself when `ctx.signal` aborts and says what it did (e.g. `record`). */
  graceful?: boolean;
  /** Runs the command with parsed flags. */
  run(args: Record<string, unknown>, ctx: CliContext): Promise<number>;
}
