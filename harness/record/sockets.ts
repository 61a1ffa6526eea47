/**
 * The TCP and UDP sockets processes hold, read from Linux `/proc` (each process's own network
 * namespace: `/proc/<pid>/net/*`): local and remote address, state, and whether an address is
 * loopback. `parity record` uses it where it cannot give the agent a network namespace of its
 * own (network.ts): any socket with a remote peer outside loopback fails the recording.
 * Elsewhere than Linux it finds nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One socket of a process. */
export interface ProcessSocket {
  pid: number;
  protocol: "tcp" | "tcp6" | "udp" | "udp6";
  /** Dotted IPv4, or IPv6 as 32 hex digits (`/proc`'s byte order). */
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  /** `/proc`'s state: `0A` listening, `01` established, `02` SYN sent, … */
  state: string;
  /** True when the remote peer is loopback, or there is none (a listening or unconnected socket). */
  remoteLoopbackOrNone: boolean;
  /** True when the local address is loopback. */
  localLoopback: boolean;
}

/** TCP state of a listening socket in `/proc/net/tcp`. */
export const TCP_LISTEN = "0A";

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // fd closed meanwhile
      }
    }
  } catch {
    // process gone, or not ours to inspect
  }
  return inodes;
}

/** Decodes a `/proc/net` address word: IPv4 (8 hex digits, little-endian) or IPv6 (32). */
export function decodeProcAddress(hex: string): { address: string; loopback: boolean; unspecified: boolean } {
  const unspecified = /^0+$/.test(hex);
  if (hex.length === 8) {
    const bytes = hex
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .reverse();
    return { address: bytes.join("."), loopback: bytes[0] === 127, unspecified };
  }
  const upper = hex.toUpperCase();
  // ::1, or an IPv4-mapped 127.x.y.z (the last word is little-endian, so 127 is its last byte).
  const loopback = upper === "00000000000000000000000001000000" || (upper.startsWith("0000000000000000FFFF0000") && upper.endsWith("7F"));
  return { address: upper, loopback, unspecified };
}

/** Every TCP/UDP socket (IPv4 and IPv6) the given pids hold. */
export function processSockets(pids: readonly number[]): ProcessSocket[] {
  const found: ProcessSocket[] = [];
  const seen = new Set<string>();
  for (const pid of pids) {
    const inodes = socketInodes(pid);
    if (inodes.size === 0) continue;
    for (const protocol of ["tcp", "tcp6", "udp", "udp6"] as const) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/net/${protocol}`, "utf8");
      } catch {
        continue;
      }
      for (const row of text.split("\n").slice(1)) {
        const cols = row.trim().split(/\s+/);
        if (cols.length < 10 || !inodes.has(cols[9]!) || seen.has(`${protocol}:${cols[9]}`)) continue;
        seen.add(`${protocol}:${cols[9]}`);
        const [localHex, localPort] = cols[1]!.split(":");
        const [remoteHex, remotePort] = cols[2]!.split(":");
        const local = decodeProcAddress(localHex!);
        const remote = decodeProcAddress(remoteHex!);
        found.push({
          pid,
          protocol,
          localAddress: local.address,
          localPort: parseInt(localPort!, 16),
          remoteAddress: remote.address,
          remotePort: parseInt(remotePort!, 16),
          state: cols[3]!,
          remoteLoopbackOrNone: remote.loopback || remote.unspecified,
          localLoopback: local.loopback,
        });
      }
    }
  }
  return found;
}

/** The sockets of `pids` whose remote peer is outside loopback: each an outbound connection. */
export function nonLoopbackPeers(pids: readonly number[]): ProcessSocket[] {
  return processSockets(pids).filter((s) => !s.remoteLoopbackOrNone);
}
