/**
 * One replay relay served inside the bridge process (harness/replay/stand-ins/README.md; spec 10
 * §5.2): what `child_process.spawn` returns, under the bootstrap's wrapper
 * (`bootstrap-relay-spawn.ts`), for a spawn of the replay's relay script. It does what the perl
 * relay (`harness/replay/stand-ins/relay-channel.ts`, `relayScript`) does, without a process:
 * - connects to the replay's socket and announces its pid, marked in-process, as the first line;
 * - copies what the bridge writes to its `stdin` to the socket, and the socket to its `stdout`;
 * - exits 0 when the bridge ends its stdin (the socket is shut for writing first) or when the
 *   socket ends; a relay that cannot connect swallows its stdin and exits 0 when it ends;
 * - a signal ends it as it ends the perl relay (the socket closes, `exit` with the signal), but
 *   those the relay ignores (SIGPIPE) or that do not end a process by default.
 * Events and fields follow Node's `ChildProcess` (Node 20, lib/internal/child_process.js): `spawn`
 * on the next tick; `exit` (code, signal) once the relay ended, after its stdout and stderr were
 * ended, and `stdin` destroyed then; `close` (code, signal) once both output streams closed after
 * the exit (output nobody reads is drained at the exit, as Node does); `kill()` true while the
 * relay has not exited, `killed` set by it; `pid`, `exitCode`, `signalCode`, `spawnfile`,
 * `spawnargs`, `stdio`. A write after the relay ended and before its exit fails with EPIPE, as a
 * write to a dead process's pipe does.
 */
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { createConnection, type Socket } from "node:net";
import { constants } from "node:os";
import { Readable, Writable } from "node:stream";
import { relayAnnouncement } from "./bootstrap-relay-wire.js";

/**
 * Signals that leave the relay running: SIGPIPE (the script ignores it), those whose default
 * action ignores or continues, and the stop signals (stopping is not emulated: a stopped relay
 * would only stop copying, and no bridge stops its agent).
 */
const LEAVES_RUNNING: ReadonlySet<string> = new Set(["SIGPIPE", "SIGCHLD", "SIGURG", "SIGWINCH", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU"]);

/**
 * The signal name of `signal` (a name or a number, 0 kept as 0), as `ChildProcess.kill` and
 * `process.kill` accept them. @throws TypeError `ERR_UNKNOWN_SIGNAL` for anything else, as Node does
 */
export function signalNameOf(signal: string | number): NodeJS.Signals | 0 {
  if (signal === 0) return 0;
  const names = constants.signals as Record<string, number>;
  if (typeof signal === "string" && names[signal] !== undefined) return signal as NodeJS.Signals;
  if (typeof signal === "number") {
    const name = Object.keys(names).find((key) => names[key] === signal);
    if (name) return name as NodeJS.Signals;
  }
  throw Object.assign(new TypeError(`Unknown signal: ${String(signal)}`), { code: "ERR_UNKNOWN_SIGNAL" });
}

/** The error a write to a pipe whose reader is gone gets. */
function brokenPipe(): NodeJS.ErrnoException {
  return Object.assign(new Error("write EPIPE"), { errno: -constants.errno.EPIPE, code: "EPIPE", syscall: "write" });
}

/** What one in-process relay is started with. */
export interface InProcessRelayOptions {
  /** Its pid, from the in-process range (`FIRST_IN_PROCESS_PID` up). */
  pid: number;
  /** The replay's relay socket. */
  socketPath: string;
  /** The command and arguments it was spawned with (`spawnfile`, `spawnargs`). */
  command: string;
  args: readonly string[];
  /** Spawned `detached`: it leads a process group of its own, which `process.kill(-pid)` reaches. */
  detached: boolean;
  /** Told once, when it has exited (the pid names nothing from then on). */
  onExit(pid: number): void;
}

/** See the module comment. Returned as a `ChildProcess` by the spawn wrapper. */
export class InProcessRelay extends EventEmitter {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdio: [Writable, Readable, Readable];
  readonly spawnfile: string;
  readonly spawnargs: string[];
  readonly leadsGroup: boolean;
  readonly connected = false;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  killed = false;
  private state: "running" | "ended" | "exited" = "running";
  /** The socket connected; until then (or when it never does) nothing came from it. */
  private linked = false;
  private closes = 0;
  private readonly socket: Socket;

  constructor(private readonly options: InProcessRelayOptions) {
    super();
    this.pid = options.pid;
    this.spawnfile = options.command;
    this.spawnargs = [options.command, ...options.args];
    this.leadsGroup = options.detached;
    this.socket = createConnection(options.socketPath);
    this.stdout = new Readable({ read: () => void this.socket.resume() });
    this.stderr = new Readable({ read: () => undefined });
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => this.fromBridge(chunk, done),
      final: (done) => {
        done();
        this.stdinEnded();
      },
    });
    this.stdio = [this.stdin, this.stdout, this.stderr];
    this.listen();
    this.socket.write(`${relayAnnouncement(this.pid, true)}\n`);
    process.nextTick(() => this.emit("spawn"));
  }

  /** True until `exit` was emitted (an ended relay not yet reaped still answers signal 0). */
  get alive(): boolean {
    return this.state !== "exited";
  }

  /**
   * `ChildProcess.kill`: delivers `signal` (default SIGTERM) and returns true unless the relay
   * has exited. @throws TypeError for an unknown signal
   */
  kill(signal: NodeJS.Signals | number = "SIGTERM"): boolean {
    const name = signalNameOf(signal);
    if (!this.alive) return false;
    this.deliver(name);
    this.killed = true;
    return true;
  }

  /** A signal reaches the relay (from `kill` or the bootstrap's `process.kill`). */
  deliver(signal: NodeJS.Signals | 0): void {
    if (signal !== 0 && !LEAVES_RUNNING.has(signal)) this.end(null, signal, true);
  }

  /** Child processes hold the event loop open only through their pipes; these are the socket. */
  ref(): void {}
  unref(): void {}

  private listen(): void {
    const { socket } = this;
    socket.on("connect", () => (this.linked = true));
    socket.on("data", (chunk: Buffer) => {
      if (this.state === "running" && !this.stdout.push(chunk)) socket.pause();
    });
    // A refused or broken connection shows as its close: the relay swallows, or it ends.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (this.linked) this.end(0, null, false);
    });
    this.stdout.on("close", () => this.closed());
    this.stderr.on("close", () => this.closed());
  }

  /** Counts the exit and the output streams' closes; `close` comes after all three (Node's `maybeClose`). */
  private closed(): void {
    this.closes += 1;
    if (this.closes === 3) this.emit("close", this.exitCode, this.signalCode);
  }

  private fromBridge(chunk: Buffer, done: (error?: Error | null) => void): void {
    if (this.state !== "running") return done(brokenPipe());
    const { socket } = this;
    // Not connected and never to be (the perl relay reads its stdin to the end then), or gone.
    if (socket.destroyed) return done();
    if (socket.write(chunk)) return done();
    const settle = (): void => {
      socket.off("drain", settle);
      socket.off("close", settle);
      done();
    };
    socket.on("drain", settle);
    socket.on("close", settle);
  }

  /** The bridge closed the relay's stdin: the socket is shut for writing, the relay exits 0. */
  private stdinEnded(): void {
    if (this.state !== "running") return;
    this.socket.end();
    this.end(0, null, false);
  }

  /**
   * The relay ends (once): its output streams end now, `exit` follows on the next turn of the
   * event loop (after their `end`, as a process's pipes reach end of file before it is reaped).
   * A signal closes the socket at once; a relay that exits 0 leaves what it wrote to be sent.
   */
  private end(code: number | null, signal: NodeJS.Signals | null, abort: boolean): void {
    if (this.state !== "running") return;
    this.state = "ended";
    if (abort) this.socket.destroy();
    this.stdout.push(null);
    this.stderr.push(null);
    setImmediate(() => this.exited(code, signal));
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.state = "exited";
    if (signal) this.signalCode = signal;
    else this.exitCode = code;
    this.stdin.destroy();
    this.options.onExit(this.pid);
    this.emit("exit", this.exitCode, this.signalCode);
    this.closed();
    // Output nobody reads is drained so it ends and closes, as Node's flushStdio does.
    process.nextTick(() => {
      for (const stream of [this.stdout, this.stderr]) if (stream.readableFlowing === null && stream.listenerCount("data") === 0) stream.resume();
    });
  }
}

/** The relay as what `child_process.spawn` returns (the fields and events a bridge uses are there). */
export function asChildProcess(relay: InProcessRelay): ChildProcess {
  return relay as unknown as ChildProcess;
}
