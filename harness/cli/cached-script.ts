import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";

/** What a cached script's code cache is named: `<script>.cache`, beside the script. */
export const CODE_CACHE_SUFFIX = ".cache";

/**
 * Modules already loaded, handed to a cached script by their repository-relative source path
 * (`harness/errors.ts`, `node_modules/zod/…`): the script imports them from here instead of
 * holding copies, so a module has one instance (its classes for `instanceof`, its state).
 */
export type LoadedModules = Readonly<Record<string, object>>;

/**
 * Compiles the script at `file` (absolute path; a CommonJS bundle whose whole text is a function
 * expression of `exports, require, module, __filename, __dirname, __parityLoaded`, written by
 * `npm run build`, build/code-cache.ts) with V8's code cache `<file>.cache`, runs it in this
 * context and returns its `module.exports`. A missing cache, or one V8 rejects (another Node
 * build, other V8 flags, another source: V8 checks all three), only costs the compile: V8 then
 * compiles from the source and the result is the same.
 * `loaded` answers the script's imports of modules loaded before it; a key it lacks is a build
 * that does not match this loader.
 * @throws what reading the script or running its top level throws; Error for an unknown `loaded` key
 */
export function runCachedScript(file: string, loaded: LoadedModules): unknown {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}${CODE_CACHE_SUFFIX}`);
  } catch {
    // No cache: V8 compiles from the source.
  }
  const script = new vm.Script(readFileSync(file, "utf8"), { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  const module = { exports: {} };
  const loadedModule = (key: string): object => {
    const found = loaded[key];
    if (found === undefined) throw new Error(`${file}: no loaded module ${key} (a build of another source?)`);
    // Marked as an ES module's namespace so the bundle's interop takes its exports as they are.
    return Object.create(found, { __esModule: { value: true } }) as object;
  };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, path.dirname(file), loadedModule);
  return module.exports;
}
