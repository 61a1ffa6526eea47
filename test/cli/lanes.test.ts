import { readFile, readdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serializeThreadLane } from "../../harness/lanes/index.js";
import { referenceLanes, runCli, sharedRecordings } from "./run-cli.js";

interface CellJson {
  provider: string;
  cell: string;
  scope: string;
  events: number;
  unhandled: number;
  grammarDrops: number;
  invalidDeltas: number;
  lane: unknown[];
}

// events / unhandled / grammar drops of the reference implementation (docs/design/00-product.md, Real input).
const REFERENCE_COUNTS: Record<string, [number, number, number]> = {
  "approval-allow": [31, 0, 0],
  "approval-deny": [29, 0, 0],
  fork: [0, 0, 0],
  "model-list": [0, 0, 0],
  resume: [21, 0, 0],
  "stop-interrupt": [39, 0, 0],
  subagent: [50, 0, 0],
  "turn-tools": [98, 0, 1],
};

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
});

describe("parity lanes on the real acp-cursor recordings", async () => {
  const result = await runCli(["lanes", "--recordings", sharedRecordings, "--provider", "acp-cursor", "--json"]);
  const cells = (result.code === 0 ? JSON.parse(result.out) : []) as CellJson[];

  it("prints one JSON array with one object per cell", () => {
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out.trimEnd().split("\n")).toHaveLength(1);
    expect(cells.map((c) => c.cell)).toEqual(Object.keys(REFERENCE_COUNTS).sort());
  });

  it.each(Object.entries(REFERENCE_COUNTS))("%s: counts equal the reference implementation's", (cell, [events, unhandled, drops]) => {
    const c = cells.find((x) => x.cell === cell);
    expect(c).toBeDefined();
    expect([c!.events, c!.unhandled, c!.grammarDrops]).toEqual([events, unhandled, drops]);
    expect(c!.invalidDeltas).toBe(0);
    expect(c!.scope).toBe(cell === "model-list" ? "process" : "thread");
    expect(c!.lane).toHaveLength(c!.scope === "process" ? 0 : events);
  });

  it.each((await readdir(referenceLanes)).map((f) => f.replace(/\.events\.json$/, "")))("%s: the normalized lane equals the reference lane", async (cell) => {
    const reference = JSON.parse(await readFile(path.join(referenceLanes, `${cell}.events.json`), "utf8")) as unknown;
    expect(cells.find((x) => x.cell === cell)?.lane).toEqual(reference);
  });

  it("--out writes each cell's serialized lane, with no temp files left behind", async () => {
    const out = await mkdtemp(path.join(tmpdir(), "parity-lanes-out-"));
    work.push(out);
    const written = await runCli(["lanes", "--recordings", sharedRecordings, "--provider", "acp-cursor", "--out", out]);
    expect(written.err).toBe("");
    expect(written.code).toBe(0);
    expect((await readdir(path.join(out, "acp-cursor"))).sort()).toEqual(
      Object.keys(REFERENCE_COUNTS)
        .flatMap((c) => [`${c}.json`, `${c}.version`])
        .sort(),
    );
    for (const c of cells) {
      expect(await readFile(path.join(out, c.provider, `${c.cell}.json`), "utf8")).toBe(serializeThreadLane(c.lane));
      // Each oracle written names the CLI version of the recording it came from (harness/recording/oracle-version.ts).
      const manifest = JSON.parse(await readFile(path.join(sharedRecordings, c.provider, c.cell, "manifest.json"), "utf8")) as { cliVersion: string };
      expect(await readFile(path.join(out, c.provider, `${c.cell}.version`), "utf8")).toBe(`${JSON.stringify({ cliVersion: manifest.cliVersion })}\n`);
    }
    expect(written.out).toMatch(/^provider\s+cell\s+scope\s+events\s+unhandled\s+grammar drops\s+invalid deltas\n/);
    expect(written.out).toMatch(/\nacp-cursor\s+turn-tools\s+thread\s+98\s+0\s+1\s+0\n/);
    expect(written.out).toMatch(/\n8 cells\n$/);
  });
});

describe("parity lanes usage errors", () => {
  it("an unknown --provider exits 2 and lists the recorded providers", async () => {
    const r = await runCli(["lanes", "--recordings", sharedRecordings, "--provider", "nobody"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: unknown --provider nobody; recorded providers: acp-cursor\n");
  });

  it("an unknown --cell exits 2 and lists the provider's cells", async () => {
    const r = await runCli(["lanes", "--recordings", sharedRecordings, "--provider", "acp-cursor", "--cell", "nope"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: unknown --cell nope; recorded cells of acp-cursor: approval-allow, .*turn-tools\n$/);
  });

  it("under CI, --out into the oracle directory is refused before anything is read", async () => {
    const r = await runCli(["lanes", "--recordings", sharedRecordings, "--out", "lanes"], { ci: true });
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: --out lanes: that is inside lanes/, and nothing writes oracles or recordings under CI=true\n");
  });

  it("a missing --recordings root exits 2", async () => {
    const r = await runCli(["lanes", "--recordings", "no/such/dir"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: --recordings no\/such\/dir: directory not found/);
  });

  it.each(["list", "lanes", "check"])("%s --help shows examples", async (command) => {
    const r = await runCli([command, "--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`Examples:\\n\\s+parity ${command}`));
  });
});
