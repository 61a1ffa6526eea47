import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 41 build point 3: every bridge counts what it drops. A message kind it does not translate
// and a vendor request it refuses reach the thread as `provider/unhandled`, the kind named in
// `rawType`. Real recordings with one line injected (the seqs after it moved up by one in every
// lane), replayed through today's bridge; and the real unknown kinds the committed claude-code
// recordings carry.

let work = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-unhandled-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Entry {
  ts: number;
  run: number;
  seq: number;
  dir: string;
  line: string;
}

let n = 0;
/**
 * A copy of `recordings/<provider>/<cell>` with `message` injected into its provider→bridge lane
 * just before the first agent line `before` matches (same run, its seq; every later seq + 1).
 */
async function injected(provider: string, cell: string, before: (line: string) => boolean, message: unknown): Promise<string> {
  n += 1;
  const dir = path.join(work, `${n}`, provider, cell);
  await cp(path.join(repoRoot, "recordings", provider, cell), dir, { recursive: true });
  const lanes = (await readdir(dir)).filter((f) => f.endsWith(".ndjson"));
  const read = async (file: string) =>
    (await readFile(path.join(dir, file), "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Entry);
  const agent = await read("provider→bridge.ndjson");
  const at = agent.find((e) => before(e.line));
  if (at === undefined) throw new Error(`no agent line to inject before in ${provider}/${cell}`);
  for (const file of lanes) {
    const entries = (await read(file)).map((e) => (e.run === at.run && e.seq >= at.seq ? { ...e, seq: e.seq + 1 } : e));
    if (file === "provider→bridge.ndjson")
      entries.splice(
        entries.findIndex((e) => e.run === at.run && e.seq === at.seq + 1),
        0,
        { ...at, line: JSON.stringify(message) },
      );
    await writeFile(path.join(dir, file), entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  }
  const manifestFile = path.join(dir, "manifest.json");
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { lines: Record<string, number> };
  manifest.lines["provider→bridge"] = agent.length + 1;
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** The rawTypes of the `provider/unhandled` events of a replay's live lane, and its unhandled count. */
async function replayed(dir: string): Promise<{ rawTypes: string[]; unhandled: number; ok: boolean }> {
  const r = await runCli(["replay", dir, "--json"]);
  if (r.out === "") throw new Error(r.err);
  const result = JSON.parse(r.out) as { ok: boolean; unhandled: number; events: Array<{ type: string; rawType?: string }> };
  return { rawTypes: result.events.filter((e) => e.type === "provider/unhandled").map((e) => e.rawType!), unhandled: result.unhandled, ok: result.ok };
}

describe("a message kind the bridge does not translate is counted as unhandled", () => {
  it("pi: an event type pi's RPC mode might add, mid-turn", async () => {
    const dir = await injected("pi", "zero-work", (l) => l.includes('"type":"turn_end"'), { type: "compaction_start", reason: "threshold" });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["compaction_start"], unhandled: 1 });
  });

  it("codex: a notification method it does not know", async () => {
    const dir = await injected("codex", "zero-work", (l) => l.includes('"method":"turn/completed"'), { jsonrpc: "2.0", method: "thread/backgroundModel/called", params: { threadId: "t" } });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["thread/backgroundModel/called"], unhandled: 1 });
  });

  it("claude-code: a stream event the Messages API might add", async () => {
    const dir = await injected("claude-code", "zero-work", (l) => l.includes('"type":"result"'), { type: "stream_event", event: { type: "content_block_citation", index: 0 }, session_id: "s" });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["stream_event:content_block_citation"], unhandled: 1 });
  });

  it("claude-code: the real kinds of the committed recordings are in their oracles (system:api_retry, system:task_*)", async () => {
    const rawTypes = async (cell: string) =>
      (JSON.parse(await readFile(path.join(repoRoot, "lanes", "claude-code", `${cell}.json`), "utf8")) as Array<{ type: string; rawType?: string }>)
        .filter((e) => e.type === "provider/unhandled")
        .map((e) => e.rawType);
    expect(await rawTypes("model-error")).toEqual(["system:api_retry", "system:api_retry"]);
    expect(await rawTypes("subagent")).toEqual(["system:task_started", "system:task_updated", "system:task_notification"]);
  });

  it("ACP: a notification other than session/update", async () => {
    const dir = await injected("acp-opencode", "zero-work", (l) => l.includes('"stopReason"'), { jsonrpc: "2.0", method: "_opencode/session/compacted", params: { sessionId: "s" } });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["_opencode/session/compacted"], unhandled: 1 });
  });
});

describe("a vendor request the bridge refuses is counted as unhandled", () => {
  it("ACP: a client method it does not serve", async () => {
    const dir = await injected("acp-opencode", "zero-work", (l) => l.includes('"stopReason"'), { jsonrpc: "2.0", id: 9001, method: "_opencode/ask", params: { sessionId: "s" } });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["_opencode/ask"], unhandled: 1 });
  });

  it("codex: a server request it does not serve", async () => {
    const dir = await injected("codex", "zero-work", (l) => l.includes('"method":"turn/completed"'), { jsonrpc: "2.0", id: 9001, method: "item/tool/requestUserInput", params: { threadId: "t" } });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["item/tool/requestUserInput"], unhandled: 1 });
  });

  it("claude-code: a control request it does not serve", async () => {
    const dir = await injected("claude-code", "zero-work", (l) => l.includes('"type":"result"'), { type: "control_request", request_id: "cli-1", request: { subtype: "elicitation", message: "?" } });
    expect(await replayed(dir)).toMatchObject({ rawTypes: ["control_request:elicitation"], unhandled: 1 });
  });
});

describe("pi: an extension UI request it does not serve", () => {
  it("is counted as unhandled; a fire-and-forget one (notify) is not", async () => {
    const unknown = await injected("pi", "zero-work", (l) => l.includes('"type":"turn_end"'), { type: "extension_ui_request", id: "ui-9", method: "pickFile", title: "Pick" });
    expect(await replayed(unknown)).toMatchObject({ rawTypes: ["extension_ui_request:pickFile"], unhandled: 1 });
    const notice = await injected("pi", "zero-work", (l) => l.includes('"type":"turn_end"'), { type: "extension_ui_request", id: "ui-9", method: "notify", message: "hi" });
    expect(await replayed(notice)).toMatchObject({ rawTypes: [], unhandled: 0 });
  });
});
