/**
 * Running a cell's command for real, in the sandbox its agents are recorded in (record/): a
 * fresh network namespace with only loopback where Linux allows (record/network.ts, the same
 * `unshare` launcher and netns-entry), a fresh HOME and XDG dirs and TMPDIR inside the run's
 * temp root and the environment every recorded agent starts from (families/record-provider.ts
 * `baseEnv`, `isolatedHomeEnv`), stdin closed. What it captures is the command's bytes on
 * stdout and stderr and how it ended: its exit code, or the signal that ended it.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import path from "node:path";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { EXIT_CODES, ParityError } from "../errors.js";
import { baseEnv, isolatedHomeEnv } from "../families/record-provider.js";
import { killProcessesWorkingIn } from "../record/leftovers.js";
import { netnsSpawn, type NetworkIsolation } from "../record/network.js";

/** Longest a fact's command may run (ms) before the computation gives up (exit 4): it only bounds a hung command. */
export const FACTS_COMMAND_TIMEOUT_MS = 60_000;
/** Most bytes kept of one command's stdout or stderr; more fails the computation rather than cutting silently. */
export const FACTS_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The shell a command line runs in: bash where installed (as the recorded agents' shell tools use), else sh. */
export function factsShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

/** The directories of one facts run: its temp root, the workspace copy, a fresh home and TMPDIR. */
export interface SandboxDirs {
  root: string;
  workspace: string;
  home: string;
  tmp: string;
}

/** Makes a run's temp root below `parent` with `ws/`, `home/` (HOME and XDG dirs inside) and `tmp/`. */
export async function makeSandboxDirs(parent: string): Promise<SandboxDirs> {
  const root = await mkdtemp(path.join(parent, "parity-facts-"));
  const dirs = { root, workspace: path.join(root, "ws"), home: path.join(root, "home"), tmp: path.join(root, "tmp") };
  await mkdir(dirs.workspace);
  await mkdir(dirs.tmp);
  return dirs;
}

/** What a command did: its bytes on stdout and stderr, and its exit code or the signal that ended it. */
export interface CommandOutcome {
  stdout: Buffer;
  stderr: Buffer;
  exit: { code: number } | { signal: NodeJS.Signals };
}

/** A command that did not end in time, or printed more than a fact keeps (exit 4 / exit 2). */
export class FactsCommandError extends ParityError {
  constructor(message: string, exitCode: 2 | 4) {
    super(exitCode === 4 ? "E_TIMEOUT" : "E_FACTS", message, exitCode === 4 ? EXIT_CODES.infrastructureTimeout : EXIT_CODES.inputError);
  }
}

/** How one command runs: the command line, its working directory (absolute), the run's dirs and isolation. */
export interface SandboxCommand {
  command: string;
  cwd: string;
  dirs: SandboxDirs;
  /** From record/network.ts `detectNetworkIsolation`; `watch` (no namespace here) runs the command as is. */
  isolation: NetworkIsolation;
  timeoutMs?: number;
  shell?: string;
  /** Timers of the timeout. Absent: the real scheduler. */
  scheduler?: Scheduler;
}

/**
 * Runs `command` with `<shell> -c` in the sandbox (see the module doc) and waits for it and
 * every process that still holds its output pipes; processes left working in the run's root
 * afterwards are killed.
 * @throws FactsCommandError (exit 4) when it runs longer than `timeoutMs` (it is killed), or
 *   (exit 2) when an output exceeds {@link FACTS_MAX_OUTPUT_BYTES}
 */
export async function runSandboxed(cmd: SandboxCommand): Promise<CommandOutcome> {
  const env = { ...baseEnv(), ...(await isolatedHomeEnv(cmd.dirs.home)), TMPDIR: cmd.dirs.tmp };
  const options: SpawnOptions = { cwd: cmd.cwd, env, stdio: ["ignore", "pipe", "pipe"] };
  const shell = cmd.shell ?? factsShell();
  const child: ChildProcess = cmd.isolation.kind === "netns" ? netnsSpawn(cmd.isolation)(shell, ["-c", cmd.command], options) : spawn(shell, ["-c", cmd.command], options);
  const timeoutMs = cmd.timeoutMs ?? FACTS_COMMAND_TIMEOUT_MS;
  try {
    return await new Promise<CommandOutcome>((resolve, reject) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let sizes = [0, 0];
      const collect = (chunks: Buffer[], i: 0 | 1) => (chunk: Buffer) => {
        sizes = i === 0 ? [sizes[0]! + chunk.length, sizes[1]!] : [sizes[0]!, sizes[1]! + chunk.length];
        if (sizes[i]! > FACTS_MAX_OUTPUT_BYTES) {
          child.kill("SIGKILL");
          reject(new FactsCommandError(`\`${cmd.command}\` printed more than ${FACTS_MAX_OUTPUT_BYTES} bytes on ${i === 0 ? "stdout" : "stderr"}`, 2));
          return;
        }
        chunks.push(chunk);
      };
      child.stdout!.on("data", collect(out, 0));
      child.stderr!.on("data", collect(err, 1));
      // Only bounds a hung command; no fact depends on how long a command took.
      const scheduler = cmd.scheduler ?? createRealScheduler();
      const timer = scheduler.schedule(timeoutMs, () => {
        child.kill("SIGKILL");
        reject(new FactsCommandError(`\`${cmd.command}\` did not end within ${timeoutMs} ms (killed); facts not written`, 4));
      });
      child.on("error", (error) => {
        scheduler.cancel(timer);
        reject(error);
      });
      // `close`: both pipes drained, so no output is lost to a late exit.
      child.on("close", (code, signal) => {
        scheduler.cancel(timer);
        resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exit: signal ? { signal } : { code: code ?? 0 } });
      });
    });
  } finally {
    killProcessesWorkingIn(cmd.dirs.root);
  }
}
