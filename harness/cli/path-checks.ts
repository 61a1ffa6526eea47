/**
 * Checks of the paths a run writes to, made before any work (docs/design/00-product.md, CLI: a bad flag is
 * one line before anything runs): a directory flag that names a file is exit 2; a directory on a
 * full disk is exit 5 naming it, not an ENOSPC after a whole recording or replay.
 */
import { statfsSync, statSync } from "node:fs";
import path from "node:path";
import { IoError, UsageError } from "../errors.js";
import { MIN_FREE_BYTES } from "../defaults.js";

/** The nearest existing directory at or above `dir` (where a new directory would be made). */
function nearestExisting(dir: string): string {
  let at = path.resolve(dir);
  for (;;) {
    try {
      statSync(at);
      return at;
    } catch {
      const up = path.dirname(at);
      if (up === at) return at;
      at = up;
    }
  }
}

/**
 * Refuses a directory on a disk with less than {@link MIN_FREE_BYTES} free (for a directory not
 * made yet, the disk of its nearest existing parent). File systems `statfs` cannot answer for, and
 * pseudo file systems without blocks (`/proc`), are let through (the write itself then names the path).
 * @throws IoError `<where>: no space left on the device (ENOSPC); <n> KiB free, …` (exit 5)
 */
export function requireFreeSpace(where: string, dir: string, freeBytes: (dir: string) => number = defaultFreeBytes): void {
  let free: number;
  try {
    free = freeBytes(nearestExisting(dir));
  } catch {
    return;
  }
  if (free < MIN_FREE_BYTES) {
    throw new IoError(where, "ENOSPC", { hint: `${Math.floor(free / 1024)} KiB free, at least ${MIN_FREE_BYTES / 1024} KiB needed; free some space or point it elsewhere` });
  }
}

/** Free bytes for an unprivileged writer; a pseudo file system (`/proc`: no blocks at all) has no answer: Infinity. */
function defaultFreeBytes(dir: string): number {
  const s = statfsSync(dir);
  if (Number(s.blocks) === 0) return Infinity;
  return Number(s.bavail) * Number(s.bsize);
}

/**
 * A directory flag (`--lanes`, `--out`, `--dump-dir`): it may be absent (it is made when written)
 * but must not be a file, nor lie under one.
 * @throws UsageError `--<flag> <value>: not a directory` / `…: <part> is a file, not a directory` (exit 2)
 */
export function requireDirectoryFlag(flag: string, value: string, resolved: string): void {
  const existing = nearestExisting(resolved);
  let isDir: boolean;
  try {
    isDir = statSync(existing).isDirectory();
  } catch {
    return;
  }
  if (isDir) return;
  throw new UsageError(existing === path.resolve(resolved) ? `--${flag} ${value}: not a directory` : `--${flag} ${value}: ${existing} is a file, not a directory`);
}
