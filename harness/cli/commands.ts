import type { ParityCommand } from "./command.js";

/**
 * One sub-command as `main` knows it before it is loaded: its word and how to import it.
 * Commands are imported only when run (or for the top-level `--help`), so `parity --version`
 * and `parity list` do not load the replay engine, the bridges' code or the comparators.
 */
export interface CommandEntry {
  /** The command word, e.g. `"diff"` (the first word of the module's yargs command string). */
  name: string;
  /** Imports the command's module. */
  load(): Promise<ParityCommand>;
}

/** Every sub-command, in the order `parity --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "check", load: async () => (await import("./check.js")).checkCommand },
  { name: "list", load: async () => (await import("./list.js")).listCommand },
  { name: "lanes", load: async () => (await import("./lanes.js")).lanesCommand },
  { name: "diff", load: async () => (await import("./diff.js")).diffCommand },
  { name: "compare", load: async () => (await import("./compare.js")).compareCommand },
  { name: "allow", load: async () => (await import("./allow.js")).allowCommand },
  { name: "replay", load: async () => (await import("./replay.js")).replayCommand },
  { name: "record", load: async () => (await import("./record.js")).recordCommand },
  { name: "facts", load: async () => (await import("./facts.js")).factsCommand },
  { name: "rerecord", load: async () => (await import("./rerecord.js")).rerecordCommand },
  { name: "import", load: async () => (await import("./import.js")).importCommand },
  { name: "drift", load: async () => (await import("./drift.js")).driftCommand },
  { name: "merge-reports", load: async () => (await import("./merge-reports.js")).mergeReportsCommand },
  { name: "review", load: async () => (await import("./review.js")).reviewCommand },
  { name: "conform", load: async () => (await import("./conform.js")).conformCommand },
  { name: "probe", load: async () => (await import("./probe.js")).probeCommand },
];
