/**
 * The bootstrap serving the replay relay inside the bridge process (stack/bridge-kit/README.md;
 * harness/replay/stand-ins/README.md; spec 10 §5.2). A replay starts its bridge with
 * `BB_PROVIDER_BRIDGE_RELAY_DIR` naming its relay directory; the bootstrap then wraps
 * `child_process.spawn` so that a spawn of exactly that directory's relay script
 * (`<perl> <dir>/relay.pl [agent flags…]`, piped stdio, no shell, an existing or no `cwd`) returns
 * an {@link InProcessRelay} instead of starting a perl process, and wraps `process.kill` so a
 * signal to its pid (or, when spawned `detached`, its group) reaches it. Every other spawn and
 * signal goes to Node's own functions untouched, so an agent command a launch spec wraps (a
 * shell, another program first), a spawn with other stdio, and every real agent start as before.
 *
 * Why global, against the no-module-level-state rule: the bridge under test imports
 * `child_process` itself, so only the module's exports can be changed; this is done once, by the
 * bootstrap (the process edge), before the bridge module is imported, and ESM named imports see
 * it through `module.syncBuiltinESMExports()`. `execFile`, `fork` and the `*Sync` functions are
 * not wrapped: Node's `execFile` calls its own `spawn`, and no bridge starts its agent with them.
 */
import childProcess, { type ChildProcess, type SpawnOptions } from "node:child_process";
import { statSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";
import { asChildProcess, InProcessRelay, signalNameOf } from "./bootstrap-relay-child.js";
import { FIRST_IN_PROCESS_PID, isInProcessPid, relayPaths } from "./bootstrap-relay-wire.js";

/** The relays served so far and the undo of the wrappers. */
export interface InProcessRelays {
  /** How many relay spawns were served in this process. */
  readonly served: number;
  /** Puts Node's own `spawn` and `process.kill` back (tests; the bootstrap never does). */
  uninstall(): void;
}

type SpawnFn = (command: string, argsOrOptions?: readonly string[] | SpawnOptions, options?: SpawnOptions) => ChildProcess;
type KillFn = (pid: number, signal?: string | number) => true;

/** True when `stdio` gives the child three pipes and nothing else (Node's default). */
function pipesOnly(stdio: SpawnOptions["stdio"]): boolean {
  if (stdio === undefined || stdio === "pipe" || stdio === "overlapped") return true;
  if (!Array.isArray(stdio) || stdio.length > 3) return false;
  return stdio.every((entry) => entry === undefined || entry === null || entry === "pipe" || entry === "overlapped");
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The arguments and options of a `spawn` call when it starts the relay script `script` in a way
 * the in-process relay serves exactly; undefined otherwise (Node's `spawn` then runs it, and a
 * `cwd` that is missing fails there as it would).
 */
function relaySpawn(script: string, command: string, argsOrOptions: unknown, maybeOptions: unknown): { args: string[]; options: SpawnOptions } | undefined {
  const args = Array.isArray(argsOrOptions) ? (argsOrOptions as string[]) : [];
  const options = ((Array.isArray(argsOrOptions) ? maybeOptions : argsOrOptions) ?? {}) as SpawnOptions;
  if (typeof command !== "string" || !basename(command).startsWith("perl") || args[0] !== script) return undefined;
  if (options.shell || !pipesOnly(options.stdio)) return undefined;
  if (options.cwd !== undefined && !isDirectory(String(options.cwd))) return undefined;
  return { args, options };
}

/** The error `process.kill` throws for a pid or group that names no process. */
function noSuchProcess(): NodeJS.ErrnoException {
  return Object.assign(new Error("kill ESRCH"), { errno: -3, code: "ESRCH", syscall: "kill" });
}

/**
 * Serves spawns of `dir`'s relay script in this process (see the module comment) until
 * {@link InProcessRelays.uninstall}. Each relay gets the next pid from `FIRST_IN_PROCESS_PID` and
 * connects to `dir`'s socket. `process.kill(pid, signal)` for a pid in that range reaches the
 * live relay of that pid (`-pid`: only one spawned `detached`, which leads its group) and throws
 * ESRCH otherwise, never calling the real `kill`; an unknown signal throws as Node's does.
 *
 * @param dir the relay directory a replay named (absolute; `relayPaths(dir)` gives its files)
 * @param target the process whose `kill` is wrapped (default this one; tests pass their own)
 */
export function serveRelaysInProcess(dir: string, target: Pick<NodeJS.Process, "kill"> = process): InProcessRelays {
  const { script, socket } = relayPaths(dir);
  const live = new Map<number, InProcessRelay>();
  // Each served relay takes the next pid, so the pids handed out also count the relays served.
  let nextPid = FIRST_IN_PROCESS_PID;
  const nodeSpawn = childProcess.spawn as SpawnFn;
  const nodeKill = target.kill as KillFn;

  const spawn: SpawnFn = function (this: unknown, command, argsOrOptions, maybeOptions) {
    const relay = relaySpawn(script, command, argsOrOptions, maybeOptions);
    if (!relay) return nodeSpawn.call(this, command, argsOrOptions, maybeOptions);
    const pid = nextPid;
    nextPid += 1;
    const child = new InProcessRelay({ pid, socketPath: socket, command, args: relay.args, detached: relay.options.detached === true, onExit: (gone) => live.delete(gone) });
    live.set(pid, child);
    return asChildProcess(child);
  };
  const kill: KillFn = function (this: unknown, pid, signal) {
    if (typeof pid !== "number" || !isInProcessPid(pid)) return nodeKill.call(this, pid, signal);
    const name = signalNameOf(signal ?? "SIGTERM");
    const relay = live.get(Math.abs(pid));
    if (!relay || (pid < 0 && !relay.leadsGroup)) throw noSuchProcess();
    relay.deliver(name);
    return true;
  };

  (childProcess as { spawn: SpawnFn }).spawn = spawn;
  (target as { kill: KillFn }).kill = kill;
  syncBuiltinESMExports();
  return {
    get served() {
      return nextPid - FIRST_IN_PROCESS_PID;
    },
    uninstall() {
      (childProcess as { spawn: SpawnFn }).spawn = nodeSpawn;
      (target as { kill: KillFn }).kill = nodeKill;
      syncBuiltinESMExports();
    },
  };
}
