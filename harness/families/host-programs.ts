/**
 * Programs of the host an agent CLI needs and warns about when they are missing (issue 38): Codex
 * sandboxes its commands with bubblewrap and, without `bwrap` on its PATH, writes a "could not
 * find bubblewrap on PATH" warning into the lane, so the recording would depend on the host.
 * `parity record` checks them before it starts (`profile-provider.ts`), and the tests that record
 * a real agent skip locally, and fail under CI, when one is missing — as when the CLI itself is.
 */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** A program the agent looks up on its PATH, and where a Debian host gets it. */
export interface HostProgram {
  /** The executable's name (`bwrap`). */
  program: string;
  /** The Debian package that installs it (`bubblewrap`). */
  debianPackage: string;
  /** What the agent does without it, for the one line that names it. */
  why: string;
}

/** True when `dir/program` is an executable regular file (a symbolic link to one counts). */
function executableIn(dir: string, program: string): boolean {
  const file = path.join(dir, program);
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The programs of `needed` that no directory of `pathEnv` (a PATH value, `:`-separated; empty
 * parts ignored) holds as an executable file. Reads the file system only.
 */
export function missingHostPrograms(needed: readonly HostProgram[], pathEnv: string | undefined): HostProgram[] {
  const dirs = (pathEnv ?? "").split(path.delimiter).filter((d) => d !== "");
  return needed.filter((p) => !dirs.some((dir) => executableIn(dir, p.program)));
}

/** The one line naming a missing program for provider `id`: what to install and why. */
export function missingHostProgramLine(id: string, missing: HostProgram): string {
  return `${id}: ${missing.program} is not on PATH (install the Debian package ${missing.debianPackage}): ${missing.why}`;
}
