import type { ParityCommand } from "./command.js";
import { listCommand } from "./list.js";
import { replayCommand } from "./replay.js";

/** Every sub-command, in the order `parity --help` lists them. */
export const COMMANDS: ParityCommand[] = [
  listCommand,
  replayCommand,
];
