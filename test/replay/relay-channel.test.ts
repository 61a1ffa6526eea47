/**
 * The replay relay (harness/replay/relay-channel.ts) started as a bridge starts an agent: its own
 * process group, piped stdio, flags inserted after its first argument. Lines cross both ways in
 * order, the bridge closing its stdin ends it, `end` stops its whole group, it is one process
 * (no helper children), and perl is looked up on PATH. Every wait is for an event; none depends on how long it takes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import type { ChildChannelEvent } from "../../harness/replay/stand-ins/child-channel.js";
import { findRelayTools, openRelayChannel, type RelayChannel } from "../../harness/replay/stand-ins/relay-channel.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Pids of the processes of process group `pgid` that are not zombies (Linux /proc). */
function livingMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") found.push(Number(entry));
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A channel in a fresh directory, its events in arrival order, and a way to wait for one. */
async function channel(): Promise<{ relays: RelayChannel; events: ChildChannelEvent[]; next(type: ChildChannelEvent["type"]): Promise<ChildChannelEvent> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-test-"));
  const events: ChildChannelEvent[] = [];
  const waiters: Array<{ type: string; resolve(event: ChildChannelEvent): void }> = [];
  let seen = 0;
  const relays = await openRelayChannel(dir, findRelayTools()!, (event) => {
    events.push(event);
    const at = waiters.findIndex((w) => w.type === event.type);
    if (at !== -1) waiters.splice(at, 1)[0]!.resolve(event);
  });
  cleanups.push(async () => {
    await relays.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    relays,
    events,
    next(type) {
      const found = events.slice(seen).find((e) => e.type === type);
      if (found) {
        seen = events.indexOf(found) + 1;
        return Promise.resolve(found);
      }
      return new Promise((resolve) => waiters.push({ type, resolve: (e) => ((seen = events.length), resolve(e)) }));
    },
  };
}

/** Spawns the relay as the ACP bridge spawns an agent (own process group, piped stdio), with `extra` flags inserted after its first argument. */
function startRelay(relays: RelayChannel, extra: string[] = []): { child: ChildProcess; stdout: string[]; nextLine(): Promise<string> } {
  const args = [relays.args[0]!, ...extra, ...relays.args.slice(1)];
  const child = spawn(relays.command, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  });
  const stdout: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else stdout.push(line);
  });
  return { child, stdout, nextLine: () => (stdout.length > 0 ? Promise.resolve(stdout.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
}

describe.runIf(process.platform === "linux" && findRelayTools() !== undefined)("the replay relay", () => {
  it("announces the pid the bridge spawned, carries lines both ways in order, and ends when its stdin closes", async () => {
    const { relays, next } = await channel();
    const relay = startRelay(relays, ["--always-approve"]);
    const hello = await next("child-hello");
    expect(hello.type === "child-hello" && hello.child.pid).toBe(relay.child.pid);
    const link = (hello as Extract<ChildChannelEvent, { type: "child-hello" }>).child;
    expect(link.index).toBe(0);
    // One process per agent session: the relay starts no helper (issue 25: no sh/mkfifo/cat).
    expect(livingMembers(relay.child.pid!)).toEqual([relay.child.pid]);

    const big = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { text: "x".repeat(200_000) } });
    relay.child.stdin!.write(`{"jsonrpc":"2.0","id":1,"method":"initialize"}\n${big}\n`);
    const first = await next("child-line");
    const second = await next("child-line");
    expect(first.type === "child-line" && first.line).toBe('{"jsonrpc":"2.0","id":1,"method":"initialize"}');
    expect(second.type === "child-line" && second.line).toBe(big);

    link.send('{"jsonrpc":"2.0","id":1,"result":{}}');
    link.send(big);
    expect(await relay.nextLine()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(await relay.nextLine()).toBe(big);

    const exited = new Promise((resolve) => relay.child.once("exit", (code) => resolve(code)));
    relay.child.stdin!.end();
    expect(await exited).toBe(0);
    await next("child-closed");
    expect(link.closed).toBe(true);
  });

  it("numbers relays in the order they announce themselves; end stops a relay's whole process group", async () => {
    const { relays, next } = await channel();
    const a = startRelay(relays);
    const first = (await next("child-hello")) as Extract<ChildChannelEvent, { type: "child-hello" }>;
    const b = startRelay(relays);
    const second = (await next("child-hello")) as Extract<ChildChannelEvent, { type: "child-hello" }>;
    expect([first.child.index, first.child.pid, second.child.index, second.child.pid]).toEqual([0, a.child.pid, 1, b.child.pid]);

    const exited = new Promise((resolve) => b.child.once("exit", (_code, signal) => resolve(signal)));
    second.child.end();
    expect(await exited).toBe("SIGTERM");
    await second.child.whenClosed();
    // The relay's background copy went with its group: nothing of the group still runs (a
    // killed member may linger as a zombie until init reaps it).
    let live = livingMembers(b.child.pid!);
    for (let tries = 0; tries < 10_000 && live.length > 0; tries += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      live = livingMembers(b.child.pid!);
    }
    expect(live).toEqual([]);
    expect(isAlive(a.child.pid!)).toBe(true);
  });

  it("a relay started after the channel closed (a dying bridge's last agent) never blocks: it ends with its stdin and leaves nothing running", async () => {
    const { relays } = await channel();
    await relays.close();
    const late = startRelay(relays);
    const exited = new Promise((resolve) => late.child.once("exit", (code) => resolve(code)));
    late.child.stdin!.end();
    expect(await exited).toBe(0);
    let live = livingMembers(late.child.pid!);
    for (let tries = 0; tries < 10_000 && live.length > 0; tries += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      live = livingMembers(late.child.pid!);
    }
    expect(live).toEqual([]);
  });

  it("is found on PATH by absolute path, and not at all on Windows or without perl", () => {
    const tools = findRelayTools();
    expect(path.isAbsolute(tools!.perl)).toBe(true);
    expect(findRelayTools(process.env.PATH, "win32")).toBeUndefined();
    expect(findRelayTools("/nonexistent")).toBeUndefined();
  });
});
