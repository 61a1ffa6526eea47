import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildThreadLane, normalizeThreadLane, serializeThreadLane } from "../../harness/lanes/index.js";
import { FIXTURE_AGENT_MARKER, FIXTURE_AGENT_PROFILES, FIXTURE_FRAGMENT_DIR, readFixtureFragment } from "../../harness/families/acp/fixture-agents.js";
import { repoRoot } from "../cli/run-cli.js";
import { committedFixtureCells, FIXTURE_PROVIDERS, laneMessages } from "./committed.js";

const cells = await committedFixtureCells();

describe("committed fixture-agent cells", () => {
  it("cover turn-tools and subagent for every fixture provider", () => {
    for (const provider of FIXTURE_PROVIDERS) {
      const names = cells.filter((c) => c.provider === provider).map((c) => c.cell);
      expect(names, provider).toEqual(expect.arrayContaining(["turn-tools", "subagent"]));
    }
  });

  it.each(cells.map((c) => [`${c.provider}/${c.cell}`, c] as const))("%s: the manifest says fixture agent in cliVersion and note", (_name, c) => {
    const { manifest } = c.recording;
    expect(manifest.provider).toBe(c.provider);
    expect(manifest.cell).toBe(c.cell);
    expect(manifest.cliVersion).toContain(FIXTURE_AGENT_MARKER);
    expect(manifest.note).toContain(FIXTURE_AGENT_MARKER);
    expect(manifest.note).toContain("NOT a real capture");
    expect(manifest.scope).toBe("thread");
  });

  it.each(cells.map((c) => [`${c.provider}/${c.cell}`, c] as const))("%s: the bridge ran the fixture agent with the dialect named explicitly", (_name, c) => {
    const start = laneMessages(c.recording, "runtime→bridge").find((m) => m.method === "thread/start");
    const providerOptions = start?.params.options.providerOptions;
    expect(providerOptions.acpDialect).toBe(FIXTURE_AGENT_PROFILES[c.provider]!.dialect);
    expect(providerOptions.acpLaunchSpec.command).toBe("node");
    expect(providerOptions.acpLaunchSpec.args[0]).toBe("/repo/dist/stack/acp/fixture-agent/main.js");
    // The agent lane really is the fixture agent's: its session ids carry the profile's prefix.
    const created = laneMessages(c.recording, "provider→bridge").find((m) => typeof m.result?.sessionId === "string");
    expect(created?.result.sessionId.startsWith(FIXTURE_AGENT_PROFILES[c.provider]!.base.sessionIdPrefix!)).toBe(true);
  });

  it.each(cells.map((c) => [`${c.provider}/${c.cell}`, c] as const))("%s: the oracle is the recording's own thread lane, with nothing unhandled", (_name, c) => {
    expect(existsSync(c.oracleFile)).toBe(true);
    const built = buildThreadLane(c.recording);
    expect(built.unhandled).toBe(0);
    expect(JSON.parse(serializeThreadLane(normalizeThreadLane(built.events)))).toEqual(c.oracle);
    expect(c.oracle.filter((e) => e.type === "turn/completed").length).toBeGreaterThan(0);
  });

  it("every fixture fragment under cells/ is valid, names a known provider, and has its committed recording", async () => {
    const cellsRoot = path.join(repoRoot, "cells");
    let fragments = 0;
    for (const cell of await readdir(cellsRoot)) {
      const dir = path.join(cellsRoot, cell, FIXTURE_FRAGMENT_DIR);
      if (!existsSync(dir)) continue;
      for (const file of await readdir(dir)) {
        const provider = file.replace(/\.json$/, "");
        expect(FIXTURE_PROVIDERS, `${cell}/${file}`).toContain(provider);
        const fragment = await readFixtureFragment(path.join(dir, file));
        expect(fragment.prompts.length).toBeGreaterThan(0);
        expect(
          cells.some((c) => c.provider === provider && c.cell === cell),
          `${provider}/${cell} recorded`,
        ).toBe(true);
        fragments += 1;
      }
    }
    expect(fragments).toBe(cells.length);
  });

  it("no fixture recording carries a machine path or an id of the real cursor captures (read by path, never copied)", async () => {
    const real = path.resolve(repoRoot, "../shared/recordings/acp-cursor");
    const realIds = new Set<string>();
    for (const cell of existsSync(real) ? await readdir(real) : []) {
      const lane = path.join(real, cell, "provider→bridge.ndjson");
      if (!existsSync(lane)) continue;
      for (const line of (await readFile(lane, "utf8")).split("\n").filter(Boolean)) {
        const params = (JSON.parse((JSON.parse(line) as { line: string }).line) as { params?: any }).params;
        for (const id of [params?.sessionId, params?.update?.toolCallId, params?.toolCallId]) if (typeof id === "string" && id.length > 6) realIds.add(id);
      }
    }
    expect(realIds.size).toBeGreaterThan(0);
    for (const c of cells) {
      // Files only: a carried workspace/ is the cell's own fixture.
      for (const file of (await readdir(c.dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name)) {
        const text = await readFile(path.join(c.dir, file), "utf8");
        expect(text, `${c.provider}/${c.cell}/${file}`).not.toContain(repoRoot);
        expect(text).not.toMatch(/parity-record-[A-Za-z0-9]{6}/);
        for (const id of realIds) expect(text.includes(id), `${c.provider}/${c.cell}/${file} contains a real cursor id`).toBe(false);
      }
    }
  });
});
