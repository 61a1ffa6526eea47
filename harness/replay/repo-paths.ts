import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository root this module belongs to: the nearest ancestor directory whose
 * `package.json` is named `bridge-parity`. Works both from the TypeScript sources
 * (`harness/replay/`) and from the compiled tree (`dist/harness/replay/`).
 *
 * @throws Error when no such directory exists (a broken install)
 */
export function findRepoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(from);
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "bridge-parity") return dir;
      } catch {
        // not ours; keep climbing
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no bridge-parity package.json above ${from}`);
    dir = parent;
  }
}

/** The compiled pieces a replay spawns (paths absolute). */
export interface ReplayArtifacts {
  /** `dist/stack/bridge-kit/bootstrap.js` */
  bootstrap: string;
  /** `dist/harness/replay/replay-child.js` */
  child: string;
}

/**
 * Locates the compiled bootstrap and replay child under `<root>/dist` (they run as separate
 * node processes, so they must be JavaScript; `npm run build` produces them).
 *
 * @throws Error naming the missing file and the build command
 */
export function replayArtifacts(root: string): ReplayArtifacts {
  const artifacts = {
    bootstrap: join(root, "dist", "stack", "bridge-kit", "bootstrap.js"),
    child: join(root, "dist", "harness", "replay", "replay-child.js"),
  };
  for (const file of Object.values(artifacts)) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npx tsc -p tsconfig.build.json\` first`);
  }
  return artifacts;
}
