/**
 * The replay relay (docs/design/00-product.md flow 2; spec 10 §5.2): the process a bridge spawns in place of
 * the real agent, as cheap as a process gets. A Node replay child costs a Node start-up (about
 * 60 ms of CPU and as much wall time before the bridge hears from its agent) for every agent
 * session; the relay is one `perl` process (a dozen lines, no module beyond `Socket`: both are
 * in every Debian base system, `perl-base` being Essential, and in macOS) that connects to this
 * process's Unix socket, announces its pid as the first line, and then copies its stdin (what
 * the bridge writes to its agent) to the socket and the socket to its stdout, both ways in one
 * `select` loop. One process per agent session, no FIFOs, no helper processes: this process
 * stays the one that decides anything, and every agent process the bridge starts is still a
 * separate process with its own pipes, as with a real agent.
 *
 * Needs `perl` (found on PATH, used by absolute path: the bridge may give its agent another
 * PATH); {@link findRelayTools} says when it is missing, and the replay then uses the Node
 * replay child (`replay-child.ts`).
 *
 * A bridge started through the project's bootstrap with the relay directory named
 * (`stack/bridge-kit/bootstrap-relay-spawn.ts`) serves a spawn of the relay script itself, with
 * no process: that relay speaks the same protocol on the same socket, its announcement marked
 * `in-process` and its pid one that names no process, so this side never signals it.
 */
import { accessSync, constants } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { delimiter, join } from "node:path";
import { readRelayAnnouncement, relayPaths } from "../../../stack/bridge-kit/bootstrap-relay-wire.js";
import type { ChildChannel, ChildChannelEvent, ReplayChildLink } from "./child-channel.js";
import { readSocketLines, STAND_IN_LINE_BOUND_BYTES, standInLineTooLong } from "./socket-lines.js";

/** Absolute paths of the programs the relay runs. */
export interface RelayTools {
  perl: string;
}

/**
 * The relay script, written to `<dir>/relay.pl` with the socket path baked in and run as
 * `perl <dir>/relay.pl [agent flags…]`: a launch spec may insert flags after its first argument
 * (an agent's permission flags) or append them, and the relay ignores every argument. It
 * - connects to `socketPath`; when it cannot (a relay a dying bridge started after the replay
 *   ended), it reads its stdin to the end and exits 0, never blocking anyone;
 * - writes its pid as the first line, then copies stdin → socket and socket → stdout as bytes
 *   arrive (one `select` loop; a partial write is finished before the next read);
 * - exits 0 when the bridge closes its stdin (as an agent does; the socket ends for this
 *   process then) or when this process closes the socket. SIGTERM ends it as it ends any
 *   agent; it has no children.
 */
export function relayScript(socketPath: string): string {
  const q = (text: string): string => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
  return [
    "use Socket;",
    "$SIG{PIPE} = 'IGNORE';",
    "binmode STDIN; binmode STDOUT;",
    "sub put { my ($fh, $data) = @_; while (length $data) { my $n = syswrite($fh, $data); return 0 unless $n; substr($data, 0, $n, ''); } 1 }",
    "my $s;",
    `my $up = socket($s, PF_UNIX, SOCK_STREAM, 0) && connect($s, pack_sockaddr_un(${q(socketPath)}));`,
    'if (!$up || !put($s, "$$\\n")) { 1 while sysread(STDIN, my $b, 65536); exit 0; }',
    "for (;;) {",
    "  my $r = ''; vec($r, 0, 1) = 1; vec($r, fileno($s), 1) = 1;",
    "  next if select($r, undef, undef, undef) <= 0;",
    "  if (vec($r, 0, 1)) { my $n = sysread(STDIN, my $b, 65536); if (!$n) { shutdown($s, 1); exit 0; } put($s, $b) or exit 0; }",
    "  if (vec($r, fileno($s), 1)) { my $n = sysread($s, my $b, 65536); exit 0 unless $n; put(\\*STDOUT, $b) or exit 0; }",
    "}",
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
 * The relay's program on `path` (default: this process's PATH), or undefined when it is
 * missing or the platform has no Unix sockets and process groups (Windows).
 */
export function findRelayTools(path: string = process.env.PATH ?? "", platform: NodeJS.Platform = process.platform): RelayTools | undefined {
  if (platform === "win32") return undefined;
  const perl = onPath("perl", path);
  return perl ? { perl } : undefined;
}

/** A channel to relays, with the command line that starts one (what the launch spec gets). */
export interface RelayChannel extends ChildChannel {
  command: string;
  args: string[];
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
 * The link of one connected relay whose first line announced `pid`: its later lines, end and
 * close become events passed to `onEvent` synchronously, in arrival order.
 */
function relayLink(socket: Socket, pid: number, inProcess: boolean, index: number): ReplayChildLink & { markClosed(): void } {
  let closed = false;
  let ended = false;
  let markClosed: () => void = () => undefined;
  const closedPromise = new Promise<void>((resolve) => (markClosed = resolve));
  const link = {
    index,
    pid,
    inProcess,
    send(line: string) {
      if (!closed && !ended && !socket.destroyed) socket.write(`${line}\n`);
    },
    get buffered() {
      return socket.destroyed ? 0 : socket.writableLength;
    },
    end() {
      if (ended) return;
      ended = true;
      // The signal first: a relay that saw its socket end first would exit 0 instead, as if it chose to.
      // An in-process relay has no process to signal; it ends with the bridge, or when its socket closes.
      if (!inProcess) signalGroup(pid, "SIGTERM");
      socket.destroy();
    },
    get closed() {
      return closed;
    },
    whenClosed: () => closedPromise,
    markClosed() {
      closed = true;
      markClosed();
    },
  };
  return link;
}

/**
 * Opens the channel relays report to: a Unix socket `<dir>/relay.sock`. Each relay's first line
 * (its pid, marked `in-process` for a relay the bridge serves itself) makes it a
 * {@link ReplayChildLink}, numbered in connection order; its lines, end and close become events
 * passed to `onEvent` synchronously, as `openChildChannel` does for Node replay children. A
 * link's `end` closes its socket and stops the relay's process group (the relay holds no state
 * worth a graceful end; an in-process relay has no process and ends when its socket closes). A
 * line over `maxLineBytes` (what the bridge wrote to its agent) is not held: it is one
 * `child-line-too-long` event naming the relay, and the relay is stopped (socket-lines.ts).
 *
 * @param dir a private temporary directory (short: Unix socket paths are limited to about 100 bytes)
 */
export async function openRelayChannel(dir: string, tools: RelayTools, onEvent: (event: ChildChannelEvent) => void, maxLineBytes = STAND_IN_LINE_BOUND_BYTES): Promise<RelayChannel> {
  const { socket: address, script } = relayPaths(dir);
  await writeFile(script, relayScript(address));
  const children: ReplayChildLink[] = [];
  const sockets = new Set<Socket>();
  // Accepted relays whose pid line was not read yet (see ChildChannel.unannounced).
  let unannounced = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    unannounced += 1;
    let announced = false;
    const announce = (): void => {
      if (!announced) unannounced -= 1;
      announced = true;
    };
    let link: ReturnType<typeof relayLink> | undefined;
    socket.on("error", () => undefined);
    // The socket's end (the relay ended) comes after its last line; a socket this process
    // destroyed (`end`, a line over the bound) only closes. Whichever comes first reports the end, once.
    let done = false;
    const finish = (): void => {
      announce();
      sockets.delete(socket);
      if (done || !link) return;
      done = true;
      onEvent({ type: "child-eof", child: link });
      link.markClosed();
      onEvent({ type: "child-closed", child: link });
    };
    readSocketLines(socket, maxLineBytes, {
      onLine: (line) => {
        announce();
        const hello = link ? undefined : readRelayAnnouncement(line);
        if (link) onEvent({ type: "child-line", child: link, line });
        else if (hello) {
          link = relayLink(socket, hello.pid, hello.inProcess, children.length);
          children.push(link);
          onEvent({ type: "child-hello", child: link });
        } else {
          onEvent({ type: "child-protocol-error", reason: `malformed announcement from a replay relay: ${line.slice(0, 80)}` });
          socket.destroy();
        }
      },
      onOverflow: (bytesSeen) => {
        const who = link ? `agent #${link.index + 1} (replay relay, pid ${link.pid})` : "a replay relay not yet announced";
        onEvent({ type: "child-line-too-long", child: link, maxLineBytes, message: standInLineTooLong(who, "bridge→provider", bytesSeen, maxLineBytes) });
        link?.end();
      },
      onEnd: finish,
    });
    socket.on("close", finish);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    address,
    children,
    command: tools.perl,
    args: [script],
    get unannounced() {
      return unannounced;
    },
    async close() {
      for (const child of children) child.end();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
