import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository root this module belongs to: the nearest ancestor directory whose
 * `package.json` is named `bridge-parity`. Works both from the TypeScript sources
 * (`harness/recording/`) and from the compiled tree (`dist/harness/recording/`).
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

/**
 * This package's version, from its `package.json` (`parity --version`, and the echo bridge's
 * version in its recordings' manifests: the echo bridge is this package); "unknown" if that
 * cannot be read.
 */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(findRepoRoot(), "package.json"), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}
