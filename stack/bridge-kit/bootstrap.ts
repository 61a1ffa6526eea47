/**
 * The bridge bootstrap: `node dist/stack/bridge-kit/bootstrap.js <bridge module> <providerId> <dataDir>`
 * (stack/bridge-kit/README.md; spec 02 §7: argv, the data and temp directories, the stdin framing and
 * the signals are the bootstrap's; spec 20 §1.1; spec 10 §4 record mode).
 *
 * Order matters: the stdout guard and the recorder exist before the bridge module is
 * loaded, so nothing the module does at import time can reach the protocol stream or escape
 * the recording; so does the in-process relay (`BB_PROVIDER_BRIDGE_RELAY_DIR`, set by a replay:
 * spawns of its relay script are served in this process, bootstrap-relay-spawn.ts). Exit codes: 0 after stdin closes or SIGTERM/SIGINT (once `onClose` ran),
 * 2 on bad arguments, 1 when the module cannot be loaded or its `start` fails.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { RECORD_DIR_ENV_VAR } from "./child-env.js";
import { PROVIDER_BRIDGE_EXPORT_NAME, providerBridgeOf, type ProviderBridge } from "./define.js";
import { createBridgeHost } from "./host.js";
import { MAX_LINE_BYTES, createBoundedLineSplitter } from "./line-splitter.js";
import { serveRelaysInProcess } from "./bootstrap-relay-spawn.js";
import { RELAY_DIR_ENV_VAR } from "./bootstrap-relay-wire.js";
import { installProcessRecorder } from "./record-process.js";
import { createBridgeRecorder, type BridgeRecorder } from "./recorder.js";
import { installStdoutGuard } from "./stdout-guard.js";

const USAGE = "usage: bootstrap.js <bridge module> <providerId> <dataDir>";

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

async function loadBridge(modulePath: string): Promise<ProviderBridge> {
  const loaded = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const bridge = providerBridgeOf(loaded);
  if (!bridge) throw new Error(`${modulePath} does not export ${PROVIDER_BRIDGE_EXPORT_NAME} (a defineProviderBridge(...) value)`);
  return bridge;
}

/** Reads the record variable (trimmed) and removes it from this process's env, so no child inherits it. */
function takeRecordDir(): string | null {
  const value = process.env[RECORD_DIR_ENV_VAR]?.trim();
  delete process.env[RECORD_DIR_ENV_VAR];
  return value ? path.resolve(value) : null;
}

/** Reads the replay's relay directory (bootstrap-relay-wire.ts) and removes it from this process's env, so no child inherits it. */
function takeRelayDir(): string | null {
  const value = process.env[RELAY_DIR_ENV_VAR]?.trim();
  delete process.env[RELAY_DIR_ENV_VAR];
  return value ? path.resolve(value) : null;
}

async function main(argv: string[]): Promise<void> {
  const guard = installStdoutGuard(process.stdout, process.stderr);
  const [moduleArg, providerId, dataDirArg] = argv;
  if (!moduleArg || !providerId || !dataDirArg || argv.length !== 3) {
    log(USAGE);
    process.exit(2);
  }
  const recordDir = takeRecordDir();
  let recorder: BridgeRecorder | null = null;
  if (recordDir) {
    recorder = createBridgeRecorder({
      dir: recordDir,
      providerId,
      // The bootstrap is the process edge: the one place the real clock is read.
      now: () => Date.now(),
      onWriteError: (error, file) => log(`bridge-kit: could not record to ${file}: ${error instanceof Error ? error.message : String(error)}`),
    });
    installProcessRecorder(recorder);
  }

  // Before the bridge module is imported, so its `child_process` bindings see the wrapper.
  const relayDir = takeRelayDir();
  if (relayDir) serveRelaysInProcess(relayDir);

  const modulePath = path.resolve(moduleArg);
  const dataDir = path.resolve(dataDirArg);
  let bridge: ProviderBridge;
  let tempDir: string;
  try {
    bridge = await loadBridge(modulePath);
    fs.mkdirSync(dataDir, { recursive: true });
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `bb-bridge-${providerId.replace(/[^A-Za-z0-9_.-]+/g, "-")}-`));
  } catch (error) {
    log(`bridge-kit: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }

  const host = createBridgeHost({
    bridge,
    providerId,
    dataDir,
    tempDir,
    env: { ...process.env },
    writeLine: (line) => guard.writeProtocolLine(line),
    log,
    recorder,
  });

  process.on("unhandledRejection", (reason) => {
    log(`bridge-kit: unhandled rejection in the bridge: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });

  let shuttingDown = false;
  const shutdown = async (why: string) => {
    if (shuttingDown) {
      // A second signal while onClose runs: stop waiting.
      process.exit(1);
    }
    shuttingDown = true;
    await host.close();
    recorder?.close();
    fs.rmSync(tempDir, { recursive: true, force: true });
    if (why !== "stdin closed") log(`bridge-kit: exiting on ${why}`);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  try {
    await host.start();
  } catch (error) {
    log(`bridge-kit: start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  }

  const splitter = createBoundedLineSplitter({
    maxLineBytes: MAX_LINE_BYTES,
    onLine: (line) => host.acceptLine(line),
    onOversize: (bytes) => log(`bridge-kit: dropped a stdin line of ${bytes} bytes (limit ${MAX_LINE_BYTES} bytes)`),
  });
  process.stdin.on("data", (chunk: Buffer) => splitter.push(chunk));
  process.stdin.on("end", () => {
    splitter.end();
    void shutdown("stdin closed");
  });
  process.stdin.on("error", (error) => {
    log(`bridge-kit: stdin error: ${error.message}`);
    void shutdown("stdin error");
  });
}

void main(process.argv.slice(2));
