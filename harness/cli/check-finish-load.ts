/**
 * How `check` loads its late part (check-finish.ts) once its bridges are spawned (check.ts).
 * Here, as written, an `import()` of the module: what the unbundled tree and the tests run. The
 * CLI bundle replaces this module's body (build/code-cache.ts) with a loader that runs
 * check-finish.ts and what only it imports from one script compiled with V8's code cache
 * (`runCachedScript`, cached-script.ts), handing the script the modules `check` had already
 * loaded, so that each module still has one instance.
 */
export function loadCheckFinish(): Promise<typeof import("./check-finish.js")> {
  return import("./check-finish.js");
}
