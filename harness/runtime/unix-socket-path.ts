/**
 * Room for Unix socket paths. Linux keeps a socket's path in `sun_path`, 108 bytes with its
 * terminating NUL; a longer path makes `listen` fail with a misleading `EADDRINUSE` (Node passes
 * it truncated). Record's model socket and replay's relay/child sockets live below the temp
 * directory, so a long `TMPDIR` used to end a run with "internal error: listen … EADDRINUSE"
 * (exit 5). These helpers pick a directory where the socket fits, or say plainly that none does.
 */
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../errors.js";

/** Longest socket path in bytes Linux accepts (`sun_path` is 108 bytes, NUL included). */
export const UNIX_SOCKET_PATH_MAX_BYTES = 107;

/** The short, world-writable directory a socket falls back to when the temp directory is too long. */
export const SHORT_SOCKET_PARENT = "/tmp";

/** True when `socketPath` fits a Unix socket address (its UTF-8 bytes ≤ {@link UNIX_SOCKET_PATH_MAX_BYTES}). */
export function fitsUnixSocketPath(socketPath: string): boolean {
  return Buffer.byteLength(socketPath, "utf8") <= UNIX_SOCKET_PATH_MAX_BYTES;
}

/**
 * The parent directory to make a private directory in, so that `<parent>/<tail>` fits a socket
 * path: `preferred` when it does, else {@link SHORT_SOCKET_PARENT} (`fallback`).
 *
 * @param tail what goes below the parent, at its longest (e.g. `pr-XXXXXX/relay.sock`)
 * @throws UsageError naming both directories when neither leaves room (exit 2)
 */
export function socketParent(preferred: string, tail: string, fallback = SHORT_SOCKET_PARENT): string {
  if (fitsUnixSocketPath(path.join(preferred, tail))) return preferred;
  if (fitsUnixSocketPath(path.join(fallback, tail))) return fallback;
  throw new UsageError(
    `temp directory ${preferred} is too long for a Unix socket path (${Buffer.byteLength(path.join(preferred, tail))} bytes with ${tail}; at most ${UNIX_SOCKET_PATH_MAX_BYTES}), and so is ${fallback}: set TMPDIR to a shorter directory`,
  );
}

/** A directory for socket `name`, and whether the caller made it (and must remove it). */
export interface SocketDir {
  dir: string;
  /** True when the directory is a new private one under {@link SHORT_SOCKET_PARENT}: the caller removes it. */
  owned: boolean;
}

/**
 * Where socket `name` goes for a run whose private directory is `preferredDir`: that directory
 * when `<preferredDir>/<name>` fits, else a new private directory `parity-sock-XXXXXX` under
 * {@link SHORT_SOCKET_PARENT} (mode 0700, as mkdtemp makes it).
 *
 * @throws UsageError when no directory leaves room (see {@link socketParent})
 */
export async function socketDirFor(preferredDir: string, name: string, fallback = SHORT_SOCKET_PARENT): Promise<SocketDir> {
  if (fitsUnixSocketPath(path.join(preferredDir, name))) return { dir: preferredDir, owned: false };
  const parent = socketParent(preferredDir, path.join("parity-sock-XXXXXX", name), fallback);
  return { dir: await mkdtemp(path.join(parent, "parity-sock-")), owned: true };
}
