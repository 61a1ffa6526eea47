import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllowlist } from "../../harness/compare/allowlist.js";
import { compareParity } from "../../harness/compare/parity.js";
import { cellResultFromVerdict } from "../../harness/report/check-report.js";
import { eventSelectorFor, suggestedAllowPath, suggestedRecordingsRoot } from "../../harness/report/suggest.js";
import { renderTextReport } from "../../harness/report/text.js";
import { referenceLane, repoRoot } from "./helpers.js";

/** The `--path` of every "allow it" line, unquoted. */
function acceptedPaths(text: string): string[] {
  return [...text.matchAll(/allow it: {3}parity allow .*?--path (?:'([^']*)'|(\S+))/g)].map((m) => m[1] ?? m[2]!);
}

/** Runs the suggested paths back through the loader's schema and the gate: the cell must pass. */
function passesWith(paths: string[], lanes: { live: unknown[]; oracle: unknown[] }, recordings?: { root: string; dir: string }) {
  const entries = parseAllowlist(
    paths.map((p) => ({ provider: "acp-cursor", cell: "resume", ...(recordings ? { recordings: recordings.root } : {}), layer: "events", path: p, pr: "#1", reason: "intended" })),
    "suggested.json",
    repoRoot,
  );
  const verdict = compareParity({
    provider: "acp-cursor",
    cell: "resume",
    live: { events: lanes.live },
    oracle: { events: lanes.oracle },
    allowlist: entries,
    ...(recordings ? { recordingDir: recordings.dir } : {}),
  });
  return verdict.passed;
}

describe("accept-it hints for whole events", () => {
  it("suggests the removed event's type selector on a real lane, and that entry makes the cell pass", async () => {
    const oracle = await referenceLane("resume");
    const live = structuredClone(oracle);
    const [removed] = live.splice(10, 1);
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: oracle }, allowlist: [] }),
      ms: 1,
      events: live.length,
    });
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false });
    expect(acceptedPaths(text)).toEqual([`/*[type=${removed!.type}]`]);
    expect(text).toContain(`--path '/*[type=${removed!.type}]' --pr`);
    expect(text).not.toContain("--recordings");
    expect(text).not.toContain("cannot be allowlisted");
    expect(passesWith(acceptedPaths(text), { live, oracle })).toBe(true);
  });

  it("adds [kind=…] for an added event with a string kind", async () => {
    const oracle = await referenceLane("resume");
    const live = structuredClone(oracle) as unknown[];
    live.splice(3, 0, { type: "thread/extensionState/updated", threadId: "", providerThreadId: "", kind: "bb/session-options", payload: {} });
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: oracle }, allowlist: [] }),
      ms: 1,
      events: live.length,
    });
    const paths = acceptedPaths(renderTextReport({ ms: 1, cells: [cell] }, { color: false }));
    expect(paths).toEqual(["/*[type=thread/extensionState/updated][kind=bb/session-options]"]);
    expect(passesWith(paths, { live, oracle })).toBe(true);
  });

  it("adds --recordings for a recording outside the project's recordings/, and the scoped entry applies there", async () => {
    const oracle = await referenceLane("resume");
    const live = structuredClone(oracle);
    live.splice(10, 1);
    const recordingDir = path.resolve(repoRoot, "../shared/recordings/acp-cursor/resume");
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: oracle }, allowlist: [], recordingDir }),
      ms: 1,
      events: live.length,
      recordingDir,
      projectDir: repoRoot,
    });
    expect(cell.detail?.recordingsRoot).toBe("../shared/recordings");
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false });
    expect(text).toMatch(/allow it: {3}parity allow --provider acp-cursor --cell resume --recordings \.\.\/shared\/recordings --path '\/\*\[type=/);
    expect(passesWith(acceptedPaths(text), { live, oracle }, { root: "../shared/recordings", dir: recordingDir })).toBe(true);
    // The same entry does not apply to the fixture of the same name: the cell fails there.
    expect(passesWith(acceptedPaths(text), { live, oracle }, { root: "../shared/recordings", dir: path.join(repoRoot, "recordings/acp-cursor/resume") })).toBe(false);
  });

  it("a key-order change is no difference at all (events are compared as values)", async () => {
    const oracle = await referenceLane("resume");
    const live = structuredClone(oracle);
    live[4] = Object.fromEntries(Object.entries(live[4]!).reverse());
    const cell = cellResultFromVerdict({
      verdict: compareParity({ provider: "acp-cursor", cell: "resume", live: { events: live }, oracle: { events: oracle }, allowlist: [] }),
      ms: 1,
      events: live.length,
    });
    const text = renderTextReport({ ms: 1, cells: [cell] }, { color: false });
    expect(acceptedPaths(text)).toEqual([]);
    expect(cell.status).toBe("pass");
    expect(text).toMatch(/^PASS acp-cursor\/resume/);
  });
});

describe("suggest helpers", () => {
  it("writes a selector only when the loader would accept it", () => {
    expect(eventSelectorFor({ type: "a/b", kind: "k" })).toBe("/*[type=a/b][kind=k]");
    expect(eventSelectorFor({ type: "a/b", kind: 3 })).toBe("/*[type=a/b]");
    expect(eventSelectorFor({ type: "a/b", kind: "x]y" })).toBe("/*[type=a/b]");
    expect(eventSelectorFor({ type: "a]b" })).toBeUndefined();
    expect(eventSelectorFor({ kind: "k" })).toBeUndefined();
    expect(eventSelectorFor(["a"])).toBeUndefined();
  });

  it("needs the event value: a bare whole-event diff gets no suggestion", () => {
    expect(suggestedAllowPath({ op: "add", path: "/3" })).toBeUndefined();
    expect(suggestedAllowPath({ op: "remove", path: "/3", old: { type: "t" } })).toBe("/*[type=t]");
    expect(suggestedAllowPath({ op: "replace", path: "/3", old: { type: "t" }, new: { type: "t" } })).toBeUndefined();
    expect(suggestedAllowPath({ op: "replace", path: "/3/item/x", oldIndex: 2, newIndex: 3 })).toBe("/*/item/x");
  });

  it("names the recordings root relative to the project, omitting the project's own", () => {
    expect(suggestedRecordingsRoot("/p/recordings/acp-cursor/c", "/p")).toBeUndefined();
    expect(suggestedRecordingsRoot("/shared/recordings/acp-cursor/c", "/p")).toBe("../shared/recordings");
    expect(suggestedRecordingsRoot("/p/other/acp-cursor/c", "/p")).toBe("other");
  });
});
