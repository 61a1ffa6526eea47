import type { ParityCommand } from "./command.js";
import { checkCommand } from "./check.js";
import { lanesCommand } from "./lanes.js";
import { listCommand } from "./list.js";
import { diffCommand } from "./diff.js";
import { allowCommand } from "./allow.js";
import { replayCommand } from "./replay.js";
import { conformCommand } from "./conform.js";
import { probeCommand } from "./probe.js";
import { recordCommand } from "./record.js";
import { rerecordCommand } from "./rerecord.js";
import { reviewCommand } from "./review.js";

/** Every sub-command, in the order `parity --help` lists them. */
export const COMMANDS: ParityCommand[] = [
  checkCommand,
  listCommand,
  lanesCommand,
  diffCommand,
  allowCommand,
  replayCommand,
  recordCommand,
  rerecordCommand,
  reviewCommand,
  conformCommand,
  probeCommand,
];
