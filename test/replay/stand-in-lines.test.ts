/**
 * The agent stand-ins' sockets are read through the project's one bounded line splitter
 * (harness/replay/stand-ins/socket-lines.ts), as the bridge's stdout is: a line the bridge writes
 * to its agent over the bound is a `line-too-long` divergence naming the stand-in, the agent
 * session and the lane, and leaves no process; lines split across socket chunks (a multi-byte
 * character cut in two included) come out whole. Chunk boundaries are forced by event order: the
 * second piece is written only after the channel reported what came with the first, so it
 * cannot arrive in the same read. Nothing waits on time.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { replayRecording } from "../../harness/replay/replay-recording.js";
import type { ChildChannelEvent } from "../../harness/replay/stand-ins/child-channel.js";
import { openChildChannel } from "../../harness/replay/stand-ins/child-channel.js";
import { openRelayChannel, findRelayTools } from "../../harness/replay/stand-ins/relay-channel.js";
import { chooseStandIn, type StandInKind } from "../../harness/replay/stand-ins/stand-in.js";
import { isAlive, repoRoot } from "./helpers.js";

const oversizedAgentLine = path.join(repoRoot, "test", "replay", "fixtures", "oversized-agent-line-bridge.mjs");
const zeroWork = path.join(repoRoot, "recordings", "acp-omp-fixture", "zero-work");
const childModule = path.join(repoRoot, "dist", "harness", "replay", "stand-ins", "replay-child.js");
const hasPerl = findRelayTools() !== undefined;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Events of a channel in arrival order, and a wait for the next one of a type (by event, not time). */
function eventLog(): { onEvent(event: ChildChannelEvent): void; events: ChildChannelEvent[]; next<T extends ChildChannelEvent["type"]>(type: T): Promise<Extract<ChildChannelEvent, { type: T }>> } {
  const events: ChildChannelEvent[] = [];
  const waiters: Array<{ type: string; resolve(event: ChildChannelEvent): void }> = [];
  let seen = 0;
  return {
    events,
    onEvent(event) {
      events.push(event);
      const at = waiters.findIndex((w) => w.type === event.type);
      if (at !== -1) {
        seen = events.length;
        waiters.splice(at, 1)[0]!.resolve(event);
      }
    },
    next(type) {
      const found = events.slice(seen).find((e) => e.type === type);
      if (found) {
        seen = events.indexOf(found) + 1;
        return Promise.resolve(found as never);
      }
      return new Promise((resolve) => waiters.push({ type, resolve: resolve as never }));
    },
  };
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stand-in-lines-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function client(address: string): Socket {
  const socket = connect(address);
  socket.on("error", () => undefined);
  cleanups.push(() => void socket.destroy());
  return socket;
}

// "héllo 😀 wörld": the emoji is 4 bytes; the first piece ends after 2 of them.
const TEXT = "héllo 😀 wörld";
const BYTES = Buffer.from(TEXT, "utf8");
const CUT = BYTES.indexOf(Buffer.from("😀", "utf8")) + 2;

describe.runIf(process.platform === "linux" && hasPerl)("the relay's socket", () => {
  it("gives a line split across reads, a 4-byte character cut in two, whole", async () => {
    const log = eventLog();
    const relays = await openRelayChannel(tempDir(), findRelayTools()!, log.onEvent);
    cleanups.push(() => relays.close());
    const socket = client(relays.address);
    // A pid no process has (above the kernel's limit): the channel's close signals it in vain.
    socket.write(Buffer.concat([Buffer.from(`${2 ** 22 + 4242}\n`), BYTES.subarray(0, CUT)]));
    await log.next("child-hello");
    socket.write(Buffer.concat([BYTES.subarray(CUT), Buffer.from("\r\nnext\n")]));
    expect((await log.next("child-line")).line).toBe(TEXT);
    expect((await log.next("child-line")).line).toBe("next");
  });
});

describe("the Node replay child's socket", () => {
  it("gives a frame split across reads, a 4-byte character cut in two, whole", async () => {
    const log = eventLog();
    const channel = await openChildChannel(tempDir(), log.onEvent);
    cleanups.push(() => channel.close());
    const socket = client(channel.address);
    const frame = Buffer.from(`${JSON.stringify({ t: "line", line: TEXT })}\n`, "utf8");
    const cut = frame.indexOf(Buffer.from("😀", "utf8")) + 2;
    socket.write(Buffer.concat([Buffer.from(`${JSON.stringify({ t: "hello", pid: 2 ** 22 + 4243 })}\n`), frame.subarray(0, cut)]));
    await log.next("child-hello");
    socket.write(frame.subarray(cut));
    expect((await log.next("child-line")).line).toBe(TEXT);
  });

  it("reports a frame over its bound (twice the line bound, plus the frame's own bytes) naming the child, and closes its socket", async () => {
    const log = eventLog();
    const channel = await openChildChannel(tempDir(), log.onEvent, 1024);
    cleanups.push(() => channel.close());
    const socket = client(channel.address);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(`${JSON.stringify({ t: "hello", pid: 2 ** 22 + 4244 })}\n`);
    await log.next("child-hello");
    socket.write(`${JSON.stringify({ t: "line", line: "x".repeat(4096) })}\n`);
    const tooLong = await log.next("child-line-too-long");
    expect(tooLong.message).toMatch(/^agent #1 \(Node replay child, pid 4198548\) got a line on its socket \(a frame\) longer than 2112 bytes \(\d+ bytes of it read\); the stand-in was stopped$/);
    await closed;
    expect(log.events.some((e) => e.type === "child-line")).toBe(false);
  });
});

/** Starts a stand-in as a bridge starts its agent (own process group, piped stdio) and writes it a 4 KiB line. */
async function oversizedLineTo(kind: StandInKind): Promise<{ event: Extract<ChildChannelEvent, { type: "child-line-too-long" }>; pid: number; exited: Promise<unknown> }> {
  const log = eventLog();
  const { channel, command, args } = await chooseStandIn(kind, childModule).open(tempDir(), log.onEvent, 1024);
  cleanups.push(() => channel.close());
  const agent = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  cleanups.push(() => {
    if (isAlive(agent.pid!)) process.kill(-agent.pid!, "SIGKILL");
  });
  const exited = new Promise((resolve) => agent.once("exit", resolve));
  agent.stdin!.on("error", () => undefined);
  await log.next("child-hello");
  agent.stdin!.write(`${"x".repeat(4096)}\n`);
  return { event: await log.next("child-line-too-long"), pid: agent.pid!, exited };
}

describe.runIf(process.platform === "linux")("a line over the bound written to a stand-in", () => {
  it.runIf(hasPerl)("the relay: one event naming agent #1, the relay's pid and the lane; the relay is stopped", async () => {
    const { event, pid, exited } = await oversizedLineTo("relay");
    expect(event.message).toBe(
      `agent #1 (replay relay, pid ${pid}) got a line on bridge→provider longer than 1024 bytes (${event.message.match(/\((\d+) bytes of it read/)![1]} bytes of it read); the stand-in was stopped`,
    );
    expect(event.child?.pid).toBe(pid);
    await exited;
    expect(isAlive(pid)).toBe(false);
  });

  it("the Node replay child: it drops the line, says so, and is stopped", async () => {
    const { event, pid, exited } = await oversizedLineTo("node");
    expect(event.message).toMatch(
      new RegExp(`^agent #1 \\(Node replay child, pid ${pid}\\) got a line on bridge→provider longer than 1024 bytes \\(\\d+ bytes of it read\\); the stand-in was stopped$`),
    );
    await exited;
    expect(isAlive(pid)).toBe(false);
  });
});

describe.runIf(process.platform === "linux")("a replay whose bridge writes its agent a line over the bound", () => {
  for (const kind of hasPerl ? (["relay", "node"] as const) : (["node"] as const)) {
    it(`diverges with line-too-long naming the ${kind} stand-in and leaves no process`, async () => {
      const result = await replayRecording(zeroWork, { modulePath: oversizedAgentLine, maxLineBytes: 1024, agentProcess: kind });
      expect(result.ok).toBe(false);
      const tooLong = result.divergences.find((d) => d.kind === "line-too-long");
      const name = kind === "relay" ? "replay relay" : "Node replay child";
      expect(tooLong?.message).toMatch(new RegExp(`^agent #1 \\(${name}, pid \\d+\\) got a line on bridge→provider longer than 1024 bytes`));
      expect(result.pids.length).toBeGreaterThan(1);
      expect(result.pids.filter(isAlive)).toEqual([]);
    });
  }
});
