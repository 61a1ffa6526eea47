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
import { EXIT_CODES, ParityError, UsageError, toParityError } from "../errors.js";

/** Signals a run is stopped by. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** What a real process lends a run: its environment, its signals, and a way to end it. */
export interface InterruptHost {
  /** The process environment (its `TMPDIR` is set to the session temp dir during the run). */
  env: NodeJS.ProcessEnv;
  /** Calls `handler` on each SIGINT/SIGTERM until the returned function is called. */
  onSignal(handler: (signal: StopSignal) => void): () => void;
  /** Ends the process at once with `code` (children still running must not keep it alive). */
  exit(code: number): void;
}

/** The host of the current process. */
export function processInterruptHost(): InterruptHost {
  return {
    env: process.env,
    onSignal(handler) {
      const onInt = () => handler("SIGINT");
      const onTerm = () => handler("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      return () => {
        process.removeListener("SIGINT", onInt);
        process.removeListener("SIGTERM", onTerm);
      };
    },
    exit: (code) => process.exit(code),
  };
}

/** How long a graceful command may take to stop after the first signal, in ms (bounds the impossible). */
export const GRACE_MS = 15_000;

/** Exit code of a run stopped by `signal`. */
export function exitCodeOfSignal(signal: StopSignal): number {
  return signal === "SIGINT" ? EXIT_CODES.interrupted : EXIT_CODES.terminated;
}

/**
 * Makes the session temp directory under `env.TMPDIR` (else the system default).
 * @throws UsageError `TMPDIR=<value>: <problem>; point it at a writable directory or unset it`
 *   when that directory is missing, not a directory or not writable.
 */
export function createSessionTempDir(env: NodeJS.ProcessEnv): string {
  const given = env.TMPDIR !== undefined && env.TMPDIR !== "" ? env.TMPDIR : undefined;
  const parent = given ?? os.tmpdir();
  const where = given !== undefined ? `TMPDIR=${given}` : `temp directory ${parent}`;
  let isDir = false;
  try {
    isDir = statSync(parent).isDirectory();
  } catch {
    throw new UsageError(`${where}: directory not found; point TMPDIR at a writable directory or unset it`);
  }
  if (!isDir) throw new UsageError(`${where}: not a directory; point TMPDIR at a writable directory or unset it`);
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
  /** Timer for the grace period (injected). */
  setTimer?: (fn: () => void, ms: number) => { cancel(): void };
}

/**
 * Runs `run` under {@link InterruptHost} (see the module comment). Resolves with the run's
 * exit code, or 130/143 when a signal stopped it; in the latter case the host's `exit` is
 * called after cleanup, since bridges and replay children may still be winding down.
 *
 * @throws what `run` throws (after cleanup), and UsageError for an unusable TMPDIR (exit 2).
 */
export async function runInterruptible(run: (signal: AbortSignal) => Promise<number>, options: RunInterruptibleOptions): Promise<number> {
  const { host } = options;
  const setTimer =
    options.setTimer ??
    ((fn, ms) => {
      const timer = setTimeout(fn, ms);
      return { cancel: () => clearTimeout(timer) };
    });
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
  const cleanUp = () => {
    stopListening();
    if (session !== undefined) {
      if (host.env.TMPDIR === session) {
        if (previousTmpdir === undefined) delete host.env.TMPDIR;
        else host.env.TMPDIR = previousTmpdir;
      }
      rmSync(session, { recursive: true, force: true });
    }
  };

  const running = run(controller.signal).then(
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
  options.err(`parity: ${said}\n`);
  host.exit(code);
  return code;
}
