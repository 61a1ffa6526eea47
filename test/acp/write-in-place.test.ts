/**
 * An agent's `fs/write_text_file` is written in place (stack/acp/interaction/write-in-place.ts):
 * a reader that looks between the bridge's open and its first write never finds the file empty.
 *
 * The failing run (acp-opencode turn-tools, harness/record/README.md "acp-opencode turn-tools"):
 * opencode sent `fs/write_text_file` without waiting for the answer, wrote notes.txt itself, and
 * the bridge's `writeFile` then opened the file with O_TRUNC; before its bytes went out,
 * opencode's `wc -l notes.txt` ran and printed `0 notes.txt`. The test plays the recording's
 * lines of that edit (the committed recording's seq 35, 36, 41, 45: the edit's `tool_call`, its
 * `in_progress` update with the rawInput, the `fs/write_text_file` request and the `completed`
 * update, the same kinds of lines as the failing run's) through the bridge and runs the same
 * `wc` at the same point, by an `openFileForWrite` that does opencode's own write first (as it
 * did, in place) and looks once the bridge's open returned. No clock is involved: the point is
 * where the open returns.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OpenFileForWrite } from "../../stack/acp/bridge-runtime.js";
import { IN_PLACE_WRITE_FLAGS, writeTextInPlace } from "../../stack/acp/interaction/write-in-place.js";
import { repoRoot } from "../cli/run-cli.js";
import { fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";

const RECORDING = join(repoRoot, "recordings", "acp-opencode", "turn-tools");
const RECORDED_WORKSPACE = "/tmp/parity-workspace";
const OLD_TEXT = readFileSync(join(repoRoot, "cells", "turn-tools", "workspace", "notes.txt"), "utf8");

/** The recording's lines of the edit call, as fixture steps with its workspace and session spelled as placeholders. */
function recordedEditSteps(): Array<Record<string, unknown>> {
  const entries = readFileSync(join(RECORDING, "provider→bridge.ndjson"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq: number; line: string });
  return [35, 36, 41, 45].map((seq) => {
    const text = entries.find((e) => e.seq === seq)!.line.replaceAll(RECORDED_WORKSPACE, "{{cwd}}");
    const message = JSON.parse(text) as { method: string; params: Record<string, unknown> };
    const params: Record<string, unknown> = { ...message.params, sessionId: "{{sessionId}}" };
    return message.method === "session/update" ? { update: params.update as Record<string, unknown> } : { request: { method: message.method, params } };
  });
}

/** What the recorded request asks the bridge to write. */
function recordedContent(steps: Array<Record<string, unknown>>): string {
  const request = steps.find((s) => "request" in s) as { request: { method: string; params: { content: string } } };
  expect(request.request.method).toBe("fs/write_text_file");
  return request.request.params.content;
}

/** opencode's own write of the file (in place, as it does: open without O_TRUNC, write, cut to length). */
function agentWrites(file: string, text: string): void {
  const bytes = Buffer.from(text);
  execFileSync(process.execPath, [
    "-e",
    `const fs=require("fs");const fd=fs.openSync(process.argv[1],"r+");fs.writeSync(fd,Buffer.from(process.argv[2]),0,${bytes.length},0);fs.ftruncateSync(fd,${bytes.length});fs.closeSync(fd)`,
    file,
    text,
  ]);
}

const wc = (ws: string): string => execFileSync("wc", ["-l", "notes.txt"], { cwd: ws, encoding: "utf8" });

let bridge: InProcessBridge | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("fs/write_text_file while the agent's own command reads the file (acp-opencode turn-tools)", () => {
  it("the failing run's lines: `wc -l notes.txt` between the bridge's open and its first write counts 3 lines, not 0", async () => {
    const steps = recordedEditSteps();
    const content = recordedContent(steps);
    let ws = "";
    const seen: string[] = [];
    const openAsInTheFailingRun: OpenFileForWrite = async (path, flags, mode) => {
      agentWrites(path, content); // opencode's write came first (its write, then the bridge's open)
      const handle = await open(path, flags, mode);
      seen.push(wc(ws)); // where opencode's `wc -l notes.txt` ran
      return handle;
    };
    bridge = startInProcessBridge({ openFileForWrite: openAsInTheFailingRun });
    ws = bridge.dir;
    writeFileSync(join(ws, "notes.txt"), OLD_TEXT);
    const { spec } = fixtureLaunchSpec(ws, { prompts: [{ steps: [...steps, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams("thr_wip", spec, ws, { permissionMode: "full" }));
    await bridge.request("turn/start", turnStartParams("thr_wip", "edit", "creq_wip00000000"));
    await bridge.waitFor(isBoundary);

    expect(seen).toEqual(["3 notes.txt\n"]);
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe(content);
    // The edit's fileChange is as in the committed oracle: the file's one change, draft → final.
    const change = bridge.deltas("thr_wip").find((d) => d.kind === "item.close" && d.item?.type === "fileChange");
    expect(change.item.changes).toEqual([expect.objectContaining({ path: join(ws, "notes.txt"), kind: "update" })]);
    expect(change.item.changes[0].diff).toContain("-status: draft\n+status: final\n");
  });

  it("at that point the old write (writeFile: open with O_TRUNC, then write) left the file empty: `0 notes.txt`, the CI run's output", async () => {
    const ws = mkdtempSync(join(tmpdir(), "write-in-place-"));
    dirs.push(ws);
    const content = recordedContent(recordedEditSteps());
    writeFileSync(join(ws, "notes.txt"), content); // opencode's own write came first
    const handle = await open(join(ws, "notes.txt"), "w"); // the flag writeFile opens with
    try {
      expect(wc(ws)).toBe("0 notes.txt\n");
    } finally {
      await handle.close();
    }
  });
});

describe("writeTextInPlace", () => {
  function workspace(): string {
    const ws = mkdtempSync(join(tmpdir(), "write-in-place-"));
    dirs.push(ws);
    return ws;
  }

  it("opens without O_TRUNC, creating a missing file", async () => {
    expect(IN_PLACE_WRITE_FLAGS & (await import("node:fs")).constants.O_TRUNC).toBe(0);
    const file = join(workspace(), "new.txt");
    await writeTextInPlace(file, "héllo\n");
    expect(readFileSync(file, "utf8")).toBe("héllo\n");
  });

  it("a shorter text leaves no old tail; a longer one grows the file; an empty one empties it", async () => {
    const file = join(workspace(), "notes.txt");
    writeFileSync(file, "a long first version\nwith two lines\n");
    await writeTextInPlace(file, "short\n");
    expect(readFileSync(file, "utf8")).toBe("short\n");
    await writeTextInPlace(file, "now a longer text than before\n");
    expect(readFileSync(file, "utf8")).toBe("now a longer text than before\n");
    await writeTextInPlace(file, "");
    expect(readFileSync(file, "utf8")).toBe("");
  });

  it("keeps the file's inode and mode, and writes through a symlink, which stays a symlink", async () => {
    const ws = workspace();
    const file = join(ws, "notes.txt");
    writeFileSync(file, "old\n");
    chmodSync(file, 0o640);
    const before = statSync(file);
    symlinkSync(file, join(ws, "link.txt"));
    await writeTextInPlace(join(ws, "link.txt"), "new\n");
    expect(lstatSync(join(ws, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws, "link.txt"))).toBe(file);
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(statSync(file).ino).toBe(before.ino);
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it("writes to a device without cutting it (/dev/null, as writeFile did)", async () => {
    await expect(writeTextInPlace("/dev/null", "discarded\n")).resolves.toBeUndefined();
  });

  it("passes the file system's error on and closes what it opened", async () => {
    const ws = workspace();
    await expect(writeTextInPlace(join(ws, "missing-dir", "x.txt"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(writeTextInPlace(ws, "x")).rejects.toMatchObject({ code: "EISDIR" });
    const closed: string[] = [];
    const failing: OpenFileForWrite = async (path, flags, mode) => {
      const handle = await open(path, flags, mode);
      return Object.assign(Object.create(handle) as typeof handle, {
        write: () => Promise.reject(Object.assign(new Error("no space left on device"), { code: "ENOSPC" })),
        close: () => (closed.push(path), handle.close()),
      });
    };
    await expect(writeTextInPlace(join(ws, "full.txt"), "x", failing)).rejects.toMatchObject({ code: "ENOSPC" });
    expect(closed).toEqual([join(ws, "full.txt")]);
  });
});
