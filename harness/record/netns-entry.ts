/**
 * The first process inside a recording's network namespace (network.ts): brings loopback up,
 * forwards `127.0.0.1:<port>` inside the namespace to the model endpoint's Unix socket outside
 * it (a Unix socket is a file, so it crosses network namespaces), then runs the bridge with
 * inherited stdio, passes on the signals it gets, and exits as the bridge exits (its code, or
 * ended by the same signal).
 *
 * Usage: `node netns-entry.js <ip> <socketPath> <port> -- <command> [args…]`; a socketPath of
 * `-` forwards nothing (an agent that needs no model endpoint, e.g. under `parity probe`).
 */
import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import os from "node:os";

const [ip, socketPath, portText, separator, command, ...args] = process.argv.slice(2);
if (!ip || !socketPath || !portText || separator !== "--" || !command) {
  process.stderr.write("usage: netns-entry <ip> <socketPath> <port> -- <command> [args...]\n");
  process.exit(2);
}

execFileSync(ip, ["link", "set", "lo", "up"], { stdio: ["ignore", "ignore", "inherit"] });

const run = () => {
  const child = spawn(command, args, { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    process.stderr.write(`netns-entry: cannot start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => (signal ? endBySignal(signal) : process.exit(code ?? 1)));
};

/**
 * Ends this process by the signal that ended the child, so whoever started it sees that signal
 * (a cell's facts name the signal that ended a command, harness/facts). A signal Node ignores
 * (SIGPIPE) does not end it; then it exits 128 + n, as a shell reports it.
 */
function endBySignal(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  process.exit(128 + (os.constants.signals[signal] ?? 0));
}

const forwarder = net.createServer((inside) => {
  const outside = net.connect(socketPath);
  inside.pipe(outside).on("error", () => inside.destroy());
  outside.pipe(inside).on("error", () => outside.destroy());
  inside.on("error", () => outside.destroy());
  outside.on("error", () => inside.destroy());
  inside.on("close", () => outside.destroy());
  outside.on("close", () => inside.destroy());
});

if (socketPath === "-") run();
else forwarder.listen(Number(portText), "127.0.0.1", run);
