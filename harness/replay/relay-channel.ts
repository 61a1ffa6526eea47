/**
 * The replay relay (00-product.md flow 2; spec 10 §5.2): the process a bridge spawns in place of
 * the real agent, as cheap as a process gets. A Node replay child costs a Node start-up (about
 * 60 ms of CPU and as much wall time before the bridge hears from its agent) for every ACP
 * session; the relay is a POSIX `sh` script that makes two FIFOs, announces its pid, and runs
 * two `cat`s: one copies its stdin (what the bridge writes to its agent) into one FIFO, the other
 * copies the second FIFO to its stdout. This process reads and writes the other ends
 * directly, so it stays the one process that decides anything, and every agent process the
 * bridge starts is still a separate process with its own pipes, as with a real agent.
 *
 * Needs `sh`, `mkfifo` and `cat` (found on PATH, used by absolute path: the bridge may give its
 * agent another PATH) and POSIX FIFOs; {@link findRelayTools} says when they are missing, and
 * the replay then uses the Node replay child (`replay-child.ts`).
 */
import { execFile } from "node:child_process";
import { accessSync, constants, openSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { Socket } from "node:net";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import type { ChildChannel, ChildChannelEvent, ReplayChildLink } from "./child-channel.js";

/** Absolute paths of the programs the relay runs. */
export interface RelayTools {
  sh: string;
  mkfifo: string;
  cat: string;
}

/**
 * The relay script, written to `<dir>/relay.sh` with the paths baked in and run as
 * `sh <dir>/relay.sh [agent flags…]`: a launch spec may insert flags after its first argument
 * (an agent's permission flags) or append them, and the relay ignores every argument. It
 * - makes `<dir>/<pid>.i` (this process → the bridge) and `<dir>/<pid>.o` (the bridge → this
 *   process) and opens both read-write, which never blocks, so this process can open its ends
 *   at once after the announcement;
 * - starts a background `cat` copying `.i` to its stdout;
 * - writes its pid as one line to `<dir>/hello`, a FIFO this process keeps open, opened
 *   read-write too so a relay a dying bridge started after the replay ended never blocks (one
 *   short write is atomic: relays starting together never mix their lines);
 * - copies its stdin to `.o` with a second `cat` and, when the bridge closes that stdin, stops the
 *   background `cat` and exits 0, as an agent does. `.o` ends for this process then.
 * Stopped as a process group (the bridge does that to its agents, {@link openRelayChannel}'s
 * `end` too), all three go at once.
 */
export function relayScript(dir: string, tools: RelayTools): string {
  const q = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
  return [
    `d=${q(dir)}`,
    `${q(tools.mkfifo)} "$d/$$.i" "$d/$$.o" || exit 1`,
    'exec 3<>"$d/$$.i" 4<>"$d/$$.o" 5<>"$d/hello"',
    `${q(tools.cat)} <&3 3<&- 4>&- 5>&- &`,
    "printf '%s\\n' \"$$\" >&5",
    "exec 3<&- 5>&-",
    `${q(tools.cat)} >&4 4>&-`,
    'kill "$!" 2>/dev/null',
    "exit 0",
    "",
  ].join("\n");
}

/** The first file `name` on `path` this process may execute, or undefined. */
function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here, or not executable
    }
  }
  return undefined;
}

/**
 * The relay's programs on `path` (default: this process's PATH), or undefined when one is
 * missing or the platform has no POSIX FIFOs and process groups (Windows).
 */
export function findRelayTools(path: string = process.env.PATH ?? "", platform: NodeJS.Platform = process.platform): RelayTools | undefined {
  if (platform === "win32") return undefined;
  const sh = onPath("sh", path);
  const mkfifo = onPath("mkfifo", path);
  const cat = onPath("cat", path);
  return sh && mkfifo && cat ? { sh, mkfifo, cat } : undefined;
}

/** A channel to relays, with the command line that starts one (what the launch spec gets). */
export interface RelayChannel extends ChildChannel {
  command: string;
  args: string[];
}

/** A FIFO end as a non-blocking stream (Node reads and writes it like a pipe, off the thread pool). */
function fifoEnd(file: string, flags: number): Socket {
  const fd = openSync(file, flags | constants.O_NONBLOCK);
  return new Socket({ fd, readable: (flags & constants.O_WRONLY) === 0, writable: (flags & constants.O_WRONLY) !== 0 });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

/**
 * Opens the channel relays report to: the FIFO `<dir>/hello`, kept open read-write (so it
 * never ends while relays come and go). Each announced pid becomes a {@link ReplayChildLink}
 * in announcement order; its lines, end and close become events passed to `onEvent`
 * synchronously, as `openChildChannel` does for Node replay children. A link's `end` stops the
 * relay's process group (the relay holds no state worth a graceful end).
 *
 * @param dir a private temporary directory
 * @throws when `mkfifo` fails
 */
export async function openRelayChannel(dir: string, tools: RelayTools, onEvent: (event: ChildChannelEvent) => void): Promise<RelayChannel> {
  const hello = join(dir, "hello");
  const script = join(dir, "relay.sh");
  await writeFile(script, relayScript(dir, tools));
  await new Promise<void>((resolve, reject) => execFile(tools.mkfifo, [hello], (error) => (error ? reject(error) : resolve())));
  const children: ReplayChildLink[] = [];
  const streams = new Set<Socket>();
  const announcements = fifoEnd(hello, constants.O_RDWR);
  streams.add(announcements);
  const connect = (pid: number): void => {
    let toRelay: Socket;
    let fromRelay: Socket;
    try {
      toRelay = fifoEnd(join(dir, `${pid}.i`), constants.O_WRONLY);
      fromRelay = fifoEnd(join(dir, `${pid}.o`), constants.O_RDONLY);
    } catch (error) {
      onEvent({ type: "child-protocol-error", reason: `replay relay ${pid} announced itself but its FIFOs cannot be opened (${(error as Error).message})` });
      return;
    }
    streams.add(toRelay);
    streams.add(fromRelay);
    let closed = false;
    let ended = false;
    let markClosed: () => void = () => undefined;
    const closedPromise = new Promise<void>((resolve) => (markClosed = resolve));
    const link: ReplayChildLink = {
      index: children.length,
      pid,
      send(line) {
        if (!closed && !ended && !toRelay.destroyed) toRelay.write(`${line}\n`);
      },
      get buffered() {
        return toRelay.destroyed ? 0 : toRelay.writableLength;
      },
      end() {
        if (ended) return;
        ended = true;
        toRelay.destroy();
        signalGroup(pid, "SIGTERM");
      },
      get closed() {
        return closed;
      },
      whenClosed: () => closedPromise,
    };
    children.push(link);
    onEvent({ type: "child-hello", child: link });
    // A relay gone before it read what was sent to it: the write fails (EPIPE); its close reports the end.
    toRelay.on("error", () => toRelay.destroy());
    const lines = createInterface({ input: fromRelay, crlfDelay: Infinity });
    lines.on("line", (line) => onEvent({ type: "child-line", child: link, line }));
    lines.on("error", () => undefined);
    fromRelay.on("error", () => undefined);
    lines.on("close", () => {
      streams.delete(fromRelay);
      toRelay.destroy();
      streams.delete(toRelay);
      onEvent({ type: "child-eof", child: link });
      closed = true;
      markClosed();
      onEvent({ type: "child-closed", child: link });
    });
  };
  const announced = createInterface({ input: announcements, crlfDelay: Infinity });
  announced.on("line", (text) => {
    if (/^[1-9][0-9]*$/.test(text)) connect(Number(text));
    else onEvent({ type: "child-protocol-error", reason: `malformed announcement from a replay relay: ${text.slice(0, 80)}` });
  });
  announced.on("error", () => undefined);
  return {
    address: hello,
    children,
    command: tools.sh,
    args: [script],
    async close() {
      for (const child of children) child.end();
      for (const stream of streams) stream.destroy();
      streams.clear();
    },
  };
}
