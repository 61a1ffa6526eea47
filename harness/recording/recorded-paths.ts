/** The fixed paths temp directories are rewritten to in a recording. */
export const RECORDED_PATHS = { workspace: "/tmp/parity-workspace", home: "/home/user", root: "/tmp/parity-record", repo: "/repo" } as const;

/**
 * What the recording machine's `PATH` (the one an agent inherits) is recorded as: a launch spec's
 * `env.PATH` keeps the entries a profile put in front of it (already rewritten to `/repo/…`) and
 * names the rest by this placeholder, so a recording names no directory of the machine it was made on.
 */
export const RECORDED_INHERITED_PATH = "$PATH";

/** What the loopback model endpoint's origin (`http://127.0.0.1:<port>`, a new port every run) is recorded as. */
export const RECORDED_MODEL_ORIGIN = "http://127.0.0.1:0";
