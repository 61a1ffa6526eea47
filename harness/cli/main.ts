import yargs from "yargs";
import { EXIT_CODES, ParityError, toParityError } from "../errors.js";
import { COMMANDS } from "./commands.js";
import { processContext, type CliContext } from "./context.js";

/**
 * Runs `parity <argv…>` and returns the exit code (00-product.md, CLI): 0 pass,
 * 1 parity failure, 2 usage or input error. Errors print as one line on stderr; the stack
 * trace only with `--verbose`. `ctx` is injectable for in-process tests.
 */
export async function main(argv: string[], ctxOverride?: Partial<CliContext>): Promise<number> {
  const verbose = argv.includes("--verbose");
  const ctx: CliContext = { ...processContext(verbose), ...ctxOverride };
  let exitCode: number = EXIT_CODES.ok;
  let usageFailure: string | undefined;
  let ran = false;

  const parser = yargs(argv)
    .scriptName("parity")
    .usage("$0 <command> [options]\n\nRecord/replay parity harness for provider bridges.")
    .option("verbose", { type: "boolean", default: false, describe: "Print stack traces and child stderr" })
    .strict()
    .demandCommand(1, "Name a command: see `parity --help`.")
    .recommendCommands()
    .help()
    .alias("h", "help")
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      usageFailure = msg;
    })
    .epilogue("Exit codes: 0 pass, 1 parity failure, 2 usage or input error.");

  for (const cmd of COMMANDS) {
    parser.command(cmd.command, cmd.describe, (y) => cmd.builder(y), async (args) => {
      ran = true;
      exitCode = await cmd.run(args as Record<string, unknown>, ctx);
    });
  }

  try {
    await parser.parseAsync();
  } catch (thrown) {
    const error = toParityError(thrown);
    ctx.err(`parity: ${error.message}\n`);
    if (ctx.verbose && thrown instanceof Error && thrown.stack) ctx.err(`${thrown.stack}\n`);
    if (!(thrown instanceof ParityError) && !ctx.verbose) ctx.err("(run with --verbose for the stack trace)\n");
    return error.exitCode;
  }
  if (usageFailure !== undefined) {
    ctx.err(`parity: ${usageFailure}\n`);
    return EXIT_CODES.inputError;
  }
  if (!ran && !argv.some((a) => a === "--help" || a === "-h")) {
    ctx.err(`parity: unknown command "${argv.find((a) => !a.startsWith("-")) ?? ""}": see \`parity --help\`\n`);
    return EXIT_CODES.inputError;
  }
  return exitCode;
}
