/**
 * The `/proc` judge sees a run that its run counts miss (harness/replay/idleness/README.md, issue 25):
 * a thread read asleep by the first look, put on a CPU before the look read its run count (so the
 * count already holds that run), and asleep again before the second look, has one state and one
 * count in both looks. A line it wrote after this process drained its input would be unread when
 * the tree is judged idle. The kernel adds a run's time to the thread's run time (`schedstat`'s
 * first field) when the thread leaves the CPU, so the second look sees it moved.
 *
 * `/proc` is scripted: the run happens between the first look's read of the thread's `stat` and of
 * its `schedstat`, as a timer firing there would, so nothing depends on the clock.
 */
import { describe, expect, it } from "vitest";
import { createProcJudge } from "../../harness/replay/idleness/index.js";
import { createTreeSampler, type ProcSource } from "../../harness/runtime/process-tree.js";

const PID = 4242;
/** `epoll_wait` (x86-64 number 232) with no timeout: a loop waiting for input only. */
const WAITING = "232 0x3 0x7ffd 0x400 0xffffffff 0x0 0x0 0x7ffd 0x7f00";
const asleep = `${PID} (node) S 1 ${PID} ${PID} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0`;

/**
 * A one-thread tree whose `schedstat` reads `before` until the thread's `stat` has been read
 * `runAfterStatReads` times, and `after` from then on (the run began just after that read).
 */
function scriptedProc(before: string, after: string, runAfterStatReads: number): ProcSource {
  let statReads = 0;
  return {
    read(file) {
      if (file.endsWith("/syscall")) return WAITING;
      if (file.endsWith("/stat")) {
        statReads += 1;
        return asleep;
      }
      if (file.endsWith("/schedstat")) return statReads >= runAfterStatReads ? after : before;
      if (file.endsWith("/children")) return "";
      return undefined;
    },
    list: (dir) => (dir === `/proc/${PID}/task` ? [String(PID)] : undefined),
    close: () => undefined,
  };
}

const context = { drain: () => Promise.resolve(false), waitForEvent: () => Promise.resolve(false), pending: () => false, remainingMs: 60_000 };

describe("the /proc judge and a run its run counts miss", () => {
  it("judges a thread busy when its run time moved between the looks though its count did not", async () => {
    // First look: stat (S), then schedstat already counting the run (count 8, time 5 000 ns);
    // second look: the run is over, its time added (7 000 ns), the count still 8.
    const judge = createProcJudge(createTreeSampler(PID, { proc: scriptedProc("5000 10 8", "7000 10 8", 2), arch: "x64" }), 10_000);
    expect(await judge.look(context)).toBe("busy");
    judge.close();
  });

  it("judges a thread that did not run between the looks idle", async () => {
    const judge = createProcJudge(createTreeSampler(PID, { proc: scriptedProc("5000 10 8", "5000 10 8", 1), arch: "x64" }), 10_000);
    expect(await judge.look(context)).toBe("idle");
    judge.close();
  });
});
