/**
 * Fixture recordings do not depend on scheduling: every fixture provider makes recordCell wait
 * for the agent's commands state after each session step (RecordProvider.sessionSettled), and
 * in every committed fixture recording that state reached the runtime before the first
 * `turn/start` that followed the session step.
 */
import { describe, expect, it } from "vitest";
import { FIXTURE_RECORD_PROVIDERS, FIXTURE_SESSION_SETTLED } from "../../harness/families/acp/fixture-agents.js";
import { withSessionWaits } from "../../harness/record/record-cell.js";
import { loadCell } from "../../harness/runtime/cells.js";
import type { CellStep } from "../../harness/runtime/cell-driver.js";
import { repoRoot } from "../cli/run-cli.js";
import path from "node:path";
import { committedFixtureCells, type Message } from "./committed.js";

const cells = await committedFixtureCells();
const SESSION_METHODS = new Set(["thread/start", "thread/resume", "thread/fork"]);

/** The runtime's session and turn requests and the bridge's commands state, in recorded (run, seq) order. */
function milestones(recording: (typeof cells)[number]["recording"]): string[] {
  const out: string[] = [];
  for (const entry of recording.merged({ useCurrent: false })) {
    const message = JSON.parse(entry.line) as Message;
    if (entry.dir === "runtime→bridge" && message.id !== undefined && (SESSION_METHODS.has(message.method ?? "") || message.method === "turn/start")) {
      out.push(message.method!);
    }
    if (entry.dir === "bridge→runtime" && message.method === "thread/delta") {
      const deltas = (message.params?.deltas ?? []) as Array<{ kind?: string; extensionKind?: string }>;
      if (deltas.some((d) => d.kind === "extension.state" && d.extensionKind === "bb/provider-commands")) out.push("commands");
    }
  }
  return out;
}

describe("fixture providers settle each session before the first prompt", () => {
  it("every fixture provider waits for the bb/provider-commands extension state", () => {
    expect(Object.keys(FIXTURE_RECORD_PROVIDERS).sort()).toEqual(["acp-cursor", "acp-grok", "acp-hermes-agent", "acp-omp-fixture"]);
    for (const provider of Object.values(FIXTURE_RECORD_PROVIDERS)) {
      expect(provider.sessionSettled, provider.id).toEqual({ event: "thread/extensionState/updated", fields: { kind: "bb/provider-commands" } });
    }
  });

  it("the recorded flow of a resume cell gets the wait after both session steps, before each prompt", async () => {
    const cell = await loadCell(path.join(repoRoot, "cells"), "resume");
    const steps = withSessionWaits(cell.definition.steps, FIXTURE_SESSION_SETTLED);
    const ops = steps.map((s: CellStep) => s.op);
    expect(ops).toEqual(["initialize", "thread/start", "wait", "turn/start", "thread/stop", "thread/resume", "wait", "turn/start"]);
  });

  it.each(cells.map((c) => [`${c.provider}/${c.cell}`, c] as const))("%s: the commands state precedes the first turn/start after every session request", (_name, cell) => {
    const flow = milestones(cell.recording);
    expect(
      flow.some((m) => SESSION_METHODS.has(m)),
      "a session request was recorded",
    ).toBe(true);
    flow.forEach((m, i) => {
      if (!SESSION_METHODS.has(m)) return;
      const next = flow.slice(i + 1).findIndex((n) => n === "turn/start" || SESSION_METHODS.has(n));
      const window = next === -1 ? flow.slice(i + 1) : flow.slice(i + 1, i + 1 + next);
      expect(window, `after ${m} #${i}: ${flow.join(" ")}`).toContain("commands");
    });
  });
});
