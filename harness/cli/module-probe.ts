/**
 * Loads a user's bridge module in a child Node process and says whether it exports a bridge,
 * so the module's top-level code (which may call `process.exit`, start servers or print) runs
 * there, never in the `parity` process: a module that exits while loading is reported, never
 * inherited as the CLI's own exit code.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { findRepoRoot } from "../replay/bridge/repo-paths.js";
import { MODULE_LOAD_TIMEOUT_MS } from "../defaults.js";

/** What loading the module in the child showed. */
export type ModuleProbe =
  | { kind: "bridge" }
  | { kind: "no-bridge" }
  | { kind: "load-error"; message: string }
  /** The module's top level ended the child before loading finished (`process.exit(code)`, a signal). */
  | { kind: "exited"; code: number | null; signal: string | null }
  /** Loading did not finish within `timeoutMs` (a top-level await that never settles). */
  | { kind: "timeout"; timeoutMs: number };

/** Longest a module may take to load before {@link probeBridgeModule} gives up, in ms (harness/defaults.ts). */
export { MODULE_LOAD_TIMEOUT_MS };

// The child reports on fd 3, so whatever the module prints on stdout/stderr cannot be mistaken
// for the answer; it exits itself once it has answered, so handles the module opened do not
// keep it alive.
const CHILD_SCRIPT = `
import { writeSync } from "node:fs";
const [moduleUrl, defineUrl] = process.argv.slice(1);
const answer = (value) => { writeSync(3, JSON.stringify(value) + "\\n"); process.exit(0); };
let loaded;
try {
  loaded = await import(moduleUrl);
} catch (thrown) {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  answer({ kind: "load-error", message: message.split("\\n")[0] });
}
const { providerBridgeOf } = await import(defineUrl);
answer({ kind: providerBridgeOf(loaded) ? "bridge" : "no-bridge" });
`;

/**
 * Imports `file` (absolute) in a child Node process and reports what happened (see
 * {@link ModuleProbe}). The export is judged by the package's own `providerBridgeOf`, as the
 * bootstrap judges it (from the built `dist/`, which the bootstrap also runs from).
 *
 * @param options.cwd the child's working directory (default: the module's directory).
 * @param options.timeoutMs bound on loading (default {@link MODULE_LOAD_TIMEOUT_MS}); it only
 *   bounds the impossible, a module never takes that long to load.
 * @param options.scheduler the timer of that bound (default: the real scheduler).
 */
export async function probeBridgeModule(file: string, options: { timeoutMs?: number; repoRoot?: string; cwd?: string; scheduler?: Scheduler } = {}): Promise<ModuleProbe> {
  const timeoutMs = options.timeoutMs ?? MODULE_LOAD_TIMEOUT_MS;
  const scheduler = options.scheduler ?? createRealScheduler();
  const defineFile = path.join(options.repoRoot ?? findRepoRoot(), "dist", "stack", "bridge-kit", "define.js");
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD_SCRIPT, pathToFileURL(file).href, pathToFileURL(defineFile).href], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
    cwd: options.cwd ?? path.dirname(file),
  });
  let answer = "";
  child.stdio[3]!.on("data", (chunk: Buffer) => void (answer += chunk.toString("utf8")));
  return await new Promise<ModuleProbe>((resolve) => {
    const timer = scheduler.schedule(timeoutMs, () => {
      child.kill("SIGKILL");
      resolve({ kind: "timeout", timeoutMs });
    });
    child.on("error", (error) => {
      scheduler.cancel(timer);
      resolve({ kind: "load-error", message: error.message });
    });
    child.on("close", (code, signal) => {
      scheduler.cancel(timer);
      const line = answer.split("\n")[0] ?? "";
      try {
        resolve(JSON.parse(line) as ModuleProbe);
      } catch {
        resolve({ kind: "exited", code, signal });
      }
    });
  });
}
