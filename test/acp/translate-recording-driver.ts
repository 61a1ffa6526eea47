/**
 * Test driver: replays the ACP lanes of a recording through the translator the way the bridge
 * would call it (one translator per agent process; turn start at each written `session/prompt`,
 * turn end at its result; `session/load` replay fed as restore updates; an `fs/read_text_file`'s
 * claimant taken when it arrives and the recorded answer given to it). Default root: the real
 * acp-cursor recordings; the committed acp-opencode ones are at {@link OPENCODE_RECORDINGS}.
 *
 * Shared recordings are read BY PATH from ../shared at test time; nothing of them is copied here.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sharedInputPresent } from "../helpers/shared-input.js";
import type { ThreadDelta } from "../../stack/protocol/thread-delta.js";
import { selectAcpDialect } from "../../stack/acp/dialects/index.js";
import type { AcpDialect } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import type { AcpPermissionSubject, AcpTranslator } from "../../stack/acp/translate/index.js";

/** Repository root (two levels above this file). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Root of the real acp-cursor recordings. */
export const CURSOR_RECORDINGS = path.resolve(REPO_ROOT, "../shared/recordings/acp-cursor");
/** Root of this project's committed acp-opencode recordings (recorded live from opencode). */
export const OPENCODE_RECORDINGS = path.resolve(REPO_ROOT, "recordings/acp-opencode");

/** One parsed lane entry. */
export interface LaneLine {
  run: number;
  seq: number;
  dir: string;
  message: Record<string, any>;
}

/** True when the shared recordings are present on this machine, and always under `CI=true` (see {@link sharedInputPresent}). */
export function haveCursorRecordings(): boolean {
  return sharedInputPresent(CURSOR_RECORDINGS);
}

/** Reads one lane file of a cell under `root`; a missing lane reads as empty. */
export function readLane(cell: string, file: string, root: string = CURSOR_RECORDINGS): LaneLine[] {
  const fullPath = path.join(root, cell, file);
  if (!existsSync(fullPath)) return [];
  return readFileSync(fullPath, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const entry = JSON.parse(line) as { run?: number; seq: number; dir: string; line: string };
      return { run: entry.run ?? 0, seq: entry.seq, dir: entry.dir, message: JSON.parse(entry.line) };
    });
}

/** The manifest of a cell under `root`. */
export function readManifest(cell: string, root: string = CURSOR_RECORDINGS): { threadId: string | null; cell: string } {
  return JSON.parse(readFileSync(path.join(root, cell, "manifest.json"), "utf8"));
}

/** Every `session/update` `update` object of a cell's provider lane (under `root`), in order. */
export function providerUpdates(cell: string, root: string = CURSOR_RECORDINGS): Record<string, any>[] {
  return readLane(cell, "provider→bridge.ndjson", root)
    .filter((line) => line.message.method === "session/update")
    .map((line) => line.message.params.update);
}

/** The recorded deltas of the reference bridge's current lane, flattened in order. */
export function recordedDeltas(cell: string): ThreadDelta[] {
  return readLane(cell, "bridge→runtime.current.ndjson")
    .filter((line) => line.message.method === "thread/delta")
    .flatMap((line) => line.message.params.deltas as ThreadDelta[]);
}

/** What driving a cell produced. */
export interface DriveResult {
  deltas: ThreadDelta[];
  /** The same deltas grouped per translator call: one `thread/delta` notification each (never empty). */
  batches: ThreadDelta[][];
  permissionSubjects: { toolCall: unknown; subject: AcpPermissionSubject }[];
  vendorRequests: { method: string; params: unknown; outcome: ReturnType<NonNullable<AcpDialect["handleClientRequest"]>> }[];
  translators: number;
}

/**
 * Drives a cell's ACP lanes (under `root`, default the real acp-cursor recordings) through fresh
 * translators (clock = each entry's seq). The default dialect is chosen as the bridge would:
 * `basename("cursor-agent")` → cursor.
 */
export function driveCell(cell: string, dialect: AcpDialect = selectAcpDialect({ command: "cursor-agent" }), root: string = CURSOR_RECORDINGS): DriveResult {
  const threadId = readManifest(cell, root).threadId ?? "_process";
  const lines = [...readLane(cell, "provider→bridge.ndjson", root), ...readLane(cell, "bridge→provider.ndjson", root)].sort((a, b) => a.run - b.run || a.seq - b.seq);
  const result: DriveResult = { deltas: [], batches: [], permissionSubjects: [], vendorRequests: [], translators: 0 };
  const emit = (...deltas: ThreadDelta[]): void => {
    if (deltas.length === 0) return;
    result.deltas.push(...deltas);
    result.batches.push(deltas);
  };
  let translator: AcpTranslator | undefined;
  let clock = 0;
  const pending = new Map<number | string, string>();
  let loading = false;
  // The agent's fs/read_text_file requests by id: the read call each belongs to, taken when it arrived (as the bridge does).
  const fsReads = new Map<number | string, string | undefined>();

  const need = (): AcpTranslator => {
    if (translator === undefined) throw new Error(`${cell}: ACP traffic before initialize`);
    return translator;
  };

  for (const line of lines) {
    clock = line.seq;
    const message = line.message;
    if (line.dir === "bridge→provider" && message.method === undefined && fsReads.has(message.id)) {
      if (typeof message.result?.content === "string") need().fsRead(message.result.content, fsReads.get(message.id));
      fsReads.delete(message.id);
      continue;
    }
    if (line.dir === "bridge→provider") {
      if (message.method === "initialize") {
        translator = createAcpTranslator({ threadId, dialect, now: () => clock });
        result.translators += 1;
      }
      if (message.id !== undefined && typeof message.method === "string") pending.set(message.id, message.method);
      if (message.method === "session/load") loading = true;
      if (message.method === "session/prompt") emit(...need().turnStarted());
      continue;
    }
    if (typeof message.method === "string" && message.id === undefined) {
      if (message.method !== "session/update") continue;
      if (loading) need().restoreUpdate(message.params.update);
      else emit(...need().update(message.params.update));
      continue;
    }
    if (typeof message.method === "string") {
      if (message.method === "fs/read_text_file") {
        fsReads.set(message.id, need().readClaimant(message.params.path));
      } else if (message.method === "session/request_permission") {
        result.permissionSubjects.push({ toolCall: message.params.toolCall, subject: need().permissionSubject(message.params.toolCall) });
      } else {
        const outcome = dialect.handleClientRequest?.(message.method, message.params);
        result.vendorRequests.push({ method: message.method, params: message.params, outcome });
        if (outcome?.delegation) emit(...need().delegationReport(outcome.delegation));
      }
      continue;
    }
    const method = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) continue;
    if (method === "session/new") emit(...need().sessionSetup(message.result, { restored: false }));
    if (method === "session/load") {
      loading = false;
      emit(...need().sessionSetup(message.result, { restored: true }));
      emit(...need().restoreSettled());
    }
    if (method === "session/prompt") {
      emit(...need().promptResult(message.result));
      emit(...need().turnCompleted(message.result.stopReason));
    }
  }
  return result;
}
