import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 37, build point 8: a lane that stays the same as its oracle can still be untrue. Each test
// copies a committed recording with its cell, facts, oracle and truth entries into a temp project,
// doctors one agent-side line (what the agent said), refreshes the oracle (`parity rerecord`) so
// the sameness check passes, and proves the truth check fails naming the right fact and cause.
// Without the truth check every doctored cell here passes: its diffs are empty.

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** A temp project holding `provider/cell` as the repository does: cell (with its facts), recording, oracle, truth entries. */
async function project(provider: string, cell: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-truth-"));
  temps.push(dir);
  await cp(path.join(repoRoot, "cells", cell), path.join(dir, "cells", cell), { recursive: true });
  await cp(path.join(repoRoot, "recordings", provider, cell), path.join(dir, "recordings", provider, cell), { recursive: true });
  await mkdir(path.join(dir, "lanes", provider), { recursive: true });
  await cp(path.join(repoRoot, "lanes", provider, `${cell}.json`), path.join(dir, "lanes", provider, `${cell}.json`));
  const entries = path.join(repoRoot, "allowlists", "truth", `${provider}.json`);
  if (existsSync(entries)) {
    await mkdir(path.join(dir, "allowlists", "truth"), { recursive: true });
    await cp(entries, path.join(dir, "allowlists", "truth", `${provider}.json`));
  }
  return dir;
}

/** Rewrites the agent-side line `seq` of `provider→bridge.ndjson`: `edit` gets the line's JSON-RPC message, parsed, and changes it. */
async function doctor(dir: string, provider: string, cell: string, seq: number, edit: (message: Record<string, any>) => void): Promise<void> {
  const file = path.join(dir, "recordings", provider, cell, "provider→bridge.ndjson");
  const lines = (await readFile(file, "utf8")).split("\n");
  let hit = 0;
  const out = lines.map((text) => {
    if (text === "") return text;
    const entry = JSON.parse(text) as { seq: number; line: string };
    if (entry.seq !== seq) return text;
    hit += 1;
    const message = JSON.parse(entry.line) as Record<string, any>;
    edit(message);
    return JSON.stringify({ ...entry, line: JSON.stringify(message) });
  });
  expect(hit, `seq ${seq} in ${file}`).toBe(1);
  await writeFile(file, out.join("\n"));
}

interface TruthCell {
  status: string;
  diffs: unknown[];
  truth?: { findings: Array<{ fact: string; kind: string; cause: string; evidence: Array<{ seq: number }> }>; table: Array<{ fact: string; verdict: string; cause?: string }> };
}

async function check(dir: string, provider: string, cell: string, extra: string[] = []): Promise<{ code: number; cell: TruthCell; err: string }> {
  const r = await runCli(["check", "--provider", provider, "--cell", cell, "--reporter", "json", "--no-batch", ...extra], { cwd: dir, ci: true });
  const report = JSON.parse(r.out) as { cells: TruthCell[] };
  return { code: r.code, cell: report.cells[0]!, err: r.err };
}

async function rerecord(dir: string, provider: string, cell: string, extra: string[] = []): Promise<void> {
  const r = await runCli(["rerecord", "--provider", provider, "--cell", cell, ...extra], { cwd: dir });
  expect(r.code, r.err).toBe(0);
}

const verdictOf = (cell: TruthCell, fact: string) => cell.truth?.table.find((j) => j.fact === fact);

describe("a doctored agent-side line, its oracle refreshed: sameness passes, the truth check fails naming the cause", () => {
  it("exit code: the fixture agent says exit 4 for `wc -l` (seq 28): command#1.exit changed by the adapter", async () => {
    const dir = await project("acp-grok", "turn-tools");
    const before = await check(dir, "acp-grok", "turn-tools");
    expect(before.code, before.err).toBe(0);
    expect(verdictOf(before.cell, "command#1.exit")).toEqual({ fact: "command#1.exit", verdict: "true" });

    await doctor(dir, "acp-grok", "turn-tools", 28, (m) => (m.params.update.rawOutput.exit_code = 4));
    await rerecord(dir, "acp-grok", "turn-tools");
    const after = await check(dir, "acp-grok", "turn-tools");
    expect(after.cell.diffs).toEqual([]);
    expect(after.cell.status).toBe("untrue");
    expect(after.code).toBe(1);
    expect(after.cell.truth!.findings.find((f) => f.fact === "command#1.exit")).toMatchObject({ kind: "changed", cause: "adapter" });
  });

  it("an output byte: the fixture agent says `3 notes.tXt` (seq 28): command#1.output changed by the adapter, the agent's own line named", async () => {
    const dir = await project("acp-grok", "turn-tools");
    await doctor(dir, "acp-grok", "turn-tools", 28, (m) => (m.params.update.rawOutput.stdout = "3 notes.tXt\n"));
    await rerecord(dir, "acp-grok", "turn-tools");
    const after = await check(dir, "acp-grok", "turn-tools");
    expect(after.cell.diffs).toEqual([]);
    expect(after.cell.status).toBe("untrue");
    expect(after.cell.truth!.findings.find((f) => f.fact === "command#1.output")).toMatchObject({ kind: "changed", cause: "adapter", evidence: [{ seq: 28 }] });
  });

  it("a dropped read result: codex's `cat` output gone (seq 40's delta emptied, its item/completed's aggregatedOutput null): read#1.content lost by the adapter, no longer by the bridge", async () => {
    const dir = await project("codex", "turn-tools");
    const before = await check(dir, "codex", "turn-tools");
    expect(before.code, before.err).toBe(0);
    expect(verdictOf(before.cell, "read#1.content")?.cause).not.toBe("adapter");

    const notes = "title: parity notes\nstatus: draft\nowner: nobody\n";
    const file = path.join(dir, "recordings", "codex", "turn-tools", "provider→bridge.ndjson");
    const seqs = (await readFile(file, "utf8"))
      .split("\n")
      .filter((t) => t !== "" && JSON.parse(JSON.parse(t).line as string) && (JSON.parse(t).line as string).includes(JSON.stringify(notes).slice(1, -1)))
      .map((t) => JSON.parse(t).seq as number);
    expect(seqs.length).toBeGreaterThan(0);
    for (const seq of seqs) {
      await doctor(dir, "codex", "turn-tools", seq, (m) => {
        const p = m.params;
        if (typeof p?.delta === "string" && p.delta === notes) p.delta = "";
        // null, not "": an agent that says the read returned nothing has changed the fact, one that says nothing has lost it.
        if (p?.item?.aggregatedOutput === notes) p.item.aggregatedOutput = null;
      });
    }
    await rerecord(dir, "codex", "turn-tools");
    const after = await check(dir, "codex", "turn-tools");
    expect(after.cell.diffs).toEqual([]);
    expect(after.cell.status).toBe("untrue");
    expect(after.cell.truth!.findings.find((f) => f.fact === "read#1.content")).toMatchObject({ kind: "lost", cause: "adapter" });
  });
});

describe("a bridge that drops a fact the agent sent: cause bridge", () => {
  it("a bridge module that strips every exitCode: command#1.exit lost by the bridge, evidence seq 28; it fails the check (BRIDGE_UNTRUTHS fail), also under --strict-truth", async () => {
    const dir = await project("acp-grok", "turn-tools");
    const wrapper = path.join(dir, "no-exit-codes.mjs");
    await writeFile(
      wrapper,
      [
        `import { experimental_providerBridge as real } from ${JSON.stringify(path.join(repoRoot, "dist/stack/acp/bridge.js"))};`,
        "const strip = (v) => Array.isArray(v) ? v.map(strip) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'exitCode').map(([k, x]) => [k, strip(x)])) : v;",
        "const wrapped = new WeakMap();",
        // The bootstrap's context and io are frozen: the wrapper hands the bridge copies whose notify strips exitCode.
        "const wrap = (ctx) => {",
        "  if (!wrapped.has(ctx)) {",
        "    const t = ctx.io;",
        "    const io = { sendResult: (...a) => t.sendResult(...a), sendError: (...a) => t.sendError(...a), notify: (m, p) => t.notify(m, strip(p)), request: (...a) => t.request(...a), acceptResponse: (m) => t.acceptResponse(m), rejectPending: (e) => t.rejectPending(e), get pendingCount() { return t.pendingCount; } };",
        "    wrapped.set(ctx, { providerId: ctx.providerId, dataDir: ctx.dataDir, tempDir: ctx.tempDir, env: ctx.env, io, log: (text) => ctx.log(text) });",
        "  }",
        "  return wrapped.get(ctx);",
        "};",
        "export const experimental_providerBridge = Object.freeze({ protocolVersion: 2, handleLine: (line, ctx, message) => real.handleLine(line, wrap(ctx), message), ...(real.start ? { start: (ctx) => real.start(wrap(ctx)) } : {}), ...(real.onClose ? { onClose: (ctx) => real.onClose(wrap(ctx)) } : {}) });",
        "",
      ].join("\n"),
    );
    await rerecord(dir, "acp-grok", "turn-tools", ["--module", wrapper]);
    const failed = await check(dir, "acp-grok", "turn-tools", ["--module", wrapper]);
    expect(failed.cell.diffs).toEqual([]);
    expect(failed.cell.status).toBe("untrue");
    expect(failed.code).toBe(1);
    const finding = failed.cell.truth!.findings.find((f) => f.fact === "command#1.exit");
    expect(finding).toMatchObject({ kind: "lost", cause: "bridge", evidence: [{ seq: 28 }] });

    const strict = await check(dir, "acp-grok", "turn-tools", ["--module", wrapper, "--strict-truth"]);
    expect(strict.cell.status).toBe("untrue");
    expect(strict.code).toBe(1);
  });
});
