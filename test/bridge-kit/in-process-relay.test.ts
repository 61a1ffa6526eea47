/**
 * The relay served inside the bridge process (stack/bridge-kit/bootstrap-relay-spawn.ts,
 * bootstrap-relay-child.ts) against the perl relay it stands for (harness/replay/stand-ins/
 * relay-channel.ts): the same spawn, the same socket, the same scenario, and what the bridge
 * sees — the announcement, the bytes both ways, the exit code or signal, `close` after stdout
 * ended, `kill` and `process.kill` before and after the exit — must be the same. Every wait is
 * for an event; none depends on how long it takes.
 */
import childProcess, { type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { findRelayTools, relayScript } from "../../harness/replay/stand-ins/relay-channel.js";
import { serveRelaysInProcess } from "../../stack/bridge-kit/bootstrap-relay-spawn.js";
import { FIRST_IN_PROCESS_PID, readRelayAnnouncement, relayPaths } from "../../stack/bridge-kit/bootstrap-relay-wire.js";

const perl = findRelayTools()!.perl;
const nodeSpawn = childProcess.spawn;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The harness's side of one relay connection: its first line, the lines after it, its end. */
interface Connection {
  readonly first: Promise<string>;
  nextLine(): Promise<string>;
  readonly ended: Promise<void>;
  socket: Socket;
}

function connection(socket: Socket): Connection {
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let resolveFirst!: (line: string) => void;
  const first = new Promise<string>((resolve) => (resolveFirst = resolve));
  let announced = false;
  const reader = createInterface({ input: socket, crlfDelay: Infinity });
  reader.on("line", (line) => {
    if (!announced) {
      announced = true;
      return resolveFirst(line);
    }
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  socket.on("error", () => undefined);
  reader.on("error", () => undefined);
  const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return { first, socket, ended, nextLine: () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiters.push(resolve))) };
}

/** A relay directory with the perl relay's script and a listening socket; each accepted relay in order. */
async function relayDir(listen = true): Promise<{ dir: string; script: string; accepted(): Promise<Connection> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "inproc-"));
  const { script, socket } = relayPaths(dir);
  writeFileSync(script, relayScript(socket));
  const queue: Connection[] = [];
  const waiters: Array<(c: Connection) => void> = [];
  let server: Server | undefined;
  if (listen) {
    server = createServer((s) => {
      const c = connection(s);
      const waiter = waiters.shift();
      if (waiter) waiter(c);
      else queue.push(c);
    });
    await new Promise<void>((resolve) => server!.listen(socket, resolve));
  }
  cleanups.push(async () => {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, script, accepted: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))) };
}

/**
 * The events of `seen` but its `exit`: a process's `exit` and its stdout's end come in either
 * order (the pipe and the reaping are two sources); the in-process relay always ends stdout first.
 */
const withoutExit = (seen: Seen): string[] => seen.events.filter((event) => event !== "exit");

/** What the bridge saw of one relay child, in the order it saw it. */
interface Seen {
  events: string[];
  stdout: string;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
  closed: Promise<[number | null, NodeJS.Signals | null]>;
}

function watch(child: ChildProcess): Seen {
  const seen: Seen = { events: [], stdout: "", exit: undefined as never, closed: undefined as never };
  child.on("spawn", () => seen.events.push("spawn"));
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (text: string) => (seen.stdout += text));
  child.stdout!.on("end", () => seen.events.push("stdout end"));
  child.stdin!.on("error", () => undefined);
  seen.exit = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      seen.events.push("exit");
      resolve([code, signal]);
    }),
  );
  seen.closed = new Promise((resolve) =>
    child.on("close", (code, signal) => {
      seen.events.push("close");
      resolve([code, signal]);
    }),
  );
  return seen;
}

type Kind = "perl" | "in-process";
type Spawn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

/** Both kinds: Node's own spawn starts the perl relay; the wrapper serves the same call in-process. */
function spawners(dir: string): Record<Kind, Spawn> {
  const served = serveRelaysInProcess(dir);
  cleanups.push(() => served.uninstall());
  return {
    perl: (command, args, options) => nodeSpawn(command, args, options),
    "in-process": (command, args, options) => childProcess.spawn(command, args, options),
  };
}

const PIPES: SpawnOptions = { stdio: ["pipe", "pipe", "pipe"] };

/** Runs `scenario` with each kind of relay and returns what the bridge and the harness saw, per kind. */
async function both<T>(scenario: (spawn: Spawn, script: string, accepted: () => Promise<Connection>, kind: Kind) => Promise<T>, listen = true): Promise<Record<Kind, T>> {
  const out = {} as Record<Kind, T>;
  for (const kind of ["perl", "in-process"] as const) {
    const { dir, script, accepted } = await relayDir(listen);
    out[kind] = await scenario(spawners(dir)[kind], script, accepted, kind);
  }
  return out;
}

function errorCode(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe("the relay served in the bridge process does what the perl relay does", () => {
  it("announces itself, carries bytes both ways, and exits 0 when the bridge ends its stdin", async () => {
    const seen = await both(async (spawn, script, accepted, kind) => {
      // Flags after the script, as a launch spec inserts them.
      const child = spawn(perl, [script, "--agent-flag"], { ...PIPES, detached: true, cwd: tmpdir() });
      const bridge = watch(child);
      const harness = await accepted();
      const hello = readRelayAnnouncement(await harness.first)!;
      expect(hello).toEqual({ pid: child.pid, inProcess: kind === "in-process" });
      child.stdin!.write('{"to":"agent"}\n');
      const toAgent = await harness.nextLine();
      harness.socket.write('{"to":"bridge"}\n');
      while (!bridge.stdout.includes("\n")) await new Promise((resolve) => child.stdout!.once("data", resolve));
      child.stdin!.end();
      const exit = await bridge.exit;
      const close = await bridge.closed;
      await harness.ended;
      if (kind === "in-process") expect(bridge.events).toEqual(["spawn", "stdout end", "exit", "close"]);
      return { toAgent, stdout: bridge.stdout, exit, close, order: withoutExit(bridge), killAfter: child.kill(), probeAfter: errorCode(() => process.kill(child.pid!, 0)) };
    });
    expect(seen["in-process"]).toEqual(seen.perl);
    expect(seen.perl).toEqual({
      toAgent: '{"to":"agent"}',
      stdout: '{"to":"bridge"}\n',
      exit: [0, null],
      close: [0, null],
      order: ["spawn", "stdout end", "close"],
      killAfter: false,
      probeAfter: "ESRCH",
    });
  });

  it("exits 0 when the harness ends its socket, after passing on what the socket carried", async () => {
    const seen = await both(async (spawn, script, accepted, kind) => {
      const child = spawn(perl, [script], PIPES);
      const bridge = watch(child);
      const harness = await accepted();
      await harness.first;
      harness.socket.end("last\n");
      const exit = await bridge.exit;
      const close = await bridge.closed;
      if (kind === "in-process") expect(bridge.events).toEqual(["spawn", "stdout end", "exit", "close"]);
      return { exit, close, stdout: bridge.stdout, order: withoutExit(bridge) };
    });
    expect(seen["in-process"]).toEqual(seen.perl);
    expect(seen.perl).toEqual({ exit: [0, null], close: [0, null], stdout: "last\n", order: ["spawn", "stdout end", "close"] });
  });

  it("ends on a signal to its pid or, spawned detached, to its group, as a process ends: exit and close with the signal", async () => {
    const signals = [
      { how: "child.kill()", send: (child: ChildProcess) => child.kill() },
      { how: "process.kill(-pid, SIGTERM)", send: (child: ChildProcess) => process.kill(-child.pid!, "SIGTERM") },
      { how: "process.kill(pid, SIGKILL)", send: (child: ChildProcess) => process.kill(child.pid!, "SIGKILL") },
      { how: "process.kill(pid, 15)", send: (child: ChildProcess) => process.kill(child.pid!, 15) },
    ];
    for (const { how, send } of signals) {
      const seen = await both(async (spawn, script, accepted) => {
        const child = spawn(perl, [script], { ...PIPES, detached: true });
        const bridge = watch(child);
        const harness = await accepted();
        await harness.first;
        const probeBefore = process.kill(child.pid!, 0);
        // Ignored by the relay: it keeps copying.
        process.kill(child.pid!, "SIGPIPE");
        child.stdin!.write("still there\n");
        const copied = await harness.nextLine();
        send(child);
        const exit = await bridge.exit;
        await harness.ended;
        return { probeBefore, copied, exit, close: await bridge.closed, order: withoutExit(bridge), groupAfter: errorCode(() => process.kill(-child.pid!, "SIGKILL")) };
      });
      expect(seen["in-process"], how).toEqual(seen.perl);
      expect(seen.perl.exit, how).toEqual([null, how.includes("SIGKILL") ? "SIGKILL" : "SIGTERM"]);
      expect(seen.perl.close, how).toEqual(seen.perl.exit);
      expect(seen.perl.groupAfter, how).toBe("ESRCH");
    }
  });

  it("leads no group unless spawned detached: a signal to -pid finds nothing and leaves it running", async () => {
    const seen = await both(async (spawn, script, accepted) => {
      const child = spawn(perl, [script], PIPES);
      const bridge = watch(child);
      const harness = await accepted();
      await harness.first;
      const group = errorCode(() => process.kill(-child.pid!, "SIGTERM"));
      child.stdin!.write("alive\n");
      const copied = await harness.nextLine();
      child.kill("SIGINT");
      return { group, copied, exit: await bridge.exit };
    });
    expect(seen["in-process"]).toEqual(seen.perl);
    expect(seen.perl).toEqual({ group: "ESRCH", copied: "alive", exit: [null, "SIGINT"] });
  });

  it("with no socket to reach, swallows its stdin and exits 0 when it ends, writing nothing", async () => {
    const seen = await both(async (spawn, script) => {
      const child = spawn(perl, [script], PIPES);
      const bridge = watch(child);
      child.stdin!.write("nobody listens\n");
      child.stdin!.end();
      return { exit: await bridge.exit, close: await bridge.closed, stdout: bridge.stdout };
    }, false);
    expect(seen["in-process"]).toEqual(seen.perl);
    expect(seen.perl).toEqual({ exit: [0, null], close: [0, null], stdout: "" });
  });
});

describe("what the wrapper serves, and what it leaves to Node", () => {
  it("serves only its own relay script with piped stdio and no shell; every other spawn and pid goes to Node", async () => {
    const { dir, script, accepted } = await relayDir();
    const served = serveRelaysInProcess(dir);
    cleanups.push(() => served.uninstall());
    const other = relayPaths(mkdtempSync(path.join(tmpdir(), "inproc-other-"))).script;
    cleanups.push(() => rmSync(path.dirname(other), { recursive: true, force: true }));
    writeFileSync(other, relayScript(relayPaths(dir).socket));
    const real: ChildProcess[] = [
      childProcess.spawn(perl, [other], PIPES),
      childProcess.spawn(perl, [script], { stdio: ["pipe", "pipe", "inherit"] }),
      childProcess.spawn(perl, [script], { ...PIPES, shell: true }),
      childProcess.spawn(perl, [script], { ...PIPES, cwd: path.join(dir, "missing") }),
    ];
    const errors = await Promise.all(real.map((child) => new Promise((resolve) => child.once("error", (e) => resolve(e.message)).once("spawn", () => resolve("spawned")))));
    expect(errors).toEqual(["spawned", "spawned", "spawned", `spawn ${perl} ENOENT`]);
    for (const child of real.slice(0, 3)) {
      const harness = await accepted();
      expect(readRelayAnnouncement(await harness.first)).toEqual({ pid: expect.any(Number), inProcess: false });
      child.stdin!.end();
    }
    expect(served.served).toBe(0);

    const inProcess = childProcess.spawn(perl, [script], PIPES);
    expect(served.served).toBe(1);
    expect(inProcess.pid).toBe(FIRST_IN_PROCESS_PID);
    expect(existsSync(`/proc/${inProcess.pid}`)).toBe(false);
    const harness = await accepted();
    expect(await harness.first).toBe(`${FIRST_IN_PROCESS_PID} in-process`);
    // A pid in the range that no relay holds is no process, for any signal.
    expect(errorCode(() => process.kill(FIRST_IN_PROCESS_PID + 7, 0))).toBe("ESRCH");
    expect(errorCode(() => process.kill(inProcess.pid!, "SIGNOPE"))).toBe("ERR_UNKNOWN_SIGNAL");
    // Node's own kill still answers for real pids.
    expect(process.kill(process.pid, 0)).toBe(true);
    inProcess.kill();
    expect(await new Promise((resolve) => inProcess.once("close", (code, signal) => resolve([code, signal])))).toEqual([null, "SIGTERM"]);
  });
});
