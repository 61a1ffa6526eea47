/**
 * The one bridge spawner of the harness, for record, conform and replay alike (spec 10 §5.1
 * "Bridge process"; stack/bridge-kit/README.md, the bootstrap): `node [flags] <bootstrap>
 * <module> <providerId> <dataDir>` with piped stdio, its stdout read through the project's one
 * bounded line splitter (`stack/bridge-kit/line-splitter.ts`). A line over the bound is not held
 * in memory: it becomes a {@link BridgeLineTooLongError} naming the bridge, the lane and the
 * length, and the bridge is stopped. `harness/runtime/spawn-bridge.ts` puts the runtime's
 * channel on it; `harness/replay` feeds its events to the walk.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createBoundedLineSplitter, MAX_LINE_BYTES } from "../../stack/bridge-kit/line-splitter.js";
import { BridgeLineTooLongError } from "./errors.js";

/** Most stderr kept by default, in characters (the tail is kept). */
export const DEFAULT_STDERR_TAIL_CHARS = 16 * 1024;

/**
 * The bound on one stdout line of a bridge, in bytes (64 MiB, the bootstrap's own bound, spec 20
 * §1.1). The longest line of a committed recording was 18 848 bytes (a provider→bridge entry of
 * `recordings/claude-code/resume`; the longest bridge→runtime entry 15 855 bytes), so the bound
 * is thousands of times what a real bridge writes; {@link BridgeLaunch.maxLineBytes} changes it.
 */
export const BRIDGE_LINE_BOUND_BYTES = MAX_LINE_BYTES;

/** The lane a bridge's stdout lines belong to (spec 10 §2, lane directions). */
export const BRIDGE_STDOUT_LANE = "bridge→runtime";

/** How a bridge process ended: its exit code, or the signal that ended it. */
export interface BridgeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * What a bridge process reports, in arrival order: each stdout line; a line over the bound (once,
 * as soon as it crosses it; the bridge is then stopped); the exit, after stdout was read to its
 * end (the child process `close` event), so no line is lost behind it. `startError` is set when
 * the process could not be started at all.
 */
export type BridgeProcessEvent =
  | { type: "bridge-line"; line: string }
  | { type: "bridge-line-too-long"; error: BridgeLineTooLongError }
  | { type: "bridge-exit"; code: number | null; signal: NodeJS.Signals | null; startError?: string };

/** How to start a bridge through the bootstrap. */
export interface BridgeLaunch {
  /** The compiled bootstrap, `dist/stack/bridge-kit/bootstrap.js` (or its bundle). */
  bootstrapPath: string;
  /** The bridge module the bootstrap loads (absolute, or relative to `cwd`). */
  modulePath: string;
  providerId: string;
  dataDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Node flags before the bootstrap (the replay passes `--no-memory-reducer`). Default none. */
  nodeFlags?: readonly string[];
  /**
   * A command that runs the bridge's own command line (`node <bootstrap> …`, appended to its
   * args), e.g. one that starts it in a network namespace of its own. Absent: run directly.
   */
  launcher?: { command: string; args: readonly string[] };
  /** Bound on one stdout line in bytes; default {@link BRIDGE_LINE_BOUND_BYTES}. */
  maxLineBytes?: number;
  /** Stderr tail kept, in characters; default {@link DEFAULT_STDERR_TAIL_CHARS}. */
  stderrTailChars?: number;
  /** Called with each stderr chunk as it arrives (decoded UTF-8), e.g. to echo it under `--verbose`. */
  onStderr?: (text: string) => void;
}

/** A bridge process started by {@link spawnBridgeProcess}. */
export interface SpawnedBridge {
  /** Human-readable name used in errors: `acp-cursor (bridge.js, pid 4242)`. */
  readonly name: string;
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
  whenExited(): Promise<BridgeExit>;
  /** The tail of its stderr (at most `stderrTailChars`). */
  stderr(): string;
}

/** The command line of a launch: `[launcher…] node [flags] <bootstrap> <module> <providerId> <dataDir>`. */
function commandLine(launch: BridgeLaunch): [string, ...string[]] {
  const own: [string, ...string[]] = [process.execPath, ...(launch.nodeFlags ?? []), launch.bootstrapPath, launch.modulePath, launch.providerId, launch.dataDir];
  return launch.launcher ? [launch.launcher.command, ...launch.launcher.args, ...own] : own;
}

/**
 * Spawns a bridge as a runtime does (see the module comment) and reports its lines and exit to
 * `onEvent`, synchronously and in arrival order. Lines are split on `\n` with a trailing `\r`
 * stripped, decoded per whole line (a multi-byte character split across chunks comes out whole).
 * Never throws for a bridge that fails to start: that is a `bridge-exit` with `startError`.
 */
export function spawnBridgeProcess(launch: BridgeLaunch, onEvent: (event: BridgeProcessEvent) => void): SpawnedBridge {
  const [command, ...args] = commandLine(launch);
  const child: ChildProcess = spawn(command, args, { cwd: launch.cwd, env: launch.env, stdio: ["pipe", "pipe", "pipe"] });
  const name = `${launch.providerId} (${path.basename(launch.modulePath)}, pid ${child.pid ?? "?"})`;
  const maxLineBytes = launch.maxLineBytes ?? BRIDGE_LINE_BOUND_BYTES;
  const tailChars = launch.stderrTailChars ?? DEFAULT_STDERR_TAIL_CHARS;
  let exit: BridgeExit | undefined;
  let overflowed = false;
  let markExited: (exit: BridgeExit) => void = () => undefined;
  const exitedPromise = new Promise<BridgeExit>((resolve) => (markExited = resolve));
  let stderr = "";
  const kill = (): void => {
    if (!exit) child.kill("SIGKILL");
  };
  const splitter = createBoundedLineSplitter({
    maxLineBytes,
    // Nothing after an oversized line is delivered: the bridge is being stopped for it.
    onLine: (line) => overflowed || onEvent({ type: "bridge-line", line }),
    onOverflow: (bytesSeen) => {
      if (overflowed) return;
      overflowed = true;
      onEvent({ type: "bridge-line-too-long", error: new BridgeLineTooLongError(name, BRIDGE_STDOUT_LANE, bytesSeen, maxLineBytes) });
      kill();
    },
  });
  child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr += text;
    if (stderr.length > tailChars * 2) stderr = stderr.slice(-tailChars);
    launch.onStderr?.(text);
  });
  // A bridge that exits while we still write gets EPIPE; the exit reports it.
  child.stdin?.on("error", () => undefined);
  const finish = (code: number | null, signal: NodeJS.Signals | null, startError?: string): void => {
    if (exit) return;
    splitter.end();
    exit = { code, signal };
    markExited(exit);
    onEvent({ type: "bridge-exit", code, signal, ...(startError === undefined ? {} : { startError }) });
  };
  child.on("error", (error) => {
    stderr += `\n[parity] could not start the bridge: ${error.message}\n`;
    if (child.pid === undefined) finish(null, null, error.message);
  });
  // `close` (not `exit`): stdout is fully drained before the exit is reported.
  child.on("close", (code, signal) => finish(code, signal));
  return {
    name,
    pid: child.pid,
    write(line) {
      if (!exit && child.stdin?.writable) child.stdin.write(`${line}\n`);
    },
    get buffered() {
      return child.stdin && !child.stdin.destroyed ? child.stdin.writableLength : 0;
    },
    endInput() {
      if (child.stdin && !child.stdin.destroyed) child.stdin.end();
    },
    kill,
    get exited() {
      return exit !== undefined;
    },
    whenExited: () => exitedPromise,
    stderr: () => (stderr.length > tailChars ? stderr.slice(-tailChars) : stderr),
  };
}
