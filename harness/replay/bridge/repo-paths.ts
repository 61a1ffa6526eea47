import { existsSync } from "node:fs";
import { join } from "node:path";

export { findRepoRoot } from "../../recording/package-root.js";

/**
 * The file to spawn for a compiled entry the replay starts as a process of its own (the
 * bootstrap, a bridge module, the replay child): its bundle `<name>.bundle.js` beside it when
 * `npm run build` made one (build/bundle.ts: one file instead of about 200 modules to resolve
 * and link), else the entry itself. Same code, same behaviour; only the start-up differs.
 */
export function spawnedModule(file: string): string {
  if (!file.endsWith(".js") || file.endsWith(".bundle.js")) return file;
  const bundle = `${file.slice(0, -".js".length)}.bundle.js`;
  return existsSync(bundle) ? bundle : file;
}

/** The compiled pieces a replay spawns (paths absolute). */
export interface ReplayArtifacts {
  /** `dist/stack/bridge-kit/bootstrap.js` */
  bootstrap: string;
  /** `dist/harness/replay/stand-ins/replay-child.js` */
  child: string;
}

/**
 * Locates the compiled bootstrap and replay child under `<root>/dist` (they run as separate
 * node processes, so they must be JavaScript; `npm run build` produces them), each as the
 * bundle beside it when there is one ({@link spawnedModule}).
 *
 * @throws Error naming the missing file and the build command
 */
export function replayArtifacts(root: string): ReplayArtifacts {
  const artifacts = {
    bootstrap: join(root, "dist", "stack", "bridge-kit", "bootstrap.js"),
    child: join(root, "dist", "harness", "replay", "stand-ins", "replay-child.js"),
  };
  for (const file of Object.values(artifacts)) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npx tsc -p tsconfig.build.json\` first`);
  }
  return { bootstrap: spawnedModule(artifacts.bootstrap), child: spawnedModule(artifacts.child) };
}
