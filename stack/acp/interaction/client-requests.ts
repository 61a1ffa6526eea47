/**
 * Agent→client requests (spec 20 §2.5, spec 30 §1.1, §6.3): `session/request_permission`,
 * `fs/read_text_file`, `fs/write_text_file`, `elicitation/create`, and the dialect's vendor
 * methods. Anything else → -32601 `Unsupported ACP client method "<m>"`. The connection answers
 * each request exactly once with what this module resolves or throws.
 */
import { takeEditBaseline } from "./edit-baselines.js";
import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { AcpBridgeRuntime } from "../state/runtime.js";
import { BRIDGE_JSON_RPC_ERRORS } from "../../protocol/errors.js";
import { ACP_RESOURCE_NOT_FOUND, AcpClientReplyError } from "../connection/connection.js";
import { isInsideWorkspace, resolveAgentPath } from "./fs-scope.js";
import { handlePermissionRequest } from "./approvals.js";
import { handleElicitation } from "./elicitation.js";
import type { ClientRequestPorts } from "./runtime-interaction.js";
import { emitDeltas, type AcpSession } from "../state/session.js";
import { writeTextInPlace } from "./write-in-place.js";

/** The agent→client methods every session accepts (spec 30 §1.1). */
export const CORE_CLIENT_METHODS = ["session/request_permission", "fs/read_text_file", "fs/write_text_file", "elicitation/create"] as const;

function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== "string" || value.length === 0) throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.invalidParams, `Invalid ${method} params: ${key} must be a non-empty string`);
  return value;
}

/** The session's workspace roots: its cwd and the write roots (spec 20 §2.1). */
function workspaceRoots(session: AcpSession): string[] {
  return [session.settings.cwd, ...session.settings.writeRoots];
}

/**
 * `fs/read_text_file {path, line?, limit?}` → `{content}`; `line` 1-based, `limit` a line count.
 * With `fsScope: "workspace"` a path outside the workspace roots is refused (-32000
 * `File reads outside the workspace are denied: <path>`) before anything is read.
 */
async function readTextFile(rt: AcpBridgeRuntime, session: AcpSession, params: Record<string, unknown>): Promise<{ content: string }> {
  const rawPath = requireString(params, "path", "fs/read_text_file");
  const path = resolveAgentPath(session.settings.cwd, rawPath);
  // Which read call this read is decided now, in the agent's line order (the awaits below let later lines through).
  const claimant = session.translator.readClaimant(path);
  if (rt.options.fsScope === "workspace" && !(await isInsideWorkspace(path, workspaceRoots(session)))) {
    throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `File reads outside the workspace are denied: ${rawPath}`);
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    // A file that is not there is ACP's "Resource not found" (-32002, `data.uri`), which an agent can
    // tell from a failure (gemini then takes the write as a new file); Node's message is kept, since
    // agents also match "ENOENT" in it. Any other failure stays an internal error.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new AcpClientReplyError(ACP_RESOURCE_NOT_FOUND, (error as Error).message, { uri: path });
    throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.internalError, (error as Error).message);
  }
  const line = typeof params.line === "number" && params.line >= 1 ? Math.floor(params.line) : undefined;
  const limit = typeof params.limit === "number" && params.limit >= 0 ? Math.floor(params.limit) : undefined;
  let content = text;
  if (line !== undefined || limit !== undefined) {
    const lines = text.split("\n");
    const start = (line ?? 1) - 1;
    content = lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
  }
  // The read call this answer belongs to shows these bytes as what it read (translate/read-bytes.ts).
  session.translator.fsRead(content, claimant);
  return { content };
}

/**
 * `fs/write_text_file {path, content}` (spec 20 §2.5, spec 30 §6.3): in accept-edits the path
 * must lie in a write root (-32000, the reference's message); with `fsScope: "workspace"` (any
 * mode) it must lie in the workspace roots, symlinks followed (-32000 `File writes outside the
 * workspace are denied: <path>`). The old text is the baseline taken when the edit was announced
 * (edit-baselines.ts), else read now (missing → `add`); then parents are created,
 * the file written in place (never truncated first: write-in-place.ts), a `fileChange` close
 * emitted, and `{}` returned. A refusal writes nothing.
 */
async function writeTextFile(rt: AcpBridgeRuntime, session: AcpSession, params: Record<string, unknown>): Promise<Record<string, never>> {
  const rawPath = requireString(params, "path", "fs/write_text_file");
  if (typeof params.content !== "string") throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.invalidParams, "Invalid fs/write_text_file params: content must be a string");
  const path = resolveAgentPath(session.settings.cwd, rawPath);
  // Which edit call made this write is decided now, in the agent's line order: the awaits below
  // let later lines through, and the call's `completed` update may settle it before the write ends.
  const claimant = session.translator.writeClaimant(path);
  if (session.settings.permissionMode === "accept-edits" && !(await isInsideWorkspace(path, session.settings.writeRoots))) {
    throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `File writes outside the workspace are denied by BB's accept-edits permission mode: ${rawPath}`);
  }
  if (rt.options.fsScope === "workspace" && !(await isInsideWorkspace(path, workspaceRoots(session)))) {
    throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.bridgeError, `File writes outside the workspace are denied: ${rawPath}`);
  }
  // The file as the agent announced the edit, else as it is now (see edit-baselines.ts).
  let oldText = takeEditBaseline(session.editBaselines, path);
  if (oldText === undefined) {
    try {
      oldText = await readFile(path, "utf8");
    } catch {
      oldText = null;
    }
  }
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeTextInPlace(path, params.content, rt.options.openFileForWrite);
  } catch (error) {
    throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.internalError, (error as Error).message);
  }
  emitDeltas(rt.ctx.io, session, session.translator.fsWrite({ path, oldText, newText: params.content }, claimant));
  return {};
}

/**
 * Answers one agent→client request for `session` (see module doc); `ports` reach the session's lifecycle (an approval or question marks agent activity).
 * @throws AcpClientReplyError for every error reply (the connection turns it into `error`).
 */
export async function handleClientRequest(rt: AcpBridgeRuntime, session: AcpSession, method: string, params: unknown, ports: ClientRequestPorts): Promise<unknown> {
  const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
  switch (method) {
    case "session/request_permission":
      return handlePermissionRequest(rt, session, params, ports);
    case "fs/read_text_file":
      return readTextFile(rt, session, p);
    case "fs/write_text_file":
      return writeTextFile(rt, session, p);
    case "elicitation/create":
      return handleElicitation(rt, session, params, ports);
    default:
      break;
  }
  const dialect = session.dialect;
  if (dialect.clientRequestMethods?.includes(method) && dialect.handleClientRequest) {
    const outcome = dialect.handleClientRequest(method, params);
    if (outcome !== undefined) {
      if (outcome.delegation) emitDeltas(rt.ctx.io, session, session.translator.delegationReport(outcome.delegation));
      return outcome.result;
    }
  }
  // Refused, and counted: the request reaches the thread as `provider/unhandled` (issue 41).
  emitDeltas(rt.ctx.io, session, session.translator.unhandled(method, params));
  throw new AcpClientReplyError(BRIDGE_JSON_RPC_ERRORS.methodNotFound, `Unsupported ACP client method "${method}"`);
}
