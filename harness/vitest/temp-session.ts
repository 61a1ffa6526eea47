/**
 * The helper's temp session: while any `checkCell` runs in a test process, that process's
 * `TMPDIR` is one directory of its own, `<TMPDIR>/parity-vitest-XXXXXX`, so every temp dir of
 * the replays (the replay's `pr-*`, the lanes spill, each bridge's own `bb-bridge-*`, inherited
 * through the environment) lands inside it — as the CLI does for its runs (harness/cli/interrupt.ts).
 * It is removed when the last call ends, and, synchronously, when the process exits or is sent
 * SIGTERM (how vitest ends a worker): a test that times out while its cell still replays (vitest
 * moves on and ends the worker before the call's own cleanup runs) or a bridge holding a long
 * timer leaves nothing in the user's TMPDIR (issue 42).
 *
 * Process-wide by nature (`process.env.TMPDIR` and the exit hook are the process's): the one
 * record of it is kept on `process` under a registered symbol, so two copies of this module (two
 * bundles) share it, and concurrent calls share one session.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

interface Session {
  dir: string;
  /** `TMPDIR` as it was before the session (undefined: unset). */
  before: string | undefined;
  /** Calls running. */
  users: number;
  /** Takes the SIGTERM listener off again (once the session is gone). */
  stopListening?: () => void;
}

const KEY = Symbol.for("bridge-parity.vitest.temp-session");
type Holder = { [KEY]?: Session };

/** Removes the session directory now (synchronous: also from an exit handler). */
function remove(session: Session): void {
  rmSync(session.dir, { recursive: true, force: true });
}

/**
 * Ends every process descended from this one, at once (SIGKILL), where `/proc` tells who they
 * are (Linux); elsewhere it does nothing. Called only as the process ends with a session still
 * open: a bridge left replaying would write into the session again after it is removed.
 */
function killDescendants(): void {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  const children = new Map<number, number[]>();
  for (const name of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const queue = [...(children.get(process.pid) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    queue.push(...(children.get(pid) ?? []));
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** The process ends with the session open: its bridges first, then its files. */
function endAbandoned(session: Session): void {
  if (session.users > 0) killDescendants();
  remove(session);
}

/**
 * Runs `work` inside the process's temp session (see the module comment): made on the first
 * call, `TMPDIR` pointed at it, and on the last call's end `TMPDIR` restored and the directory
 * removed. Its exit hook removes it if the process ends first.
 */
export async function withTempSession<T>(work: () => Promise<T>): Promise<T> {
  const holder = process as unknown as Holder;
  let session = holder[KEY];
  if (session === undefined) {
    const before = process.env.TMPDIR;
    session = { dir: mkdtempSync(path.join(os.tmpdir(), "parity-vitest-")), before, users: 0 };
    holder[KEY] = session;
    const made = session;
    process.once("exit", () => endAbandoned(made));
    // vitest ends a worker with SIGTERM (its forks pool), which runs no exit handler: remove the
    // session then, and end the process as SIGTERM would have unless someone else listens for it.
    const onTerm = () => {
      endAbandoned(made);
      if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM");
    };
    process.once("SIGTERM", onTerm);
    made.stopListening = () => process.removeListener("SIGTERM", onTerm);
    process.env.TMPDIR = session.dir;
  }
  session.users += 1;
  try {
    return await work();
  } finally {
    session.users -= 1;
    if (session.users === 0 && holder[KEY] === session) {
      delete holder[KEY];
      if (session.before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = session.before;
      session.stopListening?.();
      remove(session);
    }
  }
}
