/**
 * Where an agent's `fs/read_text_file` / `fs/write_text_file` may reach: the session's workspace
 * roots (its cwd plus the additional write roots, spec 20 §2.1). A path counts as inside only when
 * it is inside both as written (after `..` is resolved) and after symlinks are followed, so a link
 * in the workspace cannot lead the agent to the rest of the disk. By default the bridge follows
 * the reference (spec 20 §2.5: reads have no path policy, `full` writes go anywhere, accept-edits
 * writes stay in the write roots); bridge option `fsScope: "workspace"` confines both reads and
 * writes to the roots in every mode. Confinement is opt-in because an agent that runs commands
 * can reach the disk anyway; the fs channel is a convenience, not a sandbox.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { AcpFsScope } from "../state/runtime.js";

/** `any`: the reference's policy (default); `workspace`: fs requests confined to the session's roots (declared with the bridge options it is one of). */
export type { AcpFsScope };

/** True when `path` is `root` or below it (both absolute, lexical). */
export function isPathInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `path` with every symlink of its longest existing prefix resolved, the missing tail appended
 * as written (a file about to be created). `path` must be absolute.
 */
export async function realPathOfNearest(path: string): Promise<string> {
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...tail);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      tail.unshift(basename(current));
      current = parent;
    }
  }
}

/**
 * The absolute path an agent request names: absolute as given (ACP requires it), a relative one
 * resolved against the session cwd.
 */
export function resolveAgentPath(cwd: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * True when absolute `path` lies inside one of `roots` lexically and after symlinks (see module
 * doc). Filesystem errors count as "not resolvable further", never throw.
 */
export async function isInsideWorkspace(path: string, roots: readonly string[]): Promise<boolean> {
  const lexicalRoots = roots.map((root) => resolve(root));
  if (!lexicalRoots.some((root) => isPathInside(root, path))) return false;
  const real = await realPathOfNearest(path);
  const realRoots = await Promise.all(lexicalRoots.map(realPathOfNearest));
  return realRoots.some((root) => isPathInside(root, real));
}
