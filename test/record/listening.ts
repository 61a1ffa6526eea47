import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One listening TCP socket of a process: its local address (dotted IPv4 or hex IPv6) and port. */
export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
  loopback: boolean;
}

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
    // process gone
  }
  return inodes;
}

function decodeAddress(hex: string): { address: string; loopback: boolean } {
  if (hex.length === 8) {
    const bytes = hex.match(/../g)!.map((b) => parseInt(b, 16)).reverse();
    return { address: bytes.join("."), loopback: bytes[0] === 127 };
  }
  const upper = hex.toUpperCase();
  // ::1, or an IPv4-mapped 127.x.y.z (the last word is little-endian, so 127 is its last byte).
  const loopback = upper === "00000000000000000000000001000000" || (upper.startsWith("0000000000000000FFFF0000") && upper.endsWith("7F"));
  return { address: upper, loopback };
}

/** Listening TCP sockets (IPv4 and IPv6) held by the given pids, from Linux `/proc`. */
export function listeningSockets(pids: readonly number[]): ListeningSocket[] {
  const byInode = new Map<string, number>();
  for (const pid of pids) for (const inode of socketInodes(pid)) byInode.set(inode, pid);
  const found: ListeningSocket[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const row of text.split("\n").slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== "0A") continue;
      const pid = byInode.get(cols[9]!);
      if (pid === undefined) continue;
      const [addrHex, portHex] = cols[1]!.split(":");
      found.push({ pid, port: parseInt(portHex!, 16), ...decodeAddress(addrHex!) });
    }
  }
  return found;
}
