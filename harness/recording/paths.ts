/**
 * Whether a path lies in a directory, the one test of it for the harness: which recordings are the
 * project's own (compared with its oracles, allowlist `recordings` roots), what `parity list`
 * counts as the repository's, where a rerecord or a check may write (rerecord/targets.ts,
 * check/write-policy.ts), where `parity lanes` may overwrite.
 */
import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";

/**
 * True when `dir` is `root` or lies below it (both resolved against the process's working
 * directory when relative). Purely lexical: symbolic links are not followed (see
 * {@link realPathOf}). A child whose name starts with two dots (`..cache`) is inside.
 */
export function isInside(root: string, dir: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(dir));
  return rel === "" || (rel.split(path.sep)[0] !== ".." && !path.isAbsolute(rel));
}

/**
 * {@link isInside}, and when the lexical test says no, the same test on both paths with symbolic
 * links resolved (each as far as it exists): `/work/shared/recordings/x` lies in a root named
 * through a link to `/work/shared`, as macOS's `/tmp/…` lies in `/private/tmp`. Synchronous, for
 * the per-cell tests of allowlist roots; at most two `realpath` calls, only when the lexical test fails.
 */
export function isInsideResolved(root: string, dir: string): boolean {
  if (isInside(root, dir)) return true;
  const real = (file: string): string => {
    try {
      return realpathSync.native(path.resolve(file));
    } catch {
      return path.resolve(file);
    }
  };
  return isInside(real(root), real(dir));
}

/**
 * `file` (absolute or relative to the process's working directory) with symbolic links resolved,
 * even when its last parts do not exist yet: the nearest existing ancestor is resolved and the
 * rest appended. Never throws.
 */
export async function realPathOf(file: string): Promise<string> {
  const tail: string[] = [];
  let at = path.resolve(file);
  for (;;) {
    try {
      return path.join(await realpath(at), ...tail);
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return path.join(at, ...tail);
      tail.unshift(path.basename(at));
      at = parent;
    }
  }
}

/**
 * How a message shows `file` (absolute): relative to `cwd` when it lies below it, else as given
 * (a path outside the working directory, or the directory itself, is clearer whole).
 */
export function shownPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel === "" || rel.split(path.sep)[0] === ".." || path.isAbsolute(rel) ? file : rel;
}
