import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInterruptible, writtenLine, type InterruptHost, type StopSignal } from "../../harness/cli/interrupt.js";
import { environHasSession, parseStat, strayPids } from "../../harness/cli/strays.js";

// Issue 26: a run stopped after it wrote (review's accept, check --update) lists what it wrote;
// the process sweep finds the run's processes by session TMPDIR, process group and descendance.

function fakeHost(): { host: InterruptHost; send(signal: StopSignal): void; exits: number[] } {
  let handler: (s: StopSignal) => void = () => undefined;
  const exits: number[] = [];
  const host: InterruptHost = { env: {}, onSignal: (h) => ((handler = h), () => (handler = () => undefined)), exit: (code) => void exits.push(code) };
  return { host, exits, send: (s) => handler(s) };
}

describe("a stopped run lists what it wrote", () => {
  it("Ctrl-C after an accept: exit 130 and the git add of the files already written", async () => {
    const { host, exits, send } = fakeHost();
    let err = "";
    const cwd = "/project";
    const code = await runInterruptible(
      (_signal, wrote) =>
        new Promise<number>(() => {
          wrote(path.join(cwd, "lanes/echo/turn.json"));
          wrote(path.join(cwd, "recordings/echo/turn/bridge→runtime.current.ndjson"));
          send("SIGINT");
        }),
      { host, tempDir: false, graceful: false, err: (t) => void (err += t), cwd },
    );
    expect(code).toBe(130);
    expect(exits).toEqual([130]);
    expect(err).toBe(
      "parity: interrupted (SIGINT): stopped; temp files removed\nparity: written before the stop (complete files): git add lanes/echo/turn.json 'recordings/echo/turn/bridge→runtime.current.ndjson'\n",
    );
  });

  it("SIGHUP (the parent gone) is 129; nothing written, no second line", async () => {
    const { host, send } = fakeHost();
    let err = "";
    const code = await runInterruptible(() => new Promise<number>(() => send("SIGHUP")), { host, tempDir: false, graceful: false, err: (t) => void (err += t) });
    expect(code).toBe(129);
    expect(err).toBe("parity: interrupted (SIGHUP): stopped; temp files removed\n");
    expect(writtenLine([], "/x")).toBe("");
  });
});

describe("the process sweep", () => {
  const self = { pid: 100, pgid: 100, ownsProcess: true };
  const rows = [
    { pid: 1, ppid: 0, pgid: 1, state: "S" },
    { pid: 100, ppid: 1, pgid: 100, state: "S" }, // parity
    { pid: 101, ppid: 100, pgid: 100, state: "S" }, // its bridge, same group
    { pid: 102, ppid: 101, pgid: 102, state: "S" }, // the relay sh, its own group
    { pid: 103, ppid: 1, pgid: 102, state: "S" }, // a cat re-parented to init, still in the relay's group
    { pid: 104, ppid: 1, pgid: 104, state: "S" }, // an orphan carrying the session TMPDIR
    { pid: 105, ppid: 100, pgid: 100, state: "Z" }, // a zombie: already dead
    { pid: 200, ppid: 1, pgid: 100, state: "S" }, // another member of the shell pipeline: same group as parity, not ours
  ];
  it("ends descendants, their groups and marked orphans; never parity's own group, never zombies", () => {
    expect(strayPids(rows, self, (pid) => pid === 104)).toEqual([101, 102, 103, 104]);
  });
  it("in a test worker (not owning the process) only marked processes and their groups", () => {
    expect(strayPids(rows, { ...self, ownsProcess: false }, (pid) => pid === 102)).toEqual([102, 103]);
  });
  it("parses /proc stat lines with spaces and parentheses in the name, and finds the session TMPDIR in environ", () => {
    expect(parseStat("4242 (node (x) y) S 4241 4240 4240 0 -1")).toEqual({ pid: 4242, state: "S", ppid: 4241, pgid: 4240 });
    expect(environHasSession("A=1\0TMPDIR=/tmp/parity-ab/rec-1/tmp\0B=2", "/tmp/parity-ab")).toBe(true);
    expect(environHasSession("TMPDIR=/tmp/parity-ab\0", "/tmp/parity-ab")).toBe(true);
    expect(environHasSession("TMPDIR=/tmp/parity-abc\0", "/tmp/parity-ab")).toBe(false);
  });
});

describe("the process sweep reads no environment of a process older than the run's", () => {
  it("an older process is never asked about its TMPDIR", () => {
    const asked: number[] = [];
    const rows = [
      { pid: 10, ppid: 1, pgid: 10, state: "S", start: 50 },
      { pid: 11, ppid: 1, pgid: 11, state: "S", start: 150 },
    ];
    strayPids(rows, { pid: 100, pgid: 100, ownsProcess: false, start: 100 }, (pid) => (asked.push(pid), false));
    expect(asked).toEqual([11]);
  });
});
