import { processSockets, TCP_LISTEN } from "../../harness/record/sockets.js";

/** One listening TCP socket of a process: its local address (dotted IPv4 or hex IPv6) and port. */
export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
  loopback: boolean;
}

/** Listening TCP sockets (IPv4 and IPv6) held by the given pids, from Linux `/proc` (each pid's own network namespace). */
export function listeningSockets(pids: readonly number[]): ListeningSocket[] {
  return processSockets(pids)
    .filter((s) => s.protocol.startsWith("tcp") && s.state === TCP_LISTEN)
    .map((s) => ({ pid: s.pid, address: s.localAddress, port: s.localPort, loopback: s.localLoopback }));
}
