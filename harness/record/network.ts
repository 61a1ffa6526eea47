/**
 * Keeping a recording on loopback, provably (docs/design/00-product.md "Real input": nothing may contact
 * anything but loopback). Preferred: the bridge and its agent run in a fresh network namespace
 * whose only interface is loopback (Linux `unshare --net`, as root or through a user
 * namespace; `ip link set lo up`), the model endpoint reached through a Unix socket
 * (netns-entry.ts). Where namespaces are unavailable: the run's processes' sockets are
 * watched, and any peer outside loopback fails the recording. The manifest's `network` says
 * which.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { packageDistPath } from "../runtime/spawn-bridge.js";

/** How `record` keeps the agent on loopback: `auto` (a namespace when possible, else watching), or one of them only. */
export type NetworkMode = "auto" | "netns" | "watch";

/** Manifest `network` of a run in a namespace with only loopback. */
export const NETWORK_NETNS = "netns: a fresh network namespace with only loopback";
/** Manifest `network` of a run whose sockets were watched. */
export const NETWORK_WATCHED = "watched: sockets of the agent's processes checked for peers outside loopback";

/** The port the model endpoint has inside a namespace (fixed, so recordings name the same origin). */
export const NETNS_MODEL_PORT = 41_641;

/** How a run is isolated. */
export type NetworkIsolation = { kind: "netns"; unshare: string; unshareArgs: string[]; ip: string } | { kind: "watch"; why: string };

function findOn(name: string, searchPath: string): string | null {
  for (const dir of [...searchPath.split(path.delimiter), "/usr/sbin", "/sbin", "/usr/bin", "/bin"]) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Whether this machine can give a run its own network namespace, found by trying it once
 * (`unshare --net [--map-root-user] ip link set lo up`). `mode: "watch"` skips the try.
 */
export function detectNetworkIsolation(mode: NetworkMode, env: NodeJS.ProcessEnv = process.env): NetworkIsolation {
  if (mode === "watch") return { kind: "watch", why: "--network watch" };
  if (process.platform !== "linux") return { kind: "watch", why: `network namespaces are Linux only (this is ${process.platform})` };
  const unshare = findOn("unshare", env.PATH ?? "");
  const ip = findOn("ip", env.PATH ?? "");
  if (!unshare || !ip) return { kind: "watch", why: `${!unshare ? "unshare" : "ip"} is not installed (util-linux / iproute2)` };
  const unshareArgs = process.getuid?.() === 0 ? ["--net"] : ["--net", "--map-root-user"];
  const tried = spawnSync(unshare, [...unshareArgs, ip, "link", "set", "lo", "up"], { encoding: "utf8", timeout: 10_000 });
  if (tried.status !== 0) return { kind: "watch", why: `unshare ${unshareArgs.join(" ")} failed: ${(tried.stderr || tried.error?.message || "").trim().split("\n")[0]}` };
  return { kind: "netns", unshare, unshareArgs, ip };
}

/**
 * The launcher that starts a bridge inside a fresh namespace: `unshare … node netns-entry.js
 * <ip> <socketPath> <port> --` before the bridge's own command.
 */
export function netnsLauncher(isolation: Extract<NetworkIsolation, { kind: "netns" }>, socketPath: string, port: number): { command: string; args: string[] } {
  return {
    command: isolation.unshare,
    args: [...isolation.unshareArgs, "--", process.execPath, packageDistPath("harness", "record", "netns-entry.js"), isolation.ip, socketPath, String(port), "--"],
  };
}

/**
 * A `spawn` that starts each command inside its own fresh namespace with only loopback
 * (`parity probe`): `unshare … node netns-entry.js <ip> <socketPath> <port> -- <command> …`;
 * without a model endpoint `socketPath` is `-` and `port` 0.
 */
export function netnsSpawn(isolation: Extract<NetworkIsolation, { kind: "netns" }>, socketPath = "-", port = 0): (command: string, args: string[], options: SpawnOptions) => ChildProcess {
  return (command, args, options) => {
    const launcher = netnsLauncher(isolation, socketPath, port);
    return spawn(launcher.command, [...launcher.args, command, ...args], options);
  };
}
