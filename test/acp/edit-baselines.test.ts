import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { noteEditBaselines, takeEditBaseline, type EditBaselines } from "../../stack/acp/interaction/edit-baselines.js";

// The fileChange diff of fs/write_text_file diffs against the file as the agent announced the
// edit, not as it is when the write arrives (opencode writes the file itself around then; its
// live recording lost the diff under load when the bridge read the disk at write time).
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(): { ws: string; file: string } {
  const ws = mkdtempSync(path.join(tmpdir(), "edit-baselines-"));
  dirs.push(ws);
  const file = path.join(ws, "notes.txt");
  writeFileSync(file, "status: draft\n");
  return { ws, file };
}

const inProgress = (file: string) => ({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress", kind: "edit", locations: [{ path: file }] });

describe("edit baselines (old text for the fileChange diff)", () => {
  it("keeps the text from the edit's in-progress update even after the agent rewrote the file", () => {
    const { ws, file } = workspace();
    const baselines: EditBaselines = new Map();
    noteEditBaselines(baselines, inProgress(file), ws, [ws]);
    writeFileSync(file, "status: final\n"); // the agent's own write, before fs/write_text_file arrives
    expect(takeEditBaseline(baselines, file)).toBe("status: draft\n");
    expect(takeEditBaseline(baselines, file)).toBeUndefined();
  });

  it("resolves relative locations against the cwd, and records a missing file as null (an add)", () => {
    const { ws } = workspace();
    const baselines: EditBaselines = new Map();
    noteEditBaselines(baselines, { sessionUpdate: "tool_call", kind: "edit", status: "pending", locations: [{ path: "new.txt" }] }, ws, [ws]);
    expect(takeEditBaseline(baselines, path.join(ws, "new.txt"))).toBeNull();
  });

  it("ignores non-edit calls, paths outside the workspace, and forgets a settled edit's files", () => {
    const { ws, file } = workspace();
    const baselines: EditBaselines = new Map();
    noteEditBaselines(baselines, { ...inProgress(file), kind: "read" }, ws, [ws]);
    noteEditBaselines(baselines, inProgress("/etc/hostname"), ws, [ws]);
    expect(baselines.size).toBe(0);
    noteEditBaselines(baselines, inProgress(file), ws, [ws]);
    expect(baselines.size).toBe(1);
    noteEditBaselines(baselines, { ...inProgress(file), status: "completed" }, ws, [ws]);
    expect(baselines.size).toBe(0);
  });

  it("keeps the first baseline when later updates repeat the locations", () => {
    const { ws, file } = workspace();
    const baselines: EditBaselines = new Map();
    noteEditBaselines(baselines, inProgress(file), ws, [ws]);
    writeFileSync(file, "status: final\n");
    noteEditBaselines(baselines, inProgress(file), ws, [ws]);
    expect(takeEditBaseline(baselines, file)).toBe("status: draft\n");
  });
});
