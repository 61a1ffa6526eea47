/**
 * The zod-free half of the private channel's frame protocol (see `child-frames.ts` for the
 * schemas): what the replay child itself needs. The child starts once per agent process a
 * bridge spawns, so it avoids loading zod (tens of ms of CPU per start); it checks the
 * two frame shapes it accepts by hand.
 */

/** The child's argv flag naming the socket path (`--connect <path>`). */
export const CONNECT_FLAG = "--connect";

/** The child's argv flag giving its bound on one stdin line in bytes (`--max-line-bytes <n>`; default 64 MiB). */
export const MAX_LINE_FLAG = "--max-line-bytes";

/** Serializes one frame (`{t, …}`) as a newline-terminated line. */
export function encodeFrame(frame: { t: string; [key: string]: unknown }): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * Reads a scheduler → child frame: `{t:"line", line:string}` or `{t:"end"}`; anything else
 * (including text that is not JSON) is `undefined`.
 */
export function decodeSchedulerFrame(text: string): { t: "line"; line: string } | { t: "end" } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const frame = value as { t?: unknown; line?: unknown } | null;
  if (frame?.t === "end") return { t: "end" };
  if (frame?.t === "line" && typeof frame.line === "string") return { t: "line", line: frame.line };
  return undefined;
}
