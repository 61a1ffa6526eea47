import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { readRecording } from "../../harness/recording/reader.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { repoRoot, runCli } from "../cli/run-cli.js";

/** One project dir per test: cells/, recordings/, lanes/ and a private TMPDIR. */
interface Project {
  root: string;
  cells: string;
  out: string;
  lanes: string;
  temp: string;
}

const projects: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(cells: Record<string, unknown>): Project {
  const root = mkdtempSync(path.join(tmpdir(), "record-test-"));
  projects.push(root);
  const p = { root, cells: path.join(root, "cells"), out: path.join(root, "recordings"), lanes: path.join(root, "lanes"), temp: path.join(root, "tmp") };
  mkdirSync(p.temp, { recursive: true });
  // In-process runs make their temp root under os.tmpdir(), which follows TMPDIR.
  vi.stubEnv("TMPDIR", p.temp);
  for (const [name, definition] of Object.entries(cells)) {
    mkdirSync(path.join(p.cells, name), { recursive: true });
    writeFileSync(path.join(p.cells, name, "cell.json"), JSON.stringify(definition));
  }
  return p;
}

const echoCell = (text: string, until: unknown = "turn/completed") => ({
  description: "Echo one prompt.",
  threadId: "thr_echo_record",
  options: { permissionMode: "full" },
  steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text, until }],
});

const record = (p: Project, cell: string, extra: string[] = []) =>
  runCli(["record", "--provider", "echo", "--cell", cell, "--cells", p.cells, "--out", p.out, "--lanes", p.lanes, ...extra], { cwd: p.root });

/** Everything under `dir`, as relative paths (empty when it does not exist). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("parity record (echo bridge)", () => {
  it("writes a redacted recording, its manifest and its oracle; the lane is the recording's", async () => {
    const p = project({ "echo-turn": echoCell("Say hi to alice@corp.example.com from /home/alice") });
    const result = await record(p, "echo-turn");
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const dir = path.join(p.out, "echo", "echo-turn");
    const recording = await readRecording(dir);
    expect(recording.manifest).toMatchObject({ provider: "echo", cell: "echo-turn", threadId: "thr_echo_record", scope: "thread", bridgeRuns: 1 });
    expect(recording.manifest.lines["runtime→bridge"]).toBe(recording.lanes["runtime→bridge"].length);
    // The echo bridge is this package: its version is the package's, as in the committed manifests
    // (it was "bridge-parity echo" alone, so a fresh echo recording's version differed from its oracle's).
    const committed = JSON.parse(readFileSync(path.join(repoRoot, "recordings", "echo", "turn", "manifest.json"), "utf8")) as { cliVersion: string };
    expect(recording.manifest.cliVersion).toBe(committed.cliVersion);
    expect(committed.cliVersion).toMatch(/^bridge-parity echo \d+\.\d+\.\d+$/);
    const text = readFileSync(path.join(dir, "runtime→bridge.ndjson"), "utf8");
    expect(text).toContain("user@example.com");
    expect(text).not.toContain("alice@corp.example.com");
    expect(text).not.toContain(p.temp);
    expect(text).toContain("/tmp/parity-workspace");
    const oracle = JSON.parse(readFileSync(path.join(p.lanes, "echo", "echo-turn.json"), "utf8")) as Array<{ type: string }>;
    expect(oracle.map((e) => e.type)).toContain("turn/completed");
    expect(tree(p.temp)).toEqual([]);
    expect(result.out).toMatch(/^recorded echo\/echo-turn: runtime→bridge \d+, bridge→runtime \d+, provider→bridge 0, bridge→provider 0\n/);
  });

  it("never overwrites a recording: exit 2, says how to record under a new cell name, leaves it byte for byte", async () => {
    const p = project({ "echo-turn": echoCell("Hello.") });
    expect((await record(p, "echo-turn")).code).toBe(0);
    const dir = path.join(p.out, "echo", "echo-turn");
    const before = tree(dir).map((f) => [f, readFileSync(path.join(dir, f), "utf8")]);
    const oracleBefore = readFileSync(path.join(p.lanes, "echo", "echo-turn.json"), "utf8");
    const again = await record(p, "echo-turn");
    expect(again.code).toBe(2);
    expect(again.err).toBe(
      `parity: ${dir}: a recording already exists here and is never overwritten; record under a new cell name instead (copy cells/echo-turn to cells/echo-turn-2 and run \`parity record --provider echo --cell echo-turn-2\`), or remove it deliberately\n`,
    );
    expect(tree(dir).map((f) => [f, readFileSync(path.join(dir, f), "utf8")])).toEqual(before);
    expect(readFileSync(path.join(p.lanes, "echo", "echo-turn.json"), "utf8")).toBe(oracleBefore);
  });

  it("refuses when only the oracle exists", async () => {
    const p = project({ "echo-turn": echoCell("Hello.") });
    mkdirSync(path.join(p.lanes, "echo"), { recursive: true });
    writeFileSync(path.join(p.lanes, "echo", "echo-turn.json"), "[]\n");
    const result = await record(p, "echo-turn");
    expect(result.code).toBe(2);
    expect(result.err).toContain("an oracle already exists here");
    expect(tree(p.out)).toEqual([]);
  });

  it("a secret that survives redaction: exit 3 with file:line, nothing written; --redact covers it", async () => {
    const p = project({ "echo-secret": echoCell("Print SERVICE_TOKEN=abcdefgh12345 please") });
    const result = await record(p, "echo-secret");
    expect(result.code).toBe(3);
    const lines = result.err.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^parity: echo\/echo-secret\/bridge→runtime\.ndjson:\d+: secret assignment survived redaction \(SERV… \(27 chars\)\)$/);
    expect(lines.at(-1)).toMatch(/match\(es\) survived redaction; nothing was written/);
    expect(result.err).not.toContain("abcdefgh12345");
    expect(tree(p.out)).toEqual([]);
    expect(tree(p.lanes)).toEqual([]);
    expect(tree(p.temp)).toEqual([]);

    const covered = await record(p, "echo-secret", ["--redact", "SERVICE_TOKEN=[a-z0-9]+"]);
    expect(covered.code).toBe(0);
    const dir = path.join(p.out, "echo", "echo-secret");
    for (const file of tree(dir)) expect(readFileSync(path.join(dir, file), "utf8")).not.toContain("abcdefgh12345");
  });

  it("is refused under CI=true unless --out and the oracles are outside the repository", async () => {
    const inRepo = await runCli(["record", "--provider", "echo", "--cell", "zero-work"], { ci: true });
    expect(inRepo.code).toBe(2);
    expect(inRepo.err).toMatch(/^parity: CI=true: parity record writes recordings and oracles; point --out/);
    const p = project({ "echo-turn": echoCell("Hello.") });
    expect((await runCli(["record", "--provider", "echo", "--cell", "echo-turn", "--cells", p.cells, "--out", p.out], { ci: true, cwd: p.root })).code).toBe(0);
    expect(existsSync(path.join(p.root, "lanes", "echo", "echo-turn.json"))).toBe(true);
  });

  it("unknown provider and cell are usage errors naming the known ones", async () => {
    const p = project({ "echo-turn": echoCell("Hello.") });
    expect((await runCli(["record", "--provider", "nope", "--cell", "echo-turn", "--cells", p.cells, "--out", p.out], { cwd: p.root })).err).toMatch(
      /--provider "nope": parity record knows acp-opencode, acp-qwen, acp-copilot, acp-gemini, acp-claude, acp-claude-zed, acp-codex, acp-omp, acp-pi, codex, claude-code, pi, echo, acp-cursor, acp-grok, acp-omp-fixture, acp-hermes-agent/,
    );
    expect((await record(p, "missing")).err).toMatch(/unknown cell "missing".*known: echo-turn/);
  });

  it("a cell that does not go as scripted (an answer never asked for) writes nothing", async () => {
    const p = project({ "echo-turn": { ...echoCell("Hello."), answers: [{ kind: "approval", decision: "allow_once" }] } });
    const result = await record(p, "echo-turn");
    expect(result.code).toBe(1);
    expect(result.err).toContain("1 scripted answer(s) were never asked for");
    expect(tree(p.out)).toEqual([]);
    expect(tree(p.temp)).toEqual([]);
  });
});

describe("parity record cleanup", () => {
  beforeAll(() => {
    expect(existsSync(path.join(repoRoot, "dist", "harness", "cli", "main.js"))).toBe(true);
  });

  const waitForever = {
    ...echoCell("Hello."),
    steps: [...echoCell("Hello.").steps, { op: "wait", until: { event: "item/started", itemType: "commandExecution" } }],
  };
  it.each([
    ["mid-turn", "echo-hold", echoCell("/hold Working on a long task."), "step 3/3: turn/start"],
    ["during a wait step", "echo-wait", waitForever, "step 4/4: wait"],
  ])("SIGINT %s: exits at once, the bridge is gone, the temp dir removed, nothing written", async (_what, cell, definition, lastStep) => {
    const p = project({ [cell]: definition });
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, "bin", "parity.js"), "record", "--provider", "echo", "--cell", cell, "--cells", p.cells, "--out", p.out, "--lanes", p.lanes, "--verbose"],
      { cwd: p.root, env: { ...process.env, TMPDIR: p.temp, CI: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    let bridgePid = 0;
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        bridgePid = Number(/bridge pid (\d+)/.exec(stderr)?.[1] ?? 0);
        // The last step is the held turn: the turn is open when the echo streams its text.
        if (stderr.includes(lastStep)) resolve();
      });
    });
    expect(bridgePid).toBeGreaterThan(0);
    // The run's temp files live in its session dir under TMPDIR; the bridge's own temp dir inside the record root.
    expect(tree(p.temp).some((f) => /^parity-[^/]+\/rec-\d{8}$/.test(f))).toBe(true);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("parity: interrupted: the agent and bridge were stopped, the temp directory removed, nothing written");
    expect(alive(bridgePid)).toBe(false);
    expect(tree(p.temp)).toEqual([]);
    expect(tree(p.out)).toEqual([]);
    expect(tree(p.lanes)).toEqual([]);
  });

  it("an aborted in-process run cleans up the same way", async () => {
    const p = project({ "echo-hold": echoCell("/hold Working.") });
    const controller = new AbortController();
    let root = "";
    const run = recordCell({
      providerId: "echo",
      cell: "echo-hold",
      cellsRoot: p.cells,
      outRoot: p.out,
      lanesRoot: p.lanes,
      redact: [],
      now: () => 0,
      signal: controller.signal,
      tempParent: p.temp,
      onStep: (index, _step, info) => {
        root = info.root;
        if (index === 2) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/^interrupted/);
    expect(root.startsWith(p.temp)).toBe(true);
    expect(existsSync(root)).toBe(false);
    expect(tree(p.out)).toEqual([]);
  });
});
