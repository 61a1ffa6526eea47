/**
 * What the replay and the bridge bootstrap agree on when the bootstrap serves the replay relay
 * inside the bridge process (harness/replay/stand-ins/README.md, "served in-process"; spec 10
 * §5.2): the variable naming the replay's relay directory, the two files in it, the relay's
 * first line, and the pids an in-process relay is given.
 *
 * Pure values and functions: the harness (`harness/replay/stand-ins/relay-channel.ts`,
 * `harness/replay/bridge/launch.ts`) and the bootstrap (`bootstrap-relay-spawn.ts`) import them,
 * so a name or a format is written in one place.
 */
import { join } from "node:path";

/**
 * Set by a replay on the bridge it starts: the private directory holding the relay script and
 * the socket the relays report to. The bootstrap reads it and removes it from its environment
 * before the bridge module is loaded, so no agent the bridge starts inherits it.
 */
export const RELAY_DIR_ENV_VAR = "BB_PROVIDER_BRIDGE_RELAY_DIR";

/** The relay script and the socket of a relay directory `dir` (both absolute when `dir` is). */
export function relayPaths(dir: string): { script: string; socket: string } {
  return { script: join(dir, "relay.pl"), socket: join(dir, "relay.sock") };
}

/**
 * The lowest pid an in-process relay is given. Linux pids are below `/proc/sys/kernel/pid_max`,
 * which can be at most 2^22 (4 194 304, `PID_MAX_LIMIT` on 64-bit kernels), so a pid from here
 * up names no process: a `process.kill(pid)` or `process.kill(-pid)` the bridge makes for it can
 * never reach a real one, even before the bootstrap's own `process.kill` sees it.
 */
export const FIRST_IN_PROCESS_PID = 2 ** 22 + 1;

/** True when `pid` (or a group id `-pid`) is in the in-process relays' range. */
export function isInProcessPid(pid: number): boolean {
  return Number.isSafeInteger(pid) && Math.abs(pid) >= FIRST_IN_PROCESS_PID;
}

/** The word after the pid in an in-process relay's first line. */
const IN_PROCESS_MARK = "in-process";

/**
 * The first line a relay writes on its socket (without the newline): its pid, and for a relay
 * served inside the bridge process ` in-process`, so the harness neither signals nor looks up
 * a pid that names no process.
 */
export function relayAnnouncement(pid: number, inProcess: boolean): string {
  return inProcess ? `${pid} ${IN_PROCESS_MARK}` : String(pid);
}

/** Reads a relay's first line: `<pid>` or `<pid> in-process`; undefined for anything else. */
export function readRelayAnnouncement(line: string): { pid: number; inProcess: boolean } | undefined {
  const match = /^([1-9][0-9]{0,15})( in-process)?$/.exec(line);
  if (!match) return undefined;
  const pid = Number(match[1]);
  const inProcess = match[2] !== undefined;
  // An in-process relay's pid is in the range: a real pid marked in-process would never be signalled.
  return !inProcess || isInProcessPid(pid) ? { pid, inProcess } : undefined;
}
