/**
 * An agent child process for a bridge run in process (`startInProcessBridge({ spawn })`): its
 * pipes are the streams the test gives, and `kill` ends it as a SIGTERM would, one macrotask later
 * (`exit`, then `close`). What the agent says and when is the test's: it writes the stdout stream.
 */
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";

/** A child whose stdin, stdout and stderr are `pipes`; `pid` undefined, as for a child not yet spawned. */
export function pipedChild(pipes: { stdin: Writable; stdout: Readable; stderr: Readable }): ChildProcess {
  const child = Object.assign(new EventEmitter(), {
    ...pipes,
    pid: undefined,
    kill: () => {
      setImmediate(() => {
        child.emit("exit", null, "SIGTERM");
        child.emit("close", null, "SIGTERM");
      });
      return true;
    },
  });
  return child as unknown as ChildProcess;
}
