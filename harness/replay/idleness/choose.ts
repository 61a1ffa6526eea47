/**
 * Which idleness judge a replay uses, chosen once when its bridge has started.
 */
import { createTreeSampler, type ProcSource } from "../../runtime/process-tree.js";
import type { IdlenessJudge } from "./judge.js";
import { createProcJudge } from "./proc-judge.js";
import { createQuietJudge } from "./quiet-judge.js";

/** What the choice depends on. */
export interface JudgeChoice {
  /** The bridge's pid; undefined when it could not be started. */
  pid: number | undefined;
  /** The platform (`process.platform`); `/proc` is read on Linux only. */
  platform: NodeJS.Platform;
  /** A bridge timer due within this many ms keeps it `blocked` (ScheduleTimeouts.timerHorizonMs). */
  timerHorizonMs: number;
  /** The quiet window where nothing better is known (ScheduleTimeouts.fallbackQuietMs). */
  fallbackQuietMs: number;
  /** The `/proc` to read (default the real one); a test passes its own. */
  proc?: ProcSource;
}

/** The `/proc` judge of the bridge's tree on Linux, else the quiet judge. */
export function chooseIdlenessJudge(choice: JudgeChoice): IdlenessJudge {
  if (choice.pid !== undefined && choice.platform === "linux") {
    return createProcJudge(createTreeSampler(choice.pid, choice.proc ? { proc: choice.proc } : {}), choice.timerHorizonMs);
  }
  return createQuietJudge(choice.fallbackQuietMs);
}
