/**
 * The committed fixture recordings are what the committed fixture scripts produce: recording a
 * fixture cell again (parity record's own flow, `recordCell`) gives the same oracle byte for byte
 * and the same agent lane. Spawns the compiled bridge and fixture agent (fresh `dist/` needed).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordCell } from "../../harness/record/record-cell.js";
import { readRecording } from "../../harness/recording/index.js";
import { repoRoot } from "../cli/run-cli.js";
import { fixtureCell, laneMessages } from "./committed.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("re-recording a fixture cell", () => {
  it.each([
    ["acp-cursor", "subagent"],
    ["acp-omp-fixture", "turn-tools"],
    // Its first recording raced the agent's commands update against the first prompt.
    ["acp-hermes-agent", "subagent"],
  ])("%s/%s: same oracle byte for byte, same agent lane", async (provider, cell) => {
    const root = mkdtempSync(path.join(tmpdir(), "fixture-rerecord-"));
    temps.push(root);
    const result = await recordCell({
      providerId: provider,
      cell,
      cellsRoot: path.join(repoRoot, "cells"),
      outRoot: path.join(root, "recordings"),
      lanesRoot: path.join(root, "lanes"),
      redact: [],
      now: () => Date.now(),
      timeoutMs: 20_000,
      tempParent: root,
    });
    const committed = await fixtureCell(provider, cell);
    expect(readFileSync(result.oracleFile, "utf8")).toBe(readFileSync(committed.oracleFile, "utf8"));
    const fresh = await readRecording(result.dir);
    expect(laneMessages(fresh, "provider→bridge")).toEqual(laneMessages(committed.recording, "provider→bridge"));
    expect(fresh.manifest).toEqual({ ...committed.recording.manifest, recordedAt: fresh.manifest.recordedAt });
  });
});
