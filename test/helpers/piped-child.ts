/**
 * An agent child process for a bridge run in process (`startInProcessBridge({ spawn })`): its
 * pipes are the streams the test gives, and `kill` ends it as a SIGTERM would, one macrotask later
 * (`exit`, then `close`). What the agent says and when is the test's: it writes the stdout stream.
 */
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { Writable, type Readable } from "node:stream";

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

/**
 * An agent's stdin as a test plays it: each NDJSON line the bridge writes is parsed and handed to
 * `onLine` synchronously, in write order (a line split across writes waits for its newline).
 * `onEnd`, when given, runs once the bridge closes the stream.
 */
export function lineReadingStdin<T>(onLine: (message: T) => void, onEnd?: () => void): Writable {
  let buffered = "";
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      buffered += chunk.toString("utf8");
      for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
        const message = JSON.parse(buffered.slice(0, end)) as T;
        buffered = buffered.slice(end + 1);
        onLine(message);
      }
      done();
    },
    final(done) {
      done();
      onEnd?.();
    },
  });
}
