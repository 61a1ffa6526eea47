/**
 * The one bridge spawner (harness/runtime/bridge-process.ts), used by record, conform and replay:
 * its stdout lines come out whole however the pipe cuts them (a line split across chunks, a
 * multi-byte UTF-8 character split across chunks), and a line over the bound is a
 * BridgeLineTooLongError naming the bridge, the lane and the length, with the bridge stopped.
 *
 * The "bridge" here is a small script standing in for the bootstrap, so the test decides the
 * bytes and where the chunks end. Chunk ends are causal, never timed: the script writes the first
 * piece to stdout, then says so on stderr, and writes the rest only after the test answers on
 * stdin. The parent reads the first piece before it can see the stderr line that follows it
 * (written after it), so the rest arrives in a later chunk.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BRIDGE_LINE_BOUND_BYTES, spawnBridgeProcess, type BridgeLaunch, type BridgeProcessEvent } from "../../harness/runtime/bridge-process.js";
import { BridgeLineTooLongError } from "../../harness/runtime/errors.js";
import { spawnBridge } from "../../harness/runtime/spawn-bridge.js";
import { BridgeClosedError } from "../../harness/runtime/errors.js";

const scratch = mkdtempSync(path.join(tmpdir(), "bridge-process-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A stand-in bootstrap: writes the hex pieces of env PIECES to stdout one by one; after each but
 * the last it writes `piece <n>` to stderr and waits for a line on stdin. Then it waits for stdin
 * to end (or, with HOLD=1, for ever) and exits 0.
 */
const script = path.join(scratch, "pieces.mjs");
writeFileSync(
  script,
  [
    `import { createInterface } from "node:readline";`,
    `const pieces = JSON.parse(process.env.PIECES).map((hex) => Buffer.from(hex, "hex"));`,
    `const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();`,
    `for (let i = 0; i < pieces.length; i++) {`,
    `  await new Promise((resolve) => process.stdout.write(pieces[i], resolve));`,
    `  if (i < pieces.length - 1) { process.stderr.write("piece " + i + "\\n"); await input.next(); }`,
    `}`,
    `if (process.env.HOLD === "1") setInterval(() => undefined, 1 << 30);`,
    `else { while (!(await input.next()).done); }`,
  ].join("\n"),
);

function launchOf(pieces: Buffer[], extra: Partial<BridgeLaunch> = {}, env: NodeJS.ProcessEnv = {}): BridgeLaunch {
  return {
    bootstrapPath: script,
    modulePath: path.join(scratch, "bridge.js"),
    providerId: "pieces",
    dataDir: scratch,
    cwd: scratch,
    env: { ...process.env, PIECES: JSON.stringify(pieces.map((p) => p.toString("hex"))), ...env },
    ...extra,
  };
}

/** Spawns `launch`, answers each `piece <n>` stderr line with a stdin line, ends stdin after the last piece; resolves with every event. */
function run(launch: BridgeLaunch, pieceCount: number): Promise<BridgeProcessEvent[]> {
  const events: BridgeProcessEvent[] = [];
  return new Promise((resolve) => {
    let answered = 0;
    const bridge = spawnBridgeProcess(
      {
        ...launch,
        onStderr: (text) => {
          for (const _ of text.match(/piece \d+\n/g) ?? []) {
            bridge.write("next");
            if (++answered === pieceCount - 1) bridge.endInput();
          }
        },
      },
      (event) => {
        events.push(event);
        if (event.type === "bridge-exit") resolve(events);
      },
    );
    if (pieceCount === 1) bridge.endInput();
  });
}

const lines = (events: BridgeProcessEvent[]) => events.flatMap((e) => (e.type === "bridge-line" ? [e.line] : []));

describe("the one bridge spawner splits stdout into whole lines", () => {
  it("a line split across chunks and a multi-byte character split across chunks come out whole", async () => {
    const first = Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"text":"caf\u00e9 \u{1F642} ok"}}\n', "utf8");
    const emoji = first.indexOf(Buffer.from("\u{1F642}", "utf8"));
    const accent = first.indexOf(Buffer.from("\u00e9", "utf8"));
    // Cut inside the two-byte é, inside the four-byte emoji (after its second byte), and inside the second line.
    const pieces = [first.subarray(0, accent + 1), first.subarray(accent + 1, emoji + 2), first.subarray(emoji + 2), Buffer.from("second li"), Buffer.from("ne\r\nthird\n")];
    const events = await run(launchOf(pieces), pieces.length);
    expect(lines(events)).toEqual(['{"jsonrpc":"2.0","method":"x","params":{"text":"café 🙂 ok"}}', "second line", "third"]);
    expect(events.at(-1)).toEqual({ type: "bridge-exit", code: 0, signal: null });
  });

  it("a final line without a newline comes out when stdout ends", async () => {
    const events = await run(launchOf([Buffer.from("no newline at the end")]), 1);
    expect(lines(events)).toEqual(["no newline at the end"]);
  });
});

describe("a line over the bound", () => {
  it("is 64 MiB by default: thousands of times the longest committed line (18 848 bytes)", () => {
    expect(BRIDGE_LINE_BOUND_BYTES).toBe(64 * 1024 * 1024);
  });

  it("is a BridgeLineTooLongError naming the bridge, the lane and the length; the bridge is stopped and nothing after it is delivered", async () => {
    const pieces = [Buffer.from("short\n"), Buffer.alloc(700, "a"), Buffer.concat([Buffer.alloc(700, "b"), Buffer.from("\nafter\n")])];
    const events = await run(launchOf(pieces, { maxLineBytes: 1024 }, { HOLD: "1" }), pieces.length);
    expect(lines(events)).toEqual(["short"]);
    const tooLong = events.find((e) => e.type === "bridge-line-too-long");
    expect(tooLong?.type === "bridge-line-too-long" && tooLong.error).toBeInstanceOf(BridgeLineTooLongError);
    const error = (tooLong as { error: BridgeLineTooLongError }).error;
    expect({ lane: error.lane, bytes: error.bytes, bound: error.maxLineBytes, code: error.code }).toEqual({ lane: "bridge→runtime", bytes: 1400, bound: 1024, code: "E_BRIDGE_LINE_TOO_LONG" });
    expect(error.message).toMatch(/^bridge pieces \(bridge\.js, pid \d+\) wrote a line on bridge→runtime longer than 1024 bytes \(1400 bytes of it read\); the bridge was stopped$/);
    // HOLD keeps the script running: only the spawner's kill ends it.
    expect(events.at(-1)).toEqual({ type: "bridge-exit", code: null, signal: "SIGKILL" });
  });

  it("ends a runtime channel with that error: a waiting request rejects naming it", async () => {
    const proc = spawnBridge({
      modulePath: path.join(scratch, "bridge.js"),
      providerId: "pieces",
      bootstrapPath: script,
      cwd: scratch,
      dataDir: scratch,
      maxLineBytes: 1024,
      env: { ...process.env, PIECES: JSON.stringify([Buffer.alloc(2048, "x").toString("hex")]), HOLD: "1" },
    });
    const answer = proc.request("thread/start", {});
    await expect(answer).rejects.toBeInstanceOf(BridgeClosedError);
    await expect(answer).rejects.toThrow(/wrote a line on bridge→runtime longer than 1024 bytes \(2048 bytes of it read/);
    expect(proc.lineTooLong()?.bytes).toBe(2048);
    expect(await proc.exited).toEqual({ code: null, signal: "SIGKILL" });
  });
});
