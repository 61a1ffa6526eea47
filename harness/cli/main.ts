import yargs, { type MiddlewareFunction } from "yargs";
import { EXIT_CODES, ParityError, UsageError, toParityError } from "../errors.js";
import { packageVersion } from "../recording/package-root.js";
import type { ParityCommand } from "./command.js";
import { COMMANDS } from "./commands.js";
import { processContext, type CliContext } from "./context.js";
import { closestName } from "./did-you-mean.js";
import { runInterruptible } from "./interrupt.js";

/**
 * Runs `parity <argv…>` and returns the exit code (docs/design/00-product.md, CLI): 0 pass,
 * 1 parity failure, 2 usage or input error. Errors print as one line on stderr; the stack
 * trace only with `--verbose`. `--help` text goes to `ctx.out` (never `console.log`), so
 * in-process runs capture it. A usage error (unknown flag, unknown command, bad positional)
 * is raised before any command runs, so a mistyped flag never leaves files behind.
 * `ctx` is injectable for in-process tests.
 */
export async function main(argvGiven: string[], ctxOverride?: Partial<CliContext>): Promise<number> {
  const argv = helpAsFlag(argvGiven);
  const verbose = argv.includes("--verbose");
  // Without an override this is the `parity` executable itself (bin/parity.js): it owns its process.
  const ctx: CliContext = { ...processContext(verbose, ctxOverride === undefined), ...ctxOverride };
  // `--color` / `--no-color` win over FORCE_COLOR, NO_COLOR and the TTY (the last one given counts).
  const colorFlag = argv.filter((a) => a === "--color" || a === "--no-color").at(-1);
  if (colorFlag !== undefined) ctx.color = colorFlag === "--color";
  // Progress shares standard error with `err`: a caller that captures `err` (an in-process run) gets none unless it asks.
  if (ctxOverride?.err !== undefined && ctxOverride.progress === undefined) delete ctx.progress;
  let exitCode: number = EXIT_CODES.ok;
  let ran = false;
  let yargsOutput = "";
  // The running command's option table, kept by a before-validation middleware for the
  // did-you-mean of an unknown flag.
  let declared: DeclaredOptions | undefined;
  // The named command's usage (`compare <providerA> <providerB>`), for yargs' missing-argument messages.
  let usage: string | undefined;

  const parser = yargs(argv)
    .scriptName("parity")
    .usage("$0 <command> [options]\n\nRecord/replay parity harness for provider bridges.")
    .option("verbose", { type: "boolean", default: false, describe: "Print stack traces and child stderr" })
    .option("color", { type: "boolean", describe: "Colour the output (--no-color: never); default: on a terminal, unless NO_COLOR" })
    .strict()
    .demandCommand(1, "Name a command: see `parity --help`.")
    .recommendCommands()
    .help()
    .alias("h", "help")
    .version("version", "Print the package version", packageVersion())
    // One alias call with both letters: yargs lists the option once (`-V, -v, --version`); two calls listed it twice.
    .alias("version", ["V", "v"])
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .exitProcess(false)
    // Throwing here is what stops yargs: a fail handler that returns lets the command run anyway.
    .fail((msg, err) => {
      if (err) throw err;
      // yargs wraps some messages ("Invalid values:\n  Argument: …"): the CLI prints one line.
      throw new UsageError(withPositionalHint(withFlagSuggestion(plainYargsMessage(msg.replace(/\s*\n\s*/g, " ").trim(), usage), declared), argv, usage));
    })
    .example("$0 check", "The gate over every committed recording (what CI runs)")
    .example("$0 check --recordings ../shared/recordings --provider acp-cursor", "The real cursor recordings")
    .example("$0 lanes --recordings ../shared/recordings", "Event counts of every recorded cell")
    .example("$0 diff main HEAD", "What changed in lanes/ between two refs")
    .example("$0 help <command>", "Flags and examples of one command (same as parity <command> --help)")
    .epilogue(`${EXIT_CODES_TEXT} (record, import), 4 infrastructure timeout (check, replay, rerecord, review, import: the wall-clock ceiling, no verdict); ${INTERRUPT_CODES_TEXT}.`)
    // yargs calls middleware with (args, the command's yargs); its typings only name args.
    .middleware(((args: Record<string, unknown>, y: { getOptions(): DeclaredOptions }) => rejectAmbiguousStrings(args, y.getOptions())) as unknown as MiddlewareFunction)
    .middleware(
      ((_args: Record<string, unknown>, y: { getOptions(): DeclaredOptions }) => {
        declared = y.getOptions();
      }) as unknown as MiddlewareFunction,
      true,
    )
    .middleware(skipHelpCaching as unknown as MiddlewareFunction, true);

  try {
    const named = firstPositional(argv);
    if (named !== undefined && !COMMANDS.some((entry) => entry.name === named)) {
      const near = closestName(
        named,
        COMMANDS.map((entry) => entry.name),
      );
      throw new UsageError(`unknown command "${named}"${near !== undefined ? `; did you mean \`parity ${near}\`?` : ""}: see \`parity --help\``);
    }
    for (const cmd of await commandsToLoad(named, argv)) {
      if (commandName(cmd.command) === named) usage = cmd.command;
      parser.command(
        cmd.command,
        cmd.describe,
        (y) => cmd.builder(y).epilogue(exitCodesOf(commandName(cmd.command))),
        async (args) => {
          ran = true;
          const host = ctx.interrupts;
          exitCode =
            host === undefined
              ? await cmd.run(args as Record<string, unknown>, ctx)
              : await runInterruptible((signal, wrote) => cmd.run(args as Record<string, unknown>, { ...ctx, signal, wrote }), {
                  host,
                  cwd: ctx.cwd,
                  tempDir: cmd.tempDir === true,
                  graceful: cmd.graceful === true,
                  err: ctx.err,
                });
        },
      );
    }
    // A parse callback makes yargs hand its help text back instead of calling console.log.
    await parser.parseAsync(argv, {}, (_err, _args, output) => {
      yargsOutput = output;
    });
    if (yargsOutput !== "") ctx.out(yargsOutput.endsWith("\n") ? yargsOutput : `${yargsOutput}\n`);
  } catch (thrown) {
    const error = toParityError(thrown);
    ctx.err(`parity: ${error.message}\n`);
    if (ctx.verbose && thrown instanceof Error && thrown.stack) ctx.err(`${thrown.stack}\n`);
    if (!(thrown instanceof ParityError) && !ctx.verbose) ctx.err("(run with --verbose for the stack trace)\n");
    return error.exitCode;
  }
  if (!ran && !argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-V" || a === "-v")) {
    ctx.err(`parity: unknown command "${argv.find((a) => !a.startsWith("-")) ?? ""}": see \`parity --help\`\n`);
    return EXIT_CODES.inputError;
  }
  return exitCode;
}

/**
 * yargs renders the running command's whole help text as its handler starts (`cacheHelpMessage`,
 * kept for a handler that calls `showHelp` later; none of ours does): a wrapped, width-measured
 * table on every run, about a tenth of a cursor check's CLI CPU in a profile (issue 25). A
 * before-validation middleware runs on the command's own yargs just before that call; this one
 * makes the call a no-op. `--help` does not go through it (yargs prints help before any command
 * runs), so help text is unchanged.
 */
function skipHelpCaching(_args: Record<string, unknown>, y: { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } }): void {
  y.getInternalMethods().getUsageInstance().cacheHelpMessage = () => undefined;
}

/** The exit codes every command shares (docs/design/00-product.md, CLI), and `record`'s own. */
const EXIT_CODES_TEXT = "Exit codes: 0 pass, 1 parity failure, 2 usage or input error, 3 a secret survived redaction";

/** The exit codes of an interrupted run (harness/cli/interrupt.ts). */
const INTERRUPT_CODES_TEXT =
  "5 internal error (a file, directory or stream that could not be read or written, named in one line); 129 parent gone (SIGHUP), 130 interrupted (SIGINT), 143 terminated (SIGTERM), temp files removed";

/** The exit-code line of one command's `--help`: only `record` and `import` (which redact) can exit 3; only the replaying commands 4. */
function exitCodesOf(name: string): string {
  if (name === "record") return `${EXIT_CODES_TEXT} (nothing written); ${INTERRUPT_CODES_TEXT}.`;
  if (name === "import") return `${EXIT_CODES_TEXT} (nothing written), 4 infrastructure timeout (a replay hit the wall-clock ceiling; nothing written); ${INTERRUPT_CODES_TEXT}.`;
  const timeout = ["check", "replay", "rerecord", "review"].includes(name) ? ", 4 infrastructure timeout (the wall-clock ceiling; no verdict)" : "";
  return `Exit codes: 0 pass, 1 parity failure, 2 usage or input error${timeout}; ${INTERRUPT_CODES_TEXT}.`;
}

/**
 * The commands this run needs loaded: the one named (its flags and `--help`), none for a bare
 * `--version`, every one otherwise (the top-level `--help` and yargs' "name a command" error
 * list them all). Loading only what runs keeps start-up to the named command's modules.
 */
async function commandsToLoad(named: string | undefined, argv: readonly string[]): Promise<ParityCommand[]> {
  if (named !== undefined) return Promise.all(COMMANDS.filter((entry) => entry.name === named).map((entry) => entry.load()));
  if (argv.some((a) => a === "--version" || a === "-V") && !argv.some((a) => a === "--help" || a === "-h")) return [];
  return Promise.all(COMMANDS.map((entry) => entry.load()));
}

/**
 * `parity help <cmd> [...]` as `parity <cmd> --help`, and a bare `parity help` as `parity --help`
 * (git's and npm's spelling).
 */
function helpAsFlag(argv: string[]): string[] {
  if (argv[0] !== "help") return argv;
  return argv.length > 1 ? [argv[1]!, "--help", ...argv.slice(2)] : ["--help"];
}

/** The first argument that is not a flag (`--verbose` and `-h` take no value), or undefined. */
function firstPositional(argv: string[]): string | undefined {
  for (const arg of argv) {
    if (arg === "--") return undefined;
    if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** The command word of a yargs command string: `"diff <a> <b>"` → `"diff"`. */
function commandName(command: string): string {
  return command.split(" ")[0] ?? command;
}

/**
 * yargs' own wording of three usage errors in the CLI's (a flag is `--name`, a value is named with
 * its flag, what is missing says how to see the command's help); any other message as it is.
 * `usage` is the running command's yargs string (`compare <providerA> <providerB>`), when known.
 * - `Invalid values: Argument: layer, Given: "rows", Choices: "events", "grammar"` → `--layer rows: use one of events, grammar`
 * - `Missing required arguments: provider, from` → `missing --provider, --from: see parity drift --help`
 * - `Not enough non-option arguments: got 1, need at least 2` → `parity compare <providerA> <providerB>: 1 of 2 arguments given; see parity compare --help`
 */
export function plainYargsMessage(message: string, usage: string | undefined): string {
  const unquote = (text: string) => text.trim().replace(/^"(.*)"$/, "$1");
  const help = usage !== undefined ? `see parity ${commandName(usage)} --help` : "see parity --help";
  const invalid = /^Invalid values: Argument: ([^,]+), Given: (.+?), Choices: (.+)$/.exec(message);
  if (invalid) return `--${invalid[1]!} ${unquote(invalid[2]!)}: use one of ${invalid[3]!.split(/,\s*/).map(unquote).join(", ")}`;
  const missing = /^Missing required arguments?: (.+)$/.exec(message);
  if (missing)
    return `missing ${missing[1]!
      .split(/,\s*/)
      .map((name) => `--${name}`)
      .join(", ")}: ${help}`;
  const few = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(message);
  if (few) return `${usage !== undefined ? `parity ${usage}` : "a command"}: ${few[1]!} of ${few[2]!} arguments given; ${help}`;
  return message;
}

/**
 * Adds to yargs' `Unknown argument: bogus` for a word typed bare (`parity probe acp-opencode`)
 * that the command takes no such positional argument and a value goes after its flag, when no
 * flag suggestion was made. A mistyped flag (`--provder`) is left to {@link withFlagSuggestion}.
 */
function withPositionalHint(message: string, argv: readonly string[], usage: string | undefined): string {
  const unknown = /^Unknown arguments?: ([^;]+)$/.exec(message);
  if (!unknown || usage === undefined) return message;
  const bare = unknown[1]!.split(/,\s*/).find((word) => argv.includes(word));
  if (bare === undefined) return message;
  return `${message}: parity ${usage} takes no such positional argument; a value goes after its flag (see parity ${commandName(usage)} --help)`;
}

/** What {@link rejectAmbiguousStrings} and {@link withFlagSuggestion} need of yargs' option table. */
interface DeclaredOptions {
  string: string[];
  array: string[];
  boolean: string[];
  default: Record<string, unknown>;
  hiddenOptions?: string[];
}

/**
 * Adds "did you mean --x?" to yargs' `Unknown argument: foo` for the first unknown flag that is
 * near a declared one (hidden old spellings are not suggested).
 */
function withFlagSuggestion(message: string, options: DeclaredOptions | undefined): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (!unknown || options === undefined) return message;
  const hidden = new Set(options.hiddenOptions ?? []);
  const known = [...new Set([...options.string, ...options.boolean, ...Object.keys(options.default)])].filter((k) => k.length > 1 && !hidden.has(k) && !/[A-Z]/.test(k));
  for (const typed of unknown[1]!.split(/,\s*/)) {
    const near = closestName(typed.replace(/^-+/, ""), known);
    if (near !== undefined) return `${message}; did you mean --${near}?`;
  }
  return message;
}

/**
 * Rejects string flags a command would otherwise misread: `--out` with no value (yargs gives
 * `""`, which resolves to the working directory), a repeatable flag with no value, and a
 * single-valued flag given twice (yargs makes it an array, which `typeof … === "string"`
 * checks then silently ignore).
 * @throws UsageError naming the flag.
 */
function rejectAmbiguousStrings(args: Record<string, unknown>, declared: DeclaredOptions): void {
  for (const key of declared.string) {
    if (!(key in args) || key.length === 1) continue;
    const value = args[key];
    if (value === declared.default[key]) continue;
    const repeatable = declared.array.includes(key);
    if (Array.isArray(value)) {
      if (!repeatable) throw new UsageError(`--${key} was given more than once; give it once`);
      if (value.length === 0 || value.some((v) => v === "")) throw new UsageError(`--${key} needs a value`);
    } else if (value === "") {
      throw new UsageError(`--${key} needs a value`);
    }
  }
  for (const key of declared.array) {
    if (key in args && args[key] !== declared.default[key] && Array.isArray(args[key]) && (args[key] as unknown[]).length === 0) {
      throw new UsageError(`--${key} needs a value`);
    }
  }
}
