// Test helper: runs a bridge module through the compiled bootstrap and reads its stdio
// line by line. Waits are on lines and events only (no sleeps); a hang fails the test by
// its timeout.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const bootstrapPath = path.join(repoRoot, "dist/stack/bridge-kit/bootstrap.js");
export const probeBridgePath = path.join(repoRoot, "test/fixtures/bridges/record-probe-bridge.mjs");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Compiles the package when dist/ is missing or older than the bridge-kit or protocol sources. */
export function ensureCompiledBootstrap(): void {
  const sources = Math.max(newestMtime(path.join(repoRoot, "stack/bridge-kit")), newestMtime(path.join(repoRoot, "stack/protocol")));
  const compiled = fs.existsSync(bootstrapPath) ? fs.statSync(bootstrapPath).mtimeMs : 0;
  const kitIndex = path.join(repoRoot, "dist/stack/bridge-kit/index.js");
  if (compiled >= sources && fs.existsSync(kitIndex)) return;
  // tsc emits even when another engineer's file has a type error; its exit code is not ours to judge.
  spawnSync(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: repoRoot, stdio: "ignore" });
  if (!fs.existsSync(bootstrapPath)) throw new Error(`could not compile ${bootstrapPath}`);
}

export type Message = Record<string, unknown> & {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

export interface DrivenBridge {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, in order. */
  readonly stdoutLines: string[];
  /** Every line sent to stdin, in order. */
  readonly sentLines: string[];
  stderr(): string;
  send(message: unknown): void;
  sendRaw(data: string | Buffer): void;
  /** The first stdout message (already received or future) matching `predicate`. */
  waitFor(predicate: (message: Message) => boolean): Promise<Message>;
  /** Resolves when stderr contains `text`. */
  waitForStderr(text: string): Promise<void>;
  /** Sends a request and resolves with its response. */
  request(id: number | string, method: string, params?: unknown): Promise<Message>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function driveBridge(options: { modulePath?: string; providerId: string; dataDir: string; env?: NodeJS.ProcessEnv }): DrivenBridge {
  const child = spawn(process.execPath, [bootstrapPath, options.modulePath ?? probeBridgePath, options.providerId, options.dataDir], {
    cwd: repoRoot,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdoutLines: string[] = [];
  const sentLines: string[] = [];
  const messages: Message[] = [];
  let stderrText = "";
  const waiters: Array<{ predicate: (message: Message) => boolean; resolve: (message: Message) => void }> = [];
  const stderrWaiters: Array<{ text: string; resolve: () => void }> = [];
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    let index: number;
    while ((index = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, index);
      buffered = buffered.slice(index + 1);
      stdoutLines.push(line);
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        continue;
      }
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderrText += chunk;
    for (const waiter of [...stderrWaiters]) {
      if (stderrText.includes(waiter.text)) {
        stderrWaiters.splice(stderrWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stdin.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));

  const waitFor = (predicate: (message: Message) => boolean) => {
    const found = messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise<Message>((resolve) => waiters.push({ predicate, resolve }));
  };
  const send = (message: unknown) => {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    sentLines.push(line);
    child.stdin.write(`${line}\n`);
  };
  return {
    child,
    stdoutLines,
    sentLines,
    stderr: () => stderrText,
    send,
    sendRaw: (data) => child.stdin.write(data),
    waitFor,
    waitForStderr: (text) => (stderrText.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => stderrWaiters.push({ text, resolve }))),
    request(id, method, params) {
      const reply = waitFor((message) => message.id === id && message.method === undefined);
      send({ jsonrpc: "2.0", id, method, params });
      return reply;
    },
    exited,
  };
}

export interface LaneEntry {
  ts: number;
  run: number;
  seq: number;
  dir: string;
  line: string;
}

/** Every lane file under `root`, as `{scope, direction, entries}`. */
export function readRecordTree(root: string): Array<{ scope: string; direction: string; entries: LaneEntry[] }> {
  const lanes: Array<{ scope: string; direction: string; entries: LaneEntry[] }> = [];
  if (!fs.existsSync(root)) return lanes;
  for (const scope of fs.readdirSync(root).sort()) {
    for (const file of fs.readdirSync(path.join(root, scope)).sort()) {
      const text = fs.readFileSync(path.join(root, scope, file), "utf8");
      const entries = text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as LaneEntry);
      lanes.push({ scope, direction: file.replace(/\.ndjson$/, ""), entries });
    }
  }
  return lanes;
}
