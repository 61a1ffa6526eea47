/**
 * The stdout guard (spec 02 §2: only protocol lines may reach stdout): once installed, anything written through `process.stdout.write` (console.log
 * included) goes to stderr, and only the protocol writer reaches the real stdout.
 */

/** The guard's handle. */
export interface StdoutGuard {
  /** Writes one protocol line plus `\n` to the real stdout. Throws on an embedded newline. */
  writeProtocolLine(line: string): void;
  /** Puts the original `stdout.write` back. */
  restore(): void;
}

type Write = NodeJS.WriteStream["write"];

/**
 * Redirects `stdout.write` to `stderr` and returns the writer that still reaches stdout.
 * The protocol writer keeps the stream's original `write`, which writes to fd 1 (and is
 * synchronous for pipes on Linux), so protocol lines and their order are unchanged. A
 * closed stdout (EPIPE) is swallowed: the runtime is gone and stdin will close next.
 */
export function installStdoutGuard(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): StdoutGuard {
  const originalWrite = stdout.write;
  const realWrite = originalWrite.bind(stdout) as (chunk: string) => boolean;
  const redirected = function (this: unknown, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    return (stderr.write as (...args: unknown[]) => boolean)(chunk, encoding, callback);
  } as Write;
  stdout.write = redirected;
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") stderr.write(`bridge-kit: stdout error: ${error.message}\n`);
  };
  stdout.on("error", onError);
  return {
    writeProtocolLine(line) {
      if (line.includes("\n")) throw new TypeError("a protocol line must not contain a newline");
      realWrite(`${line}\n`);
    },
    restore() {
      stdout.write = originalWrite;
      stdout.off("error", onError);
    },
  };
}
