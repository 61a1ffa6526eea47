/**
 * Cursor's MCP approval (spec 20 §2.7, unchanged in spec 30 §1.3): Cursor gates client-supplied MCP
 * servers behind a per-project approvals file, with no ACP round trip. For a `cursor-agent` session
 * with the `bb-bridge` server the bridge appends the server's approval id (if absent) under a lock
 * and removes it at session end, only when it added it.
 *
 * File: `<CURSOR_DATA_DIR | $HOME/.cursor>/projects/<slug>/mcp-approvals.json` (a JSON array of ids),
 * slug = project root with non-alphanumerics → `-` (runs collapsed, edges trimmed); root =
 * `git rev-parse --show-toplevel` in cwd, else the resolved cwd. Id = `bb-bridge-` + the first 16 hex
 * of SHA-256 of JSON `{path: root, server:{command, args, env:{NAME:value}}}`.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rmdir, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { createRealScheduler, delay, killAfter, type Scheduler } from "../../bridge-kit/scheduler.js";
import { DYNAMIC_TOOL_SERVER_NAME } from "../dynamic-tools/protocol.js";

/** How long to wait for the approvals lock, in ms. */
export const CURSOR_APPROVAL_LOCK_TIMEOUT_MS = 5_000;
/** A lock older than this is stale and broken, in ms. */
export const CURSOR_APPROVAL_LOCK_STALE_MS = 30_000;
/** Retry period while the lock is held by someone else, in ms. */
const LOCK_RETRY_MS = 50;

/** An ACP stdio MCP server entry (`env` as `{name, value}` pairs). */
export interface AcpMcpServerEntry {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/** True when the agent command is Cursor's (`cursor-agent`, any case, `.exe/.cmd/.bat` ignored). */
export function isCursorAgentCommand(command: string): boolean {
  return (
    basename(command)
      .replace(/\.(exe|cmd|bat)$/i, "")
      .toLowerCase() === "cursor-agent"
  );
}

/** The project slug of a root path. */
export function cursorProjectSlug(root: string): string {
  return root.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

/** The approval id of `server` in project `root`. */
export function cursorMcpApprovalId(root: string, server: AcpMcpServerEntry): string {
  const env = Object.fromEntries(server.env.map((pair) => [pair.name, pair.value]));
  const digest = createHash("sha256")
    .update(JSON.stringify({ path: root, server: { command: server.command, args: server.args, env } }))
    .digest("hex");
  return `${DYNAMIC_TOOL_SERVER_NAME}-${digest.slice(0, 16)}`;
}

/** Longest wait for `git rev-parse`, ms. */
const PROJECT_ROOT_TIMEOUT_MS = 5_000;

/**
 * `git rev-parse --show-toplevel` in `cwd`, else the resolved cwd; git gets
 * {@link PROJECT_ROOT_TIMEOUT_MS} on `scheduler` (default the real one). Never rejects.
 */
export function cursorProjectRoot(cwd: string, scheduler: Scheduler = createRealScheduler()): Promise<string> {
  return new Promise((done) => {
    const child = execFile("git", ["rev-parse", "--show-toplevel"], { cwd }, (error, stdout) => {
      stopTimer();
      const root = String(stdout).trim();
      done(error || !root ? resolve(cwd) : root);
    });
    const stopTimer = killAfter(scheduler, child, PROJECT_ROOT_TIMEOUT_MS);
  });
}

// Wall-clock on purpose (the real scheduler's `now` is epoch milliseconds): the lock and its
// staleness (the lock directory's mtime) are shared with other processes.
async function withLock<T>(file: string, scheduler: Scheduler, body: () => Promise<T>): Promise<T> {
  const lock = `${file}.bb-lock`;
  const deadline = scheduler.now() + CURSOR_APPROVAL_LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(lock).then(
        (s) => scheduler.now() - s.mtimeMs,
        () => 0,
      );
      if (age > CURSOR_APPROVAL_LOCK_STALE_MS) {
        await rmdir(lock).catch(() => undefined);
        continue;
      }
      if (scheduler.now() > deadline) throw new Error(`timed out waiting for the Cursor MCP approvals lock ${lock}`, { cause: error });
      await delay(scheduler, LOCK_RETRY_MS);
    }
  }
  try {
    return await body();
  } finally {
    await rmdir(lock).catch(() => undefined);
  }
}

async function readIds(file: string): Promise<string[]> {
  try {
    const value = JSON.parse(await readFile(file, "utf8")) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

async function writeIds(file: string, ids: string[]): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(ids, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

/** An installed approval; `revoke` removes it if this bridge added it (idempotent, never rejects). */
export interface CursorMcpApproval {
  readonly file: string;
  readonly id: string;
  readonly added: boolean;
  revoke(): Promise<void>;
}

/**
 * Approves `server` for Cursor in the project of `cwd` (see module doc). `env` supplies
 * `CURSOR_DATA_DIR`/`HOME`. Returns null when not applicable (not Cursor, not `bb-bridge`).
 * @throws when the approvals file cannot be locked or written.
 */
export async function installCursorMcpApproval(input: {
  agentCommand: string;
  cwd: string;
  server: AcpMcpServerEntry;
  env: Readonly<Record<string, string | undefined>>;
  projectRoot?: (cwd: string) => Promise<string>;
  /** The lock's clock and retry waits; default the real scheduler. */
  scheduler?: Scheduler;
}): Promise<CursorMcpApproval | null> {
  const scheduler = input.scheduler ?? createRealScheduler();
  if (!isCursorAgentCommand(input.agentCommand) || input.server.name !== DYNAMIC_TOOL_SERVER_NAME) return null;
  const root = await (input.projectRoot ?? ((cwd: string) => cursorProjectRoot(cwd, scheduler)))(input.cwd);
  const dataDir = input.env.CURSOR_DATA_DIR || join(input.env.HOME ?? "", ".cursor");
  const file = join(dataDir, "projects", cursorProjectSlug(root), "mcp-approvals.json");
  const id = cursorMcpApprovalId(root, input.server);
  await mkdir(dirname(file), { recursive: true });
  const added = await withLock(file, scheduler, async () => {
    const ids = await readIds(file);
    if (ids.includes(id)) return false;
    await writeIds(file, [...ids, id]);
    return true;
  });
  let revoked = false;
  return {
    file,
    id,
    added,
    async revoke() {
      if (!added || revoked) return;
      revoked = true;
      await withLock(file, scheduler, async () => {
        const ids = await readIds(file);
        if (ids.includes(id))
          await writeIds(
            file,
            ids.filter((v) => v !== id),
          );
      }).catch(() => undefined);
    },
  };
}
