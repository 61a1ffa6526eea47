/**
 * Options resolved once (docs/design/00-product.md, CLI): the flags several commands share are declared
 * here, once (`y.option(name, FLAGS.name)`), with typed readers of yargs' argv and the
 * recordings selection every reading command shares. Each command turns its argv into one
 * complete, typed options object with one function (`resolveCheckOptions` in check.ts,
 * `resolveReplayCommandOptions` in replay.ts, …) before anything runs; the replay flags'
 * checks live in flag-checks.ts. Defaults come from harness/defaults.ts. This module stays light
 * (no replay engine), since `parity list` loads it.
 */
import type { Options } from "yargs";
import { CELL_CEILING_MS, RECORDINGS_ROOT } from "../defaults.js";
import { UsageError } from "../errors.js";
import { resolveRecordingRoots, type CellFilter } from "../recording/select.js";
import { missingDefaultDir } from "./project-dir.js";

/** The parsed flags of one command, as yargs hands them over. */
export type ParsedFlags = Record<string, unknown>;

/** The flags several commands share, declared once (`y.option(name, FLAGS[name])`). */
export const FLAGS = {
  recordings: { type: "string", array: true, describe: `Recordings root (repeatable; default ${RECORDINGS_ROOT})` },
  provider: { type: "string", describe: "Only this provider" },
  cell: { type: "string", describe: "Only this cell" },
  allowlist: { type: "string", array: true, describe: "Allowlist file, besides allowlists/*.json (repeatable)" },
  jobs: { type: "string", describe: "Cells replayed at once, a whole number ≥ 1 (default: the number of cores)" },
  timeout: {
    type: "string",
    describe: `Wall-clock ceiling per cell in ms (a whole number ≥ 1; default ${CELL_CEILING_MS}): a replay still running then is an infrastructure timeout, never a divergence`,
  },
  module: { type: "string", describe: "Bridge module to replay through instead of the provider's shipped one (your bridge under the gate)" },
  agentProcess: {
    choices: ["in-process", "relay", "node"] as const,
    describe:
      "What the bridge spawns as its agent in a replay: the relay served inside the bridge process (in-process, the default where perl is found), a perl relay process per agent session (relay), or a Node replay child (node). The verdict is the same for each; it is a diagnostic of the stand-ins",
  },
  cells: {
    type: "string",
    describe: "Cells root whose <cell>/workspace/ seeds a replayed cell's workspace when its recording carries none (default: the package's cells/)",
  },
  redact: { type: "string", array: true, describe: "Extra regular expression to redact (repeatable)" },
} as const satisfies Record<string, Options>;

/** A string flag's value, or undefined when it was not given. */
export function stringFlag(args: ParsedFlags, name: string): string | undefined {
  const value = args[name];
  return typeof value === "string" ? value : undefined;
}

/** A repeatable string flag's values (none when not given). */
export function stringsFlag(args: ParsedFlags, name: string): string[] {
  const value = args[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** A boolean flag: true only when given as true. */
export function booleanFlag(args: ParsedFlags, name: string): boolean {
  return args[name] === true;
}

/** Which recorded cells a command reads: the recordings roots (absolute) and the provider/cell filter. */
export interface Selection {
  roots: string[];
  filter: CellFilter;
}

/**
 * `--recordings` (default `recordings/`), `--provider`, `--cell`.
 * @throws UsageError for a `--recordings` root that is missing or not a directory, and, without
 *   `--recordings`, when there is no `recordings/` where the command works from (outside any
 *   project, a listing would be an empty table that says nothing: project-dir.ts says why instead)
 */
export function resolveSelection(args: ParsedFlags, cwd: string): Selection {
  const given = stringsFlag(args, "recordings");
  const roots = resolveRecordingRoots(given, cwd, [RECORDINGS_ROOT]);
  if (given.length === 0 && roots.length === 0) {
    throw new UsageError(missingDefaultDir(cwd, RECORDINGS_ROOT, "--recordings", "record a cell (parity record --help) or import one (parity import --help)"));
  }
  return { roots, filter: { provider: stringFlag(args, "provider"), cell: stringFlag(args, "cell") } };
}
