import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** Most stderr a replay keeps from the bridge, in characters (the tail is kept). */
export const MAX_BRIDGE_STDERR_CHARS = 64 * 1024;

/** What a bridge process reports to the scheduler, in arrival order. */
export type BridgeProcessEvent = { type: "bridge-line"; line: string } | { type: "bridge-exit"; code: number | null; signal: string | null };

/** A bridge process started through the bootstrap, as a runtime would start it. */
export interface ReplayBridgeProcess {
  readonly pid: number | undefined;
  /** Writes one line (a terminator is added) to the bridge's stdin; ignored once it exited. */
  write(line: string): void;
  /** Bytes written to the bridge's stdin that still sit in this process's buffers. */
  readonly buffered: number;
  /** Closes the bridge's stdin (the graceful end a runtime uses). */
  endInput(): void;
  /** SIGKILLs the bridge if it is still running. Idempotent. */
  kill(): void;
  /** True once the process exited and its stdio closed. */
  readonly exited: boolean;
  /** Resolves once the process exited and its stdio closed. */
  whenExited(): Promise<void>;
  /** The tail of its stderr (at most {@link MAX_BRIDGE_STDERR_CHARS}). */
  stderr(): string;
}

/** How to start the bridge (spec 10 §5.1 "Bridge process"; stack/bridge-kit/README.md, the bootstrap). */
export interface BridgeLaunch {
  /** The compiled bootstrap, `dist/stack/bridge-kit/bootstrap.js`. */
  bootstrapPath: string;
  /** The bridge module the bootstrap loads. */
  modulePath: string;
  providerId: string;
  dataDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Spawns `node --no-memory-reducer <bootstrap> <module> <providerId> <dataDir>` with piped stdio. Every stdout
 * line becomes a `bridge-line` event; `bridge-exit` is reported after stdout has been read
 * to its end (the child process `close` event), so no line is lost behind the exit.
 */
export function spawnReplayBridge(launch: BridgeLaunch, onEvent: (event: BridgeProcessEvent) => void): ReplayBridgeProcess {
  // V8's memory reducer arms an 8 s timer on the bridge's event loop after activity; it is
  // indistinguishable from the bridge's own timers, which the replay waits for when judging
  // idleness (harness/replay/idleness/). It only schedules garbage collection.
  const child: ChildProcess = spawn(process.execPath, ["--no-memory-reducer", launch.bootstrapPath, launch.modulePath, launch.providerId, launch.dataDir], {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let exited = false;
  let markExited: () => void = () => undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    markExited = resolve;
  });
  let stderr = "";
  child.stdin?.on("error", () => undefined);
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr += text;
    if (stderr.length > MAX_BRIDGE_STDERR_CHARS * 2) stderr = stderr.slice(-MAX_BRIDGE_STDERR_CHARS);
  });
  if (child.stdout) {
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => onEvent({ type: "bridge-line", line }));
  }
  child.on("error", (error) => {
    stderr += `\n[replay] could not start the bridge: ${error.message}\n`;
    if (child.pid === undefined && !exited) {
      exited = true;
      markExited();
      onEvent({ type: "bridge-exit", code: null, signal: null });
    }
  });
  child.on("close", (code, signal) => {
    if (exited) return;
    exited = true;
    markExited();
    onEvent({ type: "bridge-exit", code, signal });
  });
  return {
    pid: child.pid,
    write(line) {
      if (!exited && child.stdin && !child.stdin.destroyed) child.stdin.write(`${line}\n`);
    },
    get buffered() {
      return child.stdin && !child.stdin.destroyed ? child.stdin.writableLength : 0;
    },
    endInput() {
      if (child.stdin && !child.stdin.destroyed) child.stdin.end();
    },
    kill() {
      if (!exited) child.kill("SIGKILL");
    },
    whenExited() {
      return exitedPromise;
    },
    get exited() {
      return exited;
    },
    stderr() {
      return stderr.length > MAX_BRIDGE_STDERR_CHARS ? stderr.slice(-MAX_BRIDGE_STDERR_CHARS) : stderr;
    },
  };
}
