import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAllowlists } from "../../harness/compare/allowlist.js";
import { loadPairAllowlists, parsePairAllowlist, type PairEntry } from "../../harness/compare/pair/pair-allowlist.js";
import { comparePair } from "../../harness/compare/pair/pair-compare.js";
import { PROVIDER_PAIRS, pairName } from "../../harness/families/pairs.js";
import { renderPairHtml } from "../../harness/report/pair-report.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// `parity compare` (issue 39) on the committed matrix: the oracles in lanes/ and the agent-side
// lanes of recordings/, with the pair entries of allowlists/pairs/.
const lanesDir = path.join(repoRoot, "lanes");
const recordingsDir = path.join(repoRoot, "recordings");

describe("parity compare on the committed lanes and recordings", () => {
  let entries: PairEntry[];
  beforeAll(async () => {
    entries = await loadPairAllowlists({ cwd: repoRoot });
  });

  it("every pair: 8 common cells; every adapter-caused difference allowed; no stale entry; every bridge cause names the agent's seq", async () => {
    for (const pair of PROVIDER_PAIRS) {
      const r = await comparePair({ a: pair.native, b: pair.adapter, pair: pairName(pair), lanesDir, recordingsDir, entries });
      expect(r.cells.length, pairName(pair)).toBe(8);
      expect(r.differences.length, pairName(pair)).toBeGreaterThan(0);
      expect(r.stale, pairName(pair)).toEqual([]);
      expect(
        r.differences.filter((d) => d.cause.kind === "adapter" && d.allowedBy === undefined),
        pairName(pair),
      ).toEqual([]);
      for (const d of r.differences.filter((x) => x.cause.kind === "bridge" && x.cause.provider === pair.adapter && x.kind !== "invented")) {
        expect(d.cause.evidence?.seq, `${pairName(pair)} ${d.cell} ${d.address}`).toBeTypeOf("number");
      }
      // No pair entry ever allows a bridge's difference.
      expect(r.differences.filter((d) => d.cause.kind === "bridge" && d.allowedBy !== undefined)).toEqual([]);
    }
  });

  it("acp-codex's turn-tools: the wc -l call's cwd and exact output were sent by codex-acp (seq 43, 44) and the lane lacks them — cause bridge", async () => {
    const r = await comparePair({ a: "codex", b: "acp-codex", pair: "codex/acp-codex", lanesDir, recordingsDir, cells: ["turn-tools"], entries: [] });
    const cwd = r.differences.find((d) => d.address === "turn 1 / command 1: cwd");
    expect(cwd).toMatchObject({
      class: "command metadata",
      kind: "lost",
      a: "/tmp/parity-workspace",
      cause: { kind: "bridge", provider: "acp-codex", evidence: { seq: 43, path: "$.params.update.rawInput.cwd" } },
    });
    const output = r.differences.find((d) => d.address === "turn 1 / command 1: output");
    expect(output).toMatchObject({ class: "output", kind: "changed", a: "3 notes.txt\n", b: "3 notes.txt", cause: { kind: "bridge", evidence: { seq: 44 } } });
    // Ids, turn numbering (#1 vs #3), presentation and deltas are no difference.
    expect(r.differences.map((d) => d.field)).not.toContain("presentation");
    expect(r.differences.some((d) => d.class === "message")).toBe(false);
  });

  it("acp-pi's command-fails: the exit code in pi-acp's text trailer is a bridge loss, the missing cwd an adapter's", async () => {
    const r = await comparePair({ a: "pi", b: "acp-pi", pair: "pi/acp-pi", lanesDir, recordingsDir, cells: ["command-fails"], entries: [] });
    expect(r.differences.find((d) => d.field === "exitCode")).toMatchObject({ class: "exit code", kind: "lost", a: 3, cause: { kind: "bridge", provider: "acp-pi" } });
    expect(r.differences.find((d) => d.field === "cwd")).toMatchObject({ class: "command metadata", kind: "lost", cause: { kind: "adapter", provider: "acp-pi" } });
  });

  it("evidence is read inside the turn: acp-claude's usage of turn 2 (seq 55) is no proof for the interrupted turn 1", async () => {
    const r = await comparePair({ a: "claude-code", b: "acp-claude", pair: "claude-code/acp-claude", lanesDir, recordingsDir, cells: ["stop-interrupt"], entries: [] });
    expect(r.differences.find((d) => d.address === "turn 1: inputTokens")?.cause).toEqual({ kind: "adapter", provider: "acp-claude" });
    expect(r.differences.find((d) => d.address === "turn 2: inputTokens")?.cause).toMatchObject({ kind: "bridge", provider: "acp-claude", evidence: { seq: 55, path: "$.result.usage.inputTokens" } });
  });

  it("the HTML page escapes what the lanes hold and makes steering characters visible", () => {
    const html = renderPairHtml({
      a: "codex",
      b: "acp-codex",
      pair: "codex/acp-codex",
      cells: ["c"],
      stale: [],
      differences: [
        { cell: "c", class: "output", kind: "changed", address: "turn 1 / command 1: output", field: "output", a: "<b>x</b>\u202e", b: "y", cause: { kind: "adapter", provider: "acp-codex" } },
      ],
    });
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;\\u202e");
    expect(html).not.toContain("<b>x</b>");
  });

  it("a pair entry is validated in its own files, which parity check's loader never reads", async () => {
    const good = { pair: "codex/acp-codex", class: "usage", cell: "*", pr: "#39", reason: "r" };
    expect(parsePairAllowlist([good], "x.json")).toEqual([{ ...good, source: { file: "x.json", index: 0 } }]);
    expect(() => parsePairAllowlist([{ ...good, class: "speed" }], "x.json")).toThrow(/entry 0: class: class must be one of/);
    expect(() => parsePairAllowlist([{ ...good, pr: "39" }], "x.json")).toThrow(/entry 0: pr: /);
    expect((await loadAllowlists({ cwd: repoRoot })).some((entry) => "pair" in entry)).toBe(false);
  });
});

describe("parity compare on a doctored copy", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "parity-pair-"));
    for (const provider of ["codex", "acp-codex"]) {
      for (const cell of ["turn-tools", "command-fails"]) {
        await mkdir(path.join(root, "lanes", provider), { recursive: true });
        await cp(path.join(lanesDir, provider, `${cell}.json`), path.join(root, "lanes", provider, `${cell}.json`));
        await cp(path.join(recordingsDir, provider, cell), path.join(root, "recordings", provider, cell), { recursive: true });
      }
    }
    await cp(path.join(repoRoot, "allowlists", "pairs"), path.join(root, "allowlists", "pairs"), { recursive: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function dropExitCode(cell: string): Promise<void> {
    const file = path.join(root, "lanes", "acp-codex", `${cell}.json`);
    const events = JSON.parse(await readFile(file, "utf8")) as Array<{ type: string; item?: Record<string, unknown> }>;
    for (const event of events) if (event.type === "item/completed" && event.item?.type === "commandExecution") delete event.item.exitCode;
    await writeFile(file, `${JSON.stringify(events, null, 2)}\n`);
  }

  it("an exit code the adapter sent and the lane dropped is cause bridge with its seq; gone from the agent's lines too, cause adapter", async () => {
    await dropExitCode("command-fails");
    const entries = await loadPairAllowlists({ cwd: root });
    const input = { a: "codex", b: "acp-codex", pair: "codex/acp-codex", lanesDir: path.join(root, "lanes"), recordingsDir: path.join(root, "recordings"), cells: ["command-fails"], entries };
    const before = await comparePair(input);
    const lost = before.differences.find((d) => d.field === "exitCode");
    expect(lost).toMatchObject({ class: "exit code", kind: "lost", a: 3, cause: { kind: "bridge", provider: "acp-codex", evidence: { seq: 29, path: "$.params.update.rawOutput.exit_code" } } });
    expect(lost?.allowedBy).toBeUndefined();

    // The same loss when codex-acp never sent it: the adapter's.
    const agentFile = path.join(root, "recordings", "acp-codex", "command-fails", "provider→bridge.ndjson");
    const agent = await readFile(agentFile, "utf8");
    await writeFile(agentFile, agent.replace(/\\"exit_code\\":3,/g, "").replace(/exited with code 3/gi, "ended"));
    const after = await comparePair(input);
    expect(after.differences.find((d) => d.field === "exitCode")).toMatchObject({ kind: "lost", cause: { kind: "adapter", provider: "acp-codex" } });
    await writeFile(agentFile, agent);
  });

  it("the CLI: exit 0 with the adapters' losses allowed and the bridge's listed; --strict fails on the bridge's", async () => {
    const ok = await runCli(["compare", "codex", "acp-codex"], { cwd: root });
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^parity compare codex acp-codex: 2 cells \(command-fails, turn-tools\)$/m);
    expect(ok.out).toMatch(/^usage — 4: 4 lost, 0 changed, 0 invented; adapter 4, bridge 0$/m);
    expect(ok.out).toMatch(/^ {2}output \(cause bridge acp-codex\): command-fails, turn-tools$/m);
    // The providers in either order: the declared pair's native side is A.
    const swapped = await runCli(["compare", "acp-codex", "codex", "--json"], { cwd: root });
    const doc = JSON.parse(swapped.out) as { pair: string; counts: { adapter: number; allowed: number } };
    expect(doc.pair).toBe("codex/acp-codex");
    expect(doc.counts.allowed).toBe(doc.counts.adapter);
    expect((await runCli(["compare", "codex", "acp-codex", "--strict"], { cwd: root })).code).toBe(1);
  });

  it("removing one allowance: exit 1 naming the class, the cells and the cause", async () => {
    const file = path.join(root, "allowlists", "pairs", "acp-codex.json");
    const text = await readFile(file, "utf8");
    const kept = (JSON.parse(text) as Array<{ pair: string; class: string }>).filter((e) => !(e.pair === "codex/acp-codex" && e.class === "usage"));
    await writeFile(file, `${JSON.stringify(kept, null, 2)}\n`);
    try {
      const r = await runCli(["compare", "codex", "acp-codex"], { cwd: root });
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/^ {2}usage \(cause adapter\): command-fails, turn-tools$/m);
    } finally {
      await writeFile(file, text);
    }
  });

  it("an entry that masks nothing in any selected cell is stale (exit 1, named); one for an unselected cell is not judged", async () => {
    const extra = path.join(root, "extra.json");
    await writeFile(
      extra,
      JSON.stringify([
        { pair: "codex/acp-codex", class: "session state", cell: "*", pr: "#39", reason: "nothing to mask" },
        { pair: "codex/acp-codex", class: "flow", cell: "resume", pr: "#39", reason: "a cell not compared here" },
      ]),
    );
    const r = await runCli(["compare", "codex", "acp-codex", "--allowlist", extra], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/stale pair entry .*extra\.json entry 0: codex\/acp-codex class session state cell \* \(#39\) masks no difference in any selected cell/);
    expect(r.out).not.toMatch(/extra\.json entry 1/);
  });

  it("bad input: an unknown provider or no cell in common is one line, exit 2", async () => {
    const unknown = await runCli(["compare", "codex", "acp-codx"], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.err.trim().split("\n")).toHaveLength(1);
    expect(unknown.err).toMatch(/unknown provider "acp-codx".*did you mean acp-codex/);
    await mkdir(path.join(root, "lanes", "pi"), { recursive: true });
    await writeFile(path.join(root, "lanes", "pi", "steer.json"), "[]\n");
    const none = await runCli(["compare", "codex", "pi"], { cwd: root });
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/codex and pi have no recorded cell in common/);
    const cell = await runCli(["compare", "codex", "acp-codex", "--cell", "fork"], { cwd: root });
    expect(cell.code).toBe(2);
    expect(cell.err).toMatch(/--cell fork: codex and acp-codex recorded no such cell \(cells both have: command-fails, turn-tools\)/);
  });
});
