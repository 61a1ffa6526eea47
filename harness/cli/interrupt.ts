/**
 * Ctrl-C and SIGTERM for a whole `parity` run, and one place for its temp files.
 *
 * A real process run (not an in-process test) gets a {@link InterruptHost}: the command then
 * runs with its own session temp directory `<TMPDIR>/parity-XXXXXX`, made the process's
 * `TMPDIR` for the run so that every temp dir of the run (the replay's `pr-*`, a bridge's
 * `bb-bridge-*`, record's `rec-*`, in this process or in a child that inherits the
 * environment) lands inside it, and it is removed as one when the run ends, fails or is
 * interrupted. On SIGINT the run exits 130 and on SIGTERM 143 (128 + the signal number, as
 * shells report a process killed by it), after one line on stderr. A command that handles
 * interrupts itself (`graceful`, e.g. `record`: it stops the agent and bridge and says what it
 * did) is sent the abort and given {@link GRACE_MS} to finish; a second signal stops waiting.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRealScheduler, every, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { EXIT_CODES, ParityError, UsageError, toParityError } from "../errors.js";
import { requireFreeSpace } from "./path-checks.js";
import { currentSelf, endStrays } from "./strays.js";
import { shownPath } from "../recording/paths.js";
import { shellQuote } from "../../stack/protocol/text.js";

/** Signals a run is stopped by (SIGHUP also stands for the parent process gone). */
export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** What a real process lends a run: its environment, its signals, and a way to end it. */
export interface InterruptHost {
  /** The process environment (its `TMPDIR` is set to the session temp dir during the run). */
  env: NodeJS.ProcessEnv;
  /** Calls `handler` on each SIGINT/SIGTERM/SIGHUP (and when the parent process is gone) until the returned function is called. */
  onSignal(handler: (signal: StopSignal) => void): () => void;
  /** Ends the process at once with `code` (children still running must not keep it alive). */
  exit(code: number): void;
  /** Calls `fn` synchronously when the process exits by any path (`process.exit` included) until the returned function is called. */
  onExit?(fn: () => void): () => void;
  /** Ends every process of the run still alive (harness/cli/strays.ts); synchronous. */
  endStrays?(session: string): void;
}

/** How often the parent process is looked for, in ms (a parent that died without a signal: its child is re-parented). */
const PARENT_WATCH_MS = 1_000;

/**
 * The host of the current process. `ownsProcess`: the process is the `parity` executable, so
 * every process it spawned is the run's and is ended with it (in-process runs in a test worker
 * end only the processes marked with their session, see harness/cli/strays.ts).
 */
export function processInterruptHost(options: { ownsProcess?: boolean; scheduler?: Scheduler } = {}): InterruptHost {
  const ownsProcess = options.ownsProcess === true;
  const scheduler = options.scheduler ?? createRealScheduler();
  return {
    env: process.env,
    onSignal(handler) {
      const signals: StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
      const listeners = signals.map((signal) => [signal, () => handler(signal)] as const);
      for (const [signal, listener] of listeners) process.on(signal, listener);
      // A parent that died (killed, or its terminal gone without a SIGHUP) re-parents this process.
      const parent = process.ppid;
      const stopWatch = ownsProcess ? every(scheduler, PARENT_WATCH_MS, () => process.ppid !== parent && handler("SIGHUP"), { keepAlive: false }) : undefined;
      return () => {
        for (const [signal, listener] of listeners) process.removeListener(signal, listener);
        stopWatch?.();
      };
    },
    exit: (code) => process.exit(code),
    onExit(fn) {
      process.on("exit", fn);
      return () => void process.removeListener("exit", fn);
    },
    endStrays(session) {
      endStrays(session, currentSelf(ownsProcess));
    },
  };
}

/** How long a graceful command may take to stop after the first signal, in ms (bounds the impossible). */
export const GRACE_MS = 15_000;

/** Exit code of a run stopped by `signal`. */
export function exitCodeOfSignal(signal: StopSignal): number {
  return signal === "SIGINT" ? EXIT_CODES.interrupted : signal === "SIGHUP" ? EXIT_CODES.hangup : EXIT_CODES.terminated;
}

/**
 * The files a run wrote, complete (each by temp file + rename), for the line an interrupted run
 * ends with: `written before the stop: git add …` (paths relative to `cwd` where inside it).
 */
export function writtenLine(files: readonly string[], cwd: string): string {
  if (files.length === 0) return "";
  const rel = [...new Set(files)].map((f) => shownPath(f, cwd));
  return `parity: written before the stop (complete files): git add ${rel.map(shellQuote).join(" ")}\n`;
}

/**
 * Makes the session temp directory under `env.TMPDIR` (else the system default).
 * @throws UsageError `TMPDIR=<value>: <problem>; point it at a writable directory or unset it`
 *   when that directory is missing, not a directory or not writable; IoError (exit 5) when its
 *   disk is full (see `requireFreeSpace`).
 */
export function createSessionTempDir(env: NodeJS.ProcessEnv): string {
  const given = env.TMPDIR !== undefined && env.TMPDIR !== "" ? env.TMPDIR : undefined;
  const parent = given ?? os.tmpdir();
  const where = given !== undefined ? `TMPDIR=${given}` : `temp directory ${parent}`;
  let isDir: boolean;
  try {
    isDir = statSync(parent).isDirectory();
  } catch {
    throw new UsageError(`${where}: directory not found; point TMPDIR at a writable directory or unset it`);
  }
  if (!isDir) throw new UsageError(`${where}: not a directory; point TMPDIR at a writable directory or unset it`);
  requireFreeSpace(where, parent);
  try {
    return mkdtempSync(path.join(path.resolve(parent), "parity-"));
  } catch (thrown) {
    const code = (thrown as NodeJS.ErrnoException).code ?? "error";
    throw new UsageError(`${where}: cannot create a temp directory there (${code}); point TMPDIR at a writable directory or unset it`);
  }
}

/** Options of {@link runInterruptible}. */
export interface RunInterruptibleOptions {
  host: InterruptHost;
  /** Give the run its own session temp directory (commands that replay, record or spawn). */
  tempDir: boolean;
  /** The command stops itself on the abort signal; wait for it (up to {@link GRACE_MS}). */
  graceful: boolean;
  /** Where the interrupt line goes. */
  err(text: string): void;
  /** Paths in the written-files line are shown relative to this directory (default: as given). */
  cwd?: string;
  /** Timers of the grace period (injected). Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/**
 * Runs `run` under {@link InterruptHost} (see the module comment). Resolves with the run's
 * exit code, or 130/143 when a signal stopped it; in the latter case the host's `exit` is
 * called after cleanup, since bridges and replay children may still be winding down.
 *
 * @throws what `run` throws (after cleanup), and UsageError for an unusable TMPDIR (exit 2).
 */
export async function runInterruptible(run: (signal: AbortSignal, wrote: (file: string) => void) => Promise<number>, options: RunInterruptibleOptions): Promise<number> {
  const { host } = options;
  const scheduler = options.scheduler ?? createRealScheduler();
  const setTimer = (fn: () => void, ms: number) => {
    const handle = scheduler.schedule(ms, fn);
    return { cancel: () => scheduler.cancel(handle) };
  };
  const session = options.tempDir ? createSessionTempDir(host.env) : undefined;
  const previousTmpdir = host.env.TMPDIR;
  if (session !== undefined) host.env.TMPDIR = session;
  const controller = new AbortController();
  let stopped: StopSignal | undefined;
  let onFirst: (signal: StopSignal) => void = () => undefined;
  let onSecond: () => void = () => undefined;
  const first = new Promise<StopSignal>((resolve) => (onFirst = resolve));
  const second = new Promise<void>((resolve) => (onSecond = resolve));
  const stopListening = host.onSignal((signal) => {
    if (stopped !== undefined) return onSecond();
    stopped = signal;
    controller.abort(signal);
    onFirst(signal);
  });
  const written: string[] = [];
  let cleaned = false;
  // Ends the run's processes first (nothing can then write into the temp dir), then removes it.
  // Also run on any process exit (a stream error ends the process from its handler).
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    stopListening();
    stopAtExit?.();
    if (session !== undefined) {
      if (host.env.TMPDIR === session) {
        if (previousTmpdir === undefined) delete host.env.TMPDIR;
        else host.env.TMPDIR = previousTmpdir;
      }
      host.endStrays?.(session);
      rmSync(session, { recursive: true, force: true, maxRetries: 3 });
    }
  };
  const stopAtExit = host.onExit?.(cleanUp);

  const running = run(controller.signal, (file) => void written.push(file)).then(
    (code) => ({ code }) as const,
    (thrown: unknown) => ({ thrown }) as const,
  );
  const outcome = await Promise.race([running, first.then((signal) => ({ signal }) as const)]);
  // A run that ended because of the signal (a graceful command stopping) counts as interrupted.
  if (stopped === undefined) {
    cleanUp();
    if ("thrown" in outcome) throw outcome.thrown;
    if ("code" in outcome) return outcome.code;
  }
  const signal = stopped!;

  let said = `interrupted (${signal}): stopped; temp files removed`;
  if (options.graceful) {
    let timer: { cancel(): void } | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimer(resolve, GRACE_MS)));
    const settled = await Promise.race([running, grace.then(() => undefined), second.then(() => undefined)]);
    timer?.cancel();
    if (settled !== undefined && "thrown" in settled && settled.thrown instanceof ParityError) said = settled.thrown.message;
    else if (settled !== undefined && "thrown" in settled) said = `${toParityError(settled.thrown).message}; ${said}`;
  }
  cleanUp();
  const code = exitCodeOfSignal(signal);
  options.err(`parity: ${said}\n${writtenLine(written, options.cwd ?? "")}`);
  host.exit(code);
  return code;
}
