/**
 * Progress of one long wait (`parity record`, `parity probe`): on a terminal one live line with
 * the seconds waited so far (`recording acp-opencode/turn-tools… 12 s`), rewritten each second and
 * erased at the end; elsewhere (CI logs, pipes) one line when the wait starts and one when it ends,
 * so a 40-second record is never silent and a log gets no per-second noise. The clock and the
 * timer are injected (no real-time window decides anything: this only draws).
 */
import { createRealScheduler, every, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import type { ProgressStream } from "./check-progress.js";

/** The clock and timer a wait progress reads; {@link waitClockOn} a scheduler in a real run. */
export interface WaitClock {
  now(): number;
  every(ms: number, tick: () => void): { stop(): void };
}

/** The wait clock of `scheduler`: its clock, and ticks that never keep the process alive. */
export function waitClockOn(scheduler: Scheduler): WaitClock {
  return {
    now: () => scheduler.now(),
    every: (ms, tick) => ({ stop: every(scheduler, ms, tick, { keepAlive: false }) }),
  };
}

/** The real clock: the real scheduler's wall time and unref'd ticks. */
export const REAL_WAIT_CLOCK: WaitClock = waitClockOn(createRealScheduler());

/** A started wait; `end(outcome)` says how it ended (`done`, `failed`) and stops the live line. */
export interface WaitProgress {
  end(outcome: string): void;
}

const CLEAR_LINE = "\r\x1b[2K";

/**
 * Starts showing `label` (e.g. `recording acp-opencode/turn-tools`) on `stream` until `end`.
 * `hint` is said once at the start where there is no live line (how long it usually takes).
 */
export function startWaitProgress(stream: ProgressStream, label: string, clock: WaitClock = REAL_WAIT_CLOCK, hint = ""): WaitProgress {
  const started = clock.now();
  const seconds = () => ((clock.now() - started) / 1000).toFixed(stream.isTTY ? 0 : 1);
  let timer: { stop(): void } | undefined;
  if (stream.isTTY) {
    const draw = () => {
      const text = `${label}… ${seconds()} s`;
      const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
      stream.write(`${CLEAR_LINE}${text.length >= columns ? text.slice(0, columns - 1) : text}`);
    };
    draw();
    timer = clock.every(1000, draw);
  } else {
    stream.write(`${label}…${hint === "" ? "" : ` (${hint})`}\n`);
  }
  let ended = false;
  return {
    end(outcome) {
      if (ended) return;
      ended = true;
      timer?.stop();
      stream.write(stream.isTTY ? CLEAR_LINE : `${label}: ${outcome} after ${seconds()} s\n`);
    },
  };
}
