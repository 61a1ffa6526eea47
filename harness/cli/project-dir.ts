/**
 * The directory a `parity` run works from. Run anywhere inside a project, `parity` uses the
 * project's root, found as npm finds it: the nearest directory, from where it was started upward,
 * that holds a `package.json`. So `parity check` (through `npx`, `npm run` or the bin by path)
 * finds `recordings/`, `lanes/`, `allowlists/` and `cells/` from any subdirectory, and paths given
 * in flags are relative to that root, as an npm script's are. Started outside any package, it
 * works from where it was started.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The project root of `start` (an absolute directory): `start` itself or its nearest ancestor
 * holding a `package.json`; `start` when none does. `exists` is injected for tests
 * (default: `fs.existsSync`). Never throws.
 */
export function projectDir(start: string, exists: (file: string) => boolean = existsSync): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (exists(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(start);
  }
}

/**
 * The one line a command says when the directory it reads by default (`recordings/`, `cells/`)
 * is not under the directory it works from (`cwd`, from {@link projectDir}): where it looked,
 * whether that is a project at all (a `package.json` there), and how to fix it: run from the
 * project, or point `flag` at the directory; `firstStep` is what makes the directory in a project
 * that has none yet (e.g. "record a cell (parity record --help)"). `exists` is injected for tests.
 */
export function missingDefaultDir(cwd: string, dir: string, flag: string, firstStep: string, exists: (file: string) => boolean = existsSync): string {
  if (!exists(path.join(cwd, "package.json"))) return notInProject(cwd, `no ${dir}/ in ${cwd}`, flag);
  return `no ${dir}/ in the project at ${cwd}: ${firstStep}, or give ${flag} <dir>`;
}

/**
 * The one line of a command that would write into the project's default directories (`import`'s
 * `recordings/` and `lanes/`) run outside any project (no `package.json` at `cwd`, from
 * {@link projectDir}), or undefined inside one: it makes no project where it happens to run.
 */
export function outsideProjectWrite(cwd: string, dir: string, flag: string, exists: (file: string) => boolean = existsSync): string | undefined {
  return exists(path.join(cwd, "package.json")) ? undefined : notInProject(cwd, `no project to write ${dir}/ into`, flag);
}

/** `not in a project: <what>, and no package.json …; run parity from your project, or give <flag> <dir>`. */
function notInProject(cwd: string, what: string, flag: string): string {
  return `not in a project: ${what}, and no package.json there or above it (parity works from the nearest directory that has one); run parity from your project, or give ${flag} <dir>`;
}

/** True when `dir` is a directory (following symbolic links). */
export function isDirectory(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory();
}
