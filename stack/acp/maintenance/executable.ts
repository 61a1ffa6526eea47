/**
 * The installation facts of an ACP agent's launch command (spec 20 §1.2 "installation status from
 * `which`/`--version`"): where `PATH` finds it and what `<command> --version` prints.
 */
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { createRealScheduler, killAfter, type Scheduler } from "../../bridge-kit/scheduler.js";

/** Bounds of the `--version` run: wall time (ms) and captured output per stream (bytes). */
export const CLI_VERSION_LIMITS = Object.freeze({ timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });

/** Longest first-line fallback kept as a version, in characters. */
const MAX_VERSION_LINE_CHARS = 200;

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    // A directory has its x bit too; `which` only reports regular files.
    if (!(await stat(candidate)).isFile()) return false;
    await access(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds `command` the way `which` does: a name is looked up in each non-empty `PATH` entry in
 * order; a command with a `/` (absolute or relative to the bridge's cwd) is checked as is. Only
 * an executable regular file counts. Returns the path found, or null. Never throws.
 */
export async function findExecutable(command: string, pathValue: string | undefined): Promise<string | null> {
  if (command.length === 0) return null;
  const candidates =
    isAbsolute(command) || command.includes("/")
      ? [command]
      : (pathValue ?? "")
          .split(delimiter)
          .filter((dir) => dir.length > 0)
          .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** A version-looking token: digits with at least one dot, an optional `v`, an optional `-`/`+` suffix. */
const VERSION_TOKEN = /(?<![\w.-])v?(\d+(?:\.\d+)+(?:[-+][0-9A-Za-z][0-9A-Za-z.-]*)?)(?![\w])/;

/**
 * The version in a `--version` output (spec 20 §4 cell 4: `cursor-agent 2026.08.11-e8db854` →
 * `2026.08.11-e8db854`): the first version-looking token (a leading `v` dropped), else the trimmed
 * first non-empty line (≤ 200 characters); null for blank output.
 */
export function parseCliVersion(output: string): string | null {
  const token = VERSION_TOKEN.exec(output);
  if (token) return token[1]!;
  const line = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  return line === undefined ? null : line.slice(0, MAX_VERSION_LINE_CHARS);
}

/**
 * Runs `<executable> --version` without a shell (env as given, {@link CLI_VERSION_LIMITS}: 10 s,
 * then SIGKILL, on `scheduler` (default the real one); 64 KiB per stream) and parses stdout, else stderr, with {@link parseCliVersion}.
 * A spawn failure, a non-zero exit, a timeout or oversized output gives null. Never throws.
 */
export function readCliVersion(executable: string, env: Readonly<Record<string, string | undefined>>, scheduler: Scheduler = createRealScheduler()): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      let stopTimer = (): void => undefined;
      const child = execFile(
        executable,
        ["--version"],
        {
          env: env as NodeJS.ProcessEnv,
          maxBuffer: CLI_VERSION_LIMITS.maxOutputBytes,
          windowsHide: true,
          shell: false,
          encoding: "utf8",
        },
        (error, stdout, stderr) => {
          stopTimer();
          if (error) return resolve(null);
          resolve(parseCliVersion(stdout) ?? parseCliVersion(stderr));
        },
      );
      stopTimer = killAfter(scheduler, child, CLI_VERSION_LIMITS.timeoutMs, "SIGKILL");
    } catch {
      resolve(null);
    }
  });
}
