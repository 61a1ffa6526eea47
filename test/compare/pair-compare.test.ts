import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAllowlists } from "../../harness/compare/allowlist.js";
import { loadPairAllowlists, parsePairAllowlist, type PairEntry } from "../../harness/compare/pair/pair-allowlist.js";
import { comparePair } from "../../harness/compare/pair/pair-compare.js";
import { foldLane } from "../../harness/compare/pair/fold.js";
import { loadCellFacts } from "../../harness/check/cell-facts.js";
import type { TruthFacts } from "../../harness/compare/truth/facts-shape.js";
import { PROVIDER_PAIRS, pairName } from "../../harness/families/pairs.js";
import { PAIR_BRIDGE_CAUSES } from "../../harness/defaults.js";
import { renderPairHtml } from "../../harness/report/pair-report.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

// `parity compare` (issue 39) on the committed matrix: the oracles in lanes/ and the agent-side
// lanes of recordings/, with the pair entries of allowlists/pairs/.
const lanesDir = path.join(repoRoot, "lanes");
const recordingsDir = path.join(repoRoot, "recordings");

// Each side's lane judged against its cell's facts, as `parity compare` does (harness/cli/compare.ts).
const cellsRoot = path.join(repoRoot, "cells");
async function factsOf(provider: string, cell: string): Promise<TruthFacts | undefined> {
  const state = (await loadCellFacts(cellsRoot, [{ provider, cell }])).get(`${provider}/${cell}`);
  return state?.state === "judged" ? state.facts : undefined;
}

const COMMON_CELLS: Record<string, string[]> = {
  "codex/acp-codex": [
    "approval-allow",
    "approval-deny",
    "command-fails",
    "command-signal",
    "exact-bytes",
    "long-output",
    "model-error",
    "new-file-folder",
    "resume",
    "steer",
    "stop-interrupt",
    "turn-tools",
    "two-tool-calls",
    "zero-work",
  ],
  "claude-code/acp-claude": [
    "approval-allow",
    "approval-deny",
    "command-fails",
    "command-signal",
    "exact-bytes",
    "long-output",
    "model-error",
    "new-file-folder",
    "resume",
    "stop-interrupt",
    "turn-tools",
    "two-tool-calls",
    "zero-work",
  ],
  "claude-code/acp-claude-zed": [
    "approval-allow",
    "approval-deny",
    "command-fails",
    "command-signal",
    "exact-bytes",
    "long-output",
    "model-error",
    "new-file-folder",
    "resume",
    "stop-interrupt",
    "turn-tools",
    "two-tool-calls",
    "zero-work",
  ],
  "pi/acp-pi": [
    "command-fails",
    "command-signal",
    "exact-bytes",
    "long-output",
    "model-error",
    "model-list",
    "new-file-folder",
    "resume",
    "steer",
    "stop-interrupt",
    "turn-tools",
    "two-tool-calls",
    "zero-work",
  ],
};

describe("parity compare on the committed lanes and recordings", () => {
  let entries: PairEntry[];
  beforeAll(async () => {
    entries = await loadPairAllowlists({ cwd: repoRoot });
  });

  it("every pair: its common cells; every adapter-caused difference allowed; no stale entry; no difference caused by a bridge", async () => {
    for (const pair of PROVIDER_PAIRS) {
      const name = pairName(pair);
      const r = await comparePair({ a: pair.native, b: pair.adapter, pair: name, lanesDir, recordingsDir, entries, factsOf });
      expect(r.cells, name).toEqual(COMMON_CELLS[name]);
      expect(r.differences.length, name).toBeGreaterThan(0);
      expect(r.stale, name).toEqual([]);
      expect(
        r.differences.filter((d) => d.cause.kind === "adapter" && d.allowedBy === undefined),
        name,
      ).toEqual([]);
      // Issue 39's bridge fixes landed: no difference of any pair is our bridges' (PAIR_BRIDGE_CAUSES "fail").
      expect(
        r.differences.filter((x) => x.cause.kind === "bridge").map((d) => `${d.cell} ${d.address} ${d.field ?? ""}`),
        name,
      ).toEqual([]);
    }
  });

  it("every cell one member of a shipped pair recorded alone has the pair data's reason, and the CLI names it", async () => {
    for (const pair of PROVIDER_PAIRS) {
      const name = pairName(pair);
      const r = await comparePair({ a: pair.native, b: pair.adapter, pair: name, lanesDir, recordingsDir, entries, ...(pair.unpaired !== undefined ? { unpairedReasons: pair.unpaired } : {}) });
      expect(
        r.unpaired.filter((u) => u.reason === undefined),
        name,
      ).toEqual([]);
      // The data names no cell both members recorded: a reason outlives its cell's recording.
      expect(
        Object.keys(pair.unpaired ?? {}).filter((cell) => r.cells.includes(cell)),
        name,
      ).toEqual([]);
    }
    const out = (await runCli(["compare", "codex", "acp-codex"], { cwd: repoRoot })).out;
    expect(out).toMatch(/^not compared: fork \(only codex recorded it; acp-codex: codex-acp 0\.16\.0 advertises no session\/fork .*\)$/m);
    const doc = JSON.parse((await runCli(["compare", "pi", "acp-pi", "--json"], { cwd: repoRoot })).out) as { unpaired: Array<{ cell: string; recordedBy: string }> };
    expect(doc.unpaired.map((u) => [u.cell, u.recordedBy])).toEqual([
      ["approval-allow", "pi"],
      ["approval-deny", "pi"],
    ]);
  });

  it("codex/acp-codex steer: the message a steer cut short and the steer's answer join in the order they streamed (codex completes the cut one last), so the texts agree", async () => {
    const r = await comparePair({ a: "codex", b: "acp-codex", pair: "codex/acp-codex", lanesDir, recordingsDir, cells: ["steer"], entries, factsOf });
    expect(r.differences.map((d) => d.class)).toEqual(["usage", "usage"]);
    const codex = foldLane(JSON.parse(await readFile(path.join(lanesDir, "codex", "steer.json"), "utf8")) as unknown[]);
    expect(codex.turns[0]?.items.map((item) => item.fields.text)).toEqual(["Drafting…Stone shoulders rise high, snow keeps the silence of clouds, paths fold into sky."]);
  });

  it("the ACP side's failed turn carries the agent's error, and acp-claude's long output is Claude Code's Bash result: no model error or output difference is left to a bridge", async () => {
    for (const pair of PROVIDER_PAIRS.filter((p) => p.adapter !== "acp-pi")) {
      const name = pairName(pair);
      const r = await comparePair({ a: pair.native, b: pair.adapter, pair: name, lanesDir, recordingsDir, cells: ["model-error", "long-output"], entries, factsOf });
      expect(
        r.differences.filter((d) => d.field === "error"),
        name,
      ).toEqual([]);
    }
    const claude = await comparePair({ a: "claude-code", b: "acp-claude", pair: "claude-code/acp-claude", lanesDir, recordingsDir, cells: ["long-output"], entries, factsOf });
    expect(claude.differences.filter((d) => d.class === "output")).toEqual([]);
  });

  it("codex/acp-codex turn-tools: the read's output (codex streams it, the ACP lane's fileRead carries it as resultText), its command and the turn diff that repeats the edit are no difference", async () => {
    const r = await comparePair({ a: "codex", b: "acp-codex", pair: "codex/acp-codex", lanesDir, recordingsDir, cells: ["turn-tools"], entries: [], factsOf });
    expect(r.differences.map((d) => d.address).filter((a) => !/: (inputTokens|outputTokens)$/.test(a))).toEqual([]);
  });

  // Copies of one cell's committed lanes and recordings with a lane field set as the bridge says it
  // today: these causes are proved on the recordings whether or not the bridge fixes have landed.
  const copies: string[] = [];
  afterAll(async () => {
    for (const dir of copies) await rm(dir, { recursive: true, force: true });
  });
  type LaneEvent = { type: string; item?: Record<string, unknown> };
  async function doctored(cell: string, providers: readonly string[], edit: (provider: string, item: Record<string, unknown>) => void): Promise<{ lanesDir: string; recordingsDir: string }> {
    const root = await mkdtemp(path.join(os.tmpdir(), "parity-pair-cell-"));
    copies.push(root);
    for (const provider of providers) {
      await mkdir(path.join(root, "lanes", provider), { recursive: true });
      const events = JSON.parse(await readFile(path.join(lanesDir, provider, `${cell}.json`), "utf8")) as LaneEvent[];
      for (const event of events) if (event.type === "item/completed" && event.item !== undefined) edit(provider, event.item);
      await writeFile(path.join(root, "lanes", provider, `${cell}.json`), `${JSON.stringify(events, null, 2)}\n`);
      await cp(path.join(recordingsDir, provider, cell), path.join(root, "recordings", provider, cell), { recursive: true });
    }
    return { lanesDir: path.join(root, "lanes"), recordingsDir: path.join(root, "recordings") };
  }

  it("an approval the native bridge answered and its lane does not carry is the native bridge's (the truth judge's command#1.approval), found through Codex's decision and Claude Code's behavior", async () => {
    for (const [a, b] of [
      ["codex", "acp-codex"],
      ["claude-code", "acp-claude"],
    ] as const) {
      // The native lane as the committed one says it: no approval status.
      const dirs = await doctored("approval-allow", [a, b], (provider, item) => {
        if (provider === a && item.type === "commandExecution") item.approvalStatus = null;
      });
      const r = await comparePair({ a, b, pair: `${a}/${b}`, ...dirs, cells: ["approval-allow"], entries: [], factsOf });
      expect(
        r.differences.find((d) => d.field === "approvalStatus"),
        a,
      ).toMatchObject({ kind: "invented", b: "approved", cause: { kind: "bridge", provider: a, truth: "command#1.approval" } });
      // Without the facts, the agent-side search still finds the native bridge's own answer.
      const bare = await comparePair({ a, b, pair: `${a}/${b}`, ...dirs, cells: ["approval-allow"], entries: [] });
      expect(bare.differences.find((d) => d.field === "approvalStatus")?.cause, a).toMatchObject({ kind: "bridge", provider: a, evidence: { dir: "bridge→provider" } });
    }
  });

  it("a read's command codex-acp sent (seq 29, rawInput.command) that the ACP lane drops is the ACP bridge's loss", async () => {
    // The ACP lane as the bridge gave it before it read the command of a read (issue 39).
    const dirs = await doctored("turn-tools", ["codex", "acp-codex"], (provider, item) => {
      if (provider === "acp-codex" && item.type === "fileRead") delete item.cmd;
    });
    const r = await comparePair({ a: "codex", b: "acp-codex", pair: "codex/acp-codex", ...dirs, cells: ["turn-tools"], entries: [], factsOf });
    expect(r.differences.find((d) => d.address === "turn 1 / read 1: cmd")).toMatchObject({
      class: "command metadata",
      kind: "lost",
      a: "cat /tmp/parity-workspace/notes.txt",
      cause: { kind: "bridge", provider: "acp-codex", evidence: { seq: 29, path: "$.params.update.rawInput.command[2]" } },
    });
  });

  it("the facts decide the cause first: acp-pi's hunkless edit diff and acp-claude-zed's fenced read are their bridges' untruths, which the agent-side search alone calls the adapters'", async () => {
    const piDirs = await doctored("turn-tools", ["pi", "acp-pi"], (provider, item) => {
      if (provider === "acp-pi" && item.type === "fileChange") (item.changes as Array<Record<string, unknown>>)[0]!.diff = "-status: draft\n+status: final\n";
    });
    const pi = await comparePair({ a: "pi", b: "acp-pi", pair: "pi/acp-pi", ...piDirs, cells: ["turn-tools"], entries: [], factsOf });
    expect(pi.differences.find((d) => d.field === "change.hunks")).toMatchObject({
      class: "diff",
      kind: "changed",
      b: "-status: draft\n+status: final\n",
      cause: { kind: "bridge", provider: "acp-pi", truth: "edit#1.diff" },
    });
    const piBare = await comparePair({ a: "pi", b: "acp-pi", pair: "pi/acp-pi", ...piDirs, cells: ["turn-tools"], entries: [] });
    expect(piBare.differences.find((d) => d.field === "change.hunks")?.cause.kind).toBe("adapter");

    const fenced = "```\ntitle: parity notes\nstatus: draft\nowner: nobody\n```";
    const zedDirs = await doctored("turn-tools", ["claude-code", "acp-claude-zed"], (provider, item) => {
      if (provider === "acp-claude-zed" && item.type === "fileRead") item.resultText = fenced;
    });
    const zed = await comparePair({ a: "claude-code", b: "acp-claude-zed", pair: "claude-code/acp-claude-zed", ...zedDirs, cells: ["turn-tools"], entries: [], factsOf });
    expect(zed.differences.find((d) => d.address === "turn 1 / read 1: output")).toMatchObject({
      class: "output",
      kind: "changed",
      b: fenced,
      cause: { kind: "bridge", provider: "acp-claude-zed", truth: "read#1.content" },
    });
  });

  it("jsdiff's Index: and ==== header lines are path spellings: acp-claude-zed's edit has claude-code's hunks", async () => {
    const r = await comparePair({ a: "claude-code", b: "acp-claude-zed", pair: "claude-code/acp-claude-zed", lanesDir, recordingsDir, cells: ["turn-tools"], entries: [] });
    expect(r.differences.some((d) => d.class === "diff")).toBe(false);
  });

  it("a changed value is the bridge's only when that side's agent sent the other value: acp-claude's 'Command timed out' line is the adapter's; both agents' input tokens agree", async () => {
    const r = await comparePair({ a: "claude-code", b: "acp-claude", pair: "claude-code/acp-claude", lanesDir, recordingsDir, cells: ["zero-work", "command-signal"], entries: [], factsOf });
    // The pair once differed here (2030 against 2050): the loopback model numbered its answers among
    // all requests, and claude-agent-acp's Claude Code sends a reachability check first, so its
    // answers counted one request more. Numbered among conversation requests, both sides agree.
    expect(r.differences.find((d) => d.cell === "zero-work" && d.field === "inputTokens")).toBeUndefined();
    expect(r.differences.find((d) => d.cell === "command-signal" && d.field === "output")).toMatchObject({
      kind: "changed",
      a: "before the signal\nTerminated",
      b: "Command timed out after 2m 0s\nbefore the signal\nTerminated",
      cause: { kind: "adapter" },
    });
  });

  it("acp-pi's command-fails through the pi dialect: exit code and output agree with pi's native lane; the missing cwd is the adapter's", async () => {
    const r = await comparePair({ a: "pi", b: "acp-pi", pair: "pi/acp-pi", lanesDir, recordingsDir, cells: ["command-fails"], entries: [] });
    // Before the pi dialect (issue 37) pi-acp's "Command exited with code 3" trailer stayed in the
    // output and the exit code was lost: both were the ACP bridge's differences.
    expect(r.differences.find((d) => d.field === "exitCode")).toBeUndefined();
    expect(r.differences.find((d) => d.field === "output")).toBeUndefined();
    expect(r.differences.find((d) => d.field === "cwd")).toMatchObject({ class: "command metadata", kind: "lost", cause: { kind: "adapter", provider: "acp-pi" } });
  });

  it("evidence is read inside the turn: acp-claude's usage sent in turn 2 (seq 55) is no proof for the interrupted turn 1", async () => {
    const r = await comparePair({ a: "claude-code", b: "acp-claude", pair: "claude-code/acp-claude", lanesDir, recordingsDir, cells: ["stop-interrupt"], entries: [] });
    expect(r.differences.find((d) => d.address === "turn 1: inputTokens")).toMatchObject({ kind: "lost", cause: { kind: "adapter", provider: "acp-claude" } });
    // Turn 2's counts, sent at seq 55, agree with the native lane's (1020 input tokens on both sides).
    expect(r.differences.find((d) => d.address === "turn 2: inputTokens")).toBeUndefined();
  });

  it("a turn diff is folded away only while it repeats the turn's edits: one with a hunk no edit has stays a datum", async () => {
    const events = JSON.parse(await readFile(path.join(lanesDir, "codex", "turn-tools.json"), "utf8")) as Array<{ type: string; diff?: string }>;
    expect(foldLane(events).turns[0]!.fields.turnDiff).toBeUndefined();
    const extra = "\n@@ -9,1 +9,1 @@\n-a\n+b\n";
    const doctored = events.map((e) => (e.type === "turn/diff/updated" ? { ...e, diff: `${e.diff}${extra}` } : e));
    expect(foldLane(doctored).turns[0]!.fields.turnDiff).toContain("@@ -9,1 +9,1 @@");
  });

  it("git's file mode lines and a hunk header's left-out count of 1 are spelling: codex's turn diff of a new file repeats its edit and is folded away", async () => {
    const events = JSON.parse(await readFile(path.join(lanesDir, "codex", "new-file-folder.json"), "utf8")) as Array<{ type: string; diff?: string }>;
    expect(events.some((e) => e.type === "turn/diff/updated" && e.diff?.includes("new file mode") === true && e.diff.includes("@@ -0,0 +1 @@"))).toBe(true);
    const turn = foldLane(events).turns[0]!;
    expect(turn.fields.turnDiff).toBeUndefined();
    expect(turn.items.find((item) => item.kind === "edit")?.fields["change.hunks"]).toBe("@@ -0,0 +1,1 @@\n+hello\n");
  });

  it("two tool calls of one model answer that complete in the other order are paired, not lost and invented (codex/acp-codex two-tool-calls)", async () => {
    const r = await comparePair({ a: "codex", b: "acp-codex", pair: "codex/acp-codex", lanesDir, recordingsDir, cells: ["two-tool-calls"], entries: [] });
    expect(r.differences.filter((d) => d.field === "item")).toEqual([]);
    expect(r.differences.find((d) => d.address === "turn 1 / read 1: cmd")).toBeUndefined();
  });

  it("the HTML page escapes what the lanes hold and makes steering characters visible", () => {
    const html = renderPairHtml({
      a: "codex",
      b: "acp-codex",
      pair: "codex/acp-codex",
      cells: ["c"],
      stale: [],
      unpaired: [{ cell: "fork", recordedBy: "codex", reason: "<script>no fork</script>" }],
      differences: [
        { cell: "c", class: "output", kind: "changed", address: "turn 1 / command 1: output", field: "output", a: "<b>x</b>\u202e", b: "y", cause: { kind: "adapter", provider: "acp-codex" } },
      ],
    });
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;\\u202e");
    expect(html).not.toContain("<b>x</b>");
    expect(html).toContain("not compared: fork (only codex recorded it: &lt;script&gt;no fork&lt;/script&gt;)");
  });

  it("a pair entry is validated in its own files, which parity check's loader never reads", async () => {
    const good = { pair: "codex/acp-codex", class: "usage", cell: "*", pr: "#39", reason: "r" };
    expect(parsePairAllowlist([good], "x.json")).toEqual([{ ...good, source: { file: "x.json", index: 0 } }]);
    expect(() => parsePairAllowlist([{ ...good, class: "speed" }], "x.json")).toThrow(/entry 0: class: class must be one of/);
    expect(() => parsePairAllowlist([{ ...good, pr: "39" }], "x.json")).toThrow(/entry 0: pr: /);
    expect((await loadAllowlists({ cwd: repoRoot })).some((entry) => "pair" in entry)).toBe(false);
  });

  it("the CLI over the committed matrix: exit 0 with the adapters' losses allowed and no bridge cause", async () => {
    const ok = await runCli(["compare", "pi", "acp-pi"], { cwd: repoRoot });
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    const doc = JSON.parse((await runCli(["compare", "pi", "acp-pi", "--json"], { cwd: repoRoot })).out) as { counts: { total: number; bridge: number; adapter: number; allowed: number } };
    expect(doc.counts.allowed).toBe(doc.counts.adapter);
    expect(doc.counts.bridge).toBe(0);
    expect(ok.out).toMatch(new RegExp(`^${doc.counts.total} differences: .*; cause adapter ${doc.counts.adapter}, bridge 0; allowed ${doc.counts.allowed}, not allowed 0$`, "m"));
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
    await mkdir(path.join(root, "allowlists", "pairs"), { recursive: true });
    // The committed acp-codex entries that speak of these two cells (the others would be stale here).
    const committed = JSON.parse(await readFile(path.join(repoRoot, "allowlists", "pairs", "acp-codex.json"), "utf8")) as Array<{ cell: string }>;
    const here = committed.filter((entry) => entry.cell === "*" || entry.cell === "turn-tools" || entry.cell === "command-fails");
    expect(here.length).toBeGreaterThan(0);
    await writeFile(path.join(root, "allowlists", "pairs", "acp-codex.json"), `${JSON.stringify(here, null, 2)}\n`);
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

  it('the CLI: a difference our bridge caused fails (PAIR_BRIDGE_CAUSES "fail"), named with class, cell and cause, beside the adapters\' allowed losses', async () => {
    expect(PAIR_BRIDGE_CAUSES).toBe("fail");
    const failed = await runCli(["compare", "codex", "acp-codex"], { cwd: root });
    expect(failed.err).toBe("");
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/^parity compare codex acp-codex: 2 cells \(command-fails, turn-tools\)$/m);
    expect(failed.out).toMatch(/^usage — 4: 4 lost, 0 changed, 0 invented; adapter 4, bridge 0$/m);
    expect(failed.out).toMatch(/^ {2}BRIDGE {2}lost {5}command-fails turn 1 \/ command 1: exitCode$/m);
    expect(failed.out).toMatch(/^ {2}exit code \(cause bridge acp-codex\): command-fails$/m);
    expect(failed.out).toMatch(/; cause adapter 4, bridge 1; allowed 4, not allowed 1$/m);
    // The providers in either order: the declared pair's native side is A.
    const swapped = await runCli(["compare", "acp-codex", "codex", "--json"], { cwd: root });
    const doc = JSON.parse(swapped.out) as { pair: string; counts: { adapter: number; allowed: number } };
    expect(doc.pair).toBe("codex/acp-codex");
    expect(doc.counts.allowed).toBe(doc.counts.adapter);
    expect(swapped.code).toBe(1);
    // The lane restored: the adapters' allowed losses alone pass.
    await cp(path.join(lanesDir, "acp-codex", "command-fails.json"), path.join(root, "lanes", "acp-codex", "command-fails.json"));
    const ok = await runCli(["compare", "codex", "acp-codex"], { cwd: root });
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/; cause adapter 4, bridge 0; allowed 4, not allowed 0$/m);
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

  it("an entry that masks nothing in any selected cell is stale: one line naming file, entry and scope, exit 1; with --cell, an entry for another cell is not judged", async () => {
    const extra = path.join(root, "extra.json");
    await writeFile(
      extra,
      JSON.stringify([
        { pair: "codex/acp-codex", class: "session state", cell: "*", pr: "#39", reason: "nothing to mask" },
        { pair: "codex/acp-codex", class: "flow", cell: "resume", pr: "#39", reason: "a cell the pair does not share here" },
      ]),
    );
    const r = await runCli(["compare", "codex", "acp-codex", "--allowlist", extra], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^stale pair entry extra\.json entry 0 \(codex\/acp-codex, class session state, cell \*, #39\): masks no difference in any selected cell — remove it$/m);
    // Every common cell was selected, so an entry naming a cell the pair does not share is stale too.
    expect(r.out).toMatch(/^stale pair entry extra\.json entry 1 \(codex\/acp-codex, class flow, cell resume, #39\): masks no difference/m);
    const one = await runCli(["compare", "codex", "acp-codex", "--cell", "turn-tools", "--allowlist", extra], { cwd: root });
    expect(one.out).toMatch(/^stale pair entry extra\.json entry 0 /m);
    expect(one.out).not.toMatch(/extra\.json entry 1/);
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
    const typo = path.join(root, "typo.json");
    await writeFile(typo, JSON.stringify([{ pair: "codex/acp-codx", class: "usage", cell: "*", pr: "#39", reason: "r" }]));
    const bad = await runCli(["compare", "codex", "acp-codex", "--allowlist", typo], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split("\n")).toHaveLength(1);
    expect(bad.err).toMatch(/typo\.json: entry 0: pair: "codex\/acp-codx" names acp-codx, which has no oracles under lanes\//);
  });
});
