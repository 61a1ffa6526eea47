/**
 * Whether a CLI run may colour its output, by the conventions mature Node CLIs follow
 * (Node's own `FORCE_COLOR`/`NO_COLOR` handling, chalk's supports-color):
 *
 * - `FORCE_COLOR` wins when set: `0` or `false` turns colour off, any other value (`1`, `2`,
 *   `3`, `true`, or empty) turns it on even when stdout is not a TTY (CI logs);
 * - otherwise a non-empty `NO_COLOR` turns it off;
 * - otherwise colour is on only for a TTY whose `TERM` is not `dumb`.
 *
 * Pure: the environment and the TTY state are passed in.
 */
export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === "0" || force.toLowerCase() === "false");
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return isTTY && env.TERM !== "dumb";
}
