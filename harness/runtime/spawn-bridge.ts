import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRealScheduler, type Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { spawnBridgeProcess, type BridgeExit, type BridgeProcessEvent } from "./bridge-process.js";
import { createChannelEnd, createListeners, type BridgeChannel } from "./channel.js";
import type { BridgeLineTooLongError } from "./errors.js";
import { createJsonRpcClient, type JsonRpcClient } from "./json-rpc-client.js";

/** Most stderr kept per bridge process, in characters (the tail is kept). */
export const STDERR_TAIL_CHARS = 16 * 1024;

/** How long `close()` waits for a bridge to exit after its stdin closed, in ms, before SIGKILL. */
export const CLOSE_GRACE_MS = 5_000;

/** Options of {@link spawnBridge}. */
export interface SpawnBridgeOptions {
  /** Path of the bridge module (the file exporting `experimental_providerBridge`); resolved against `cwd`. */
  modulePath: string;
  /** Provider id handed to the bootstrap (e.g. `echo`, `acp-cursor`). */
  providerId: string;
  /** Data directory handed to the bootstrap. Absent: a fresh temp dir, removed when the bridge exits. */
  dataDir?: string;
  /** Full environment of the bridge process. Absent: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Working directory of the bridge process. Absent: this process's. */
  cwd?: string;
  /** Bootstrap script. Absent: `dist/stack/bridge-kit/bootstrap.js` of this package. */
  bootstrapPath?: string;
  /** Called with each stderr chunk as it arrives (decoded UTF-8), e.g. to echo it under `--verbose`. */
  onStderr?: (text: string) => void;
  /**
   * A command that runs the bridge's own command line (`node <bootstrap> …`, appended to its
   * args), e.g. one that starts it in a network namespace of its own. Absent: run directly.
   */
  launcher?: { command: string; args: readonly string[] };
  /** Bound on one stdout line in bytes (harness/runtime/bridge-process.ts); default 64 MiB. */
  maxLineBytes?: number;
  /** Timers of the close grace (and of the client's request timeouts). Absent: the real scheduler. */
  scheduler?: Scheduler;
}

export type { BridgeExit } from "./bridge-process.js";

/** What a spawned bridge process itself tells, on its channel and on its client alike. */
export interface BridgeProcessFacts {
  /** Provider id the bootstrap was given. */
  readonly providerId: string;
  /** Absolute path of the bridge module. */
  readonly modulePath: string;
  /** The OS process id. */
  readonly pid: number | undefined;
  /** The last {@link STDERR_TAIL_CHARS} characters the bridge wrote to stderr. */
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<BridgeExit>;
  /** The error of a stdout line over the bound, once one came (the bridge is then stopped). */
  lineTooLong(): BridgeLineTooLongError | undefined;
}

/**
 * The channel of one spawned bridge process plus what the process itself tells: pid,
 * stderr tail, exit. {@link spawnBridge} puts the runtime's JSON-RPC client on top; a
 * caller that needs its own client (conformance) uses {@link spawnBridgeChannel}.
 */
export interface BridgeProcessChannel extends BridgeChannel, BridgeProcessFacts {}

/**
 * One bridge process driven by this runtime (harness/runtime/README.md): the JSON-RPC
 * client over its stdio plus what the process itself tells (pid, stderr, exit).
 */
export interface BridgeProcess extends JsonRpcClient, BridgeProcessFacts {
  /** Closes stdin (the bridge's signal to run `onClose` and exit) and waits; SIGKILL after {@link CLOSE_GRACE_MS}. */
  close(): Promise<BridgeExit>;
  /** SIGKILLs the process. */
  kill(): void;
}

/**
 * Resolves a path inside this package's compiled output `<package>/dist/…`, whether this
 * module runs from `dist/` (compiled) or from the sources (vitest). Bridges spawned through
 * the bootstrap always run compiled code.
 */
export function packageDistPath(...segments: string[]): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const twoUp = path.resolve(here, "..", "..");
  const dist = path.basename(twoUp) === "dist" ? twoUp : path.join(twoUp, "dist");
  return path.join(dist, ...segments);
}

/** The bootstrap of this package: `<package>/dist/stack/bridge-kit/bootstrap.js`. */
export function defaultBootstrapPath(): string {
  return packageDistPath("stack", "bridge-kit", "bootstrap.js");
}

/**
 * Spawns a bridge exactly as a runtime does (docs/design/00-product.md flow 2; stack/bridge-kit/README.md)
 * through the one spawner (`spawnBridgeProcess`, bridge-process.ts: `node <bootstrap> <module>
 * <providerId> <dataDir>`, stdio piped, stdout lines bounded) and returns its line channel. The
 * process's exit (after stdout drained) closes the channel, with a reason naming the exit code
 * or signal, a line over the bound ({@link BridgeLineTooLongError}) and the stderr tail. `close()` ends stdin and waits,
 * SIGKILLing after {@link CLOSE_GRACE_MS}.
 */
export function spawnBridgeChannel(options: SpawnBridgeOptions): BridgeProcessChannel {
  const cwd = options.cwd ?? process.cwd();
  const modulePath = path.resolve(cwd, options.modulePath);
  const ownDataDir = options.dataDir === undefined;
  const scheduler = options.scheduler ?? createRealScheduler();
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "parity-bridge-"));
  // A bridge whose data dir is ours gets its TMPDIR from us too, removed with it when it exits:
  // a bridge ended by SIGKILL cannot remove its own `bb-bridge-*` temp dir (issue 42: npm test left them).
  const tempDir = ownDataDir ? mkdtempSync(path.join(tmpdir(), "parity-bridge-tmp-")) : undefined;
  const lineListeners = createListeners<string>();
  const channelEnd = createChannelEnd();
  let lineTooLong: BridgeLineTooLongError | undefined;
  let markExited: (exit: BridgeExit) => void = () => undefined;
  const exited = new Promise<BridgeExit>((resolve) => (markExited = resolve));
  const onEvent = (event: BridgeProcessEvent): void => {
    if (event.type === "bridge-line") lineListeners.emit(event.line);
    else if (event.type === "bridge-line-too-long") lineTooLong = event.error;
    else {
      const why = event.startError !== undefined ? `could not start: ${event.startError}` : event.signal ? `killed by ${event.signal}` : `exited with code ${event.code ?? "?"}`;
      const tail = bridge.stderr().trim().split("\n").slice(-5).join(" | ");
      const reason = lineTooLong ? `${lineTooLong.message}; ${why}` : why;
      channelEnd.end(tail ? `${reason}; stderr: ${tail}` : reason);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
      markExited({ code: event.code, signal: event.signal });
    }
  };
  const bridge = spawnBridgeProcess(
    {
      bootstrapPath: options.bootstrapPath ?? defaultBootstrapPath(),
      modulePath,
      providerId: options.providerId,
      dataDir,
      cwd,
      env: tempDir !== undefined ? { ...(options.env ?? process.env), TMPDIR: tempDir } : (options.env ?? process.env),
      stderrTailChars: STDERR_TAIL_CHARS,
      ...(options.launcher ? { launcher: options.launcher } : {}),
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      ...(options.onStderr ? { onStderr: options.onStderr } : {}),
    },
    onEvent,
  );

  const close = async (): Promise<BridgeExit> => {
    if (!channelEnd.closed) bridge.endInput();
    const grace = scheduler.schedule(CLOSE_GRACE_MS, bridge.kill);
    const exit = await exited;
    scheduler.cancel(grace);
    return exit;
  };

  return {
    name: bridge.name,
    providerId: options.providerId,
    modulePath,
    pid: bridge.pid,
    stderr: () => bridge.stderr(),
    exited,
    lineTooLong: () => lineTooLong,
    send(line) {
      if (!channelEnd.closed) bridge.write(line);
    },
    onLine: (listener) => lineListeners.add(listener),
    onClose: channelEnd.onClose,
    get closed() {
      return channelEnd.closed;
    },
    close: async () => void (await close()),
    kill: bridge.kill,
  };
}

/**
 * Spawns a bridge through the bootstrap ({@link spawnBridgeChannel}) and puts the runtime's
 * JSON-RPC client on its stdio. Nothing is sent yet; call
 * {@link import("./handshake.js").initializeBridge} next. When the process exits, pending
 * requests reject with `BridgeClosedError` naming the exit code and the stderr tail.
 */
export function spawnBridge(options: SpawnBridgeOptions): BridgeProcess {
  const channel = spawnBridgeChannel(options);
  const client = createJsonRpcClient(channel, options.scheduler);
  return Object.assign(client, {
    providerId: channel.providerId,
    modulePath: channel.modulePath,
    pid: channel.pid,
    stderr: channel.stderr,
    exited: channel.exited,
    lineTooLong: channel.lineTooLong,
    close: async () => {
      await channel.close();
      return channel.exited;
    },
    kill: channel.kill,
  });
}
