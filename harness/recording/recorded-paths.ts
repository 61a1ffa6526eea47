/** The fixed paths temp directories are rewritten to in a recording. */
export const RECORDED_PATHS = { workspace: "/tmp/parity-workspace", home: "/home/user", root: "/tmp/parity-record", repo: "/repo" } as const;
