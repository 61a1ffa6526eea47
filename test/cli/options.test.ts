import { availableParallelism } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveCheckOptions, resolveReporter } from "../../harness/cli/check.js";
import type { CliContext } from "../../harness/cli/context.js";
import { resolveRecordOptions } from "../../harness/cli/record.js";
import { resolveReplayCommandOptions } from "../../harness/cli/replay.js";
import { resolveRerecordOptions } from "../../harness/cli/rerecord.js";
import { RECORD_STEP_TIMEOUT_MS } from "../../harness/defaults.js";
import { UsageError } from "../../harness/errors.js";
import { repoRoot } from "./run-cli.js";

const ctx = (ci = false): CliContext => ({ ci, cwd: repoRoot }) as CliContext;

describe("options resolved once: each command's argv becomes one complete, typed options object", () => {
  it("check with no flags: the project's recordings and lanes, every core, batching, the text reporter, no ceiling override", async () => {
    const options = await resolveCheckOptions({}, ctx());
    expect(options).toMatchObject({
      reporter: "text",
      explain: false,
      update: false,
      jobs: availableParallelism(),
      replay: {},
      selection: { roots: [path.join(repoRoot, "recordings")], filter: { provider: undefined, cell: undefined } },
      allowlistFiles: [],
      lanesDir: path.join(repoRoot, "lanes"),
      lanesGiven: false,
      batch: true,
    });
    expect(options.shard).toBeUndefined();
  });

  it("check parses --jobs, --timeout and --shard into numbers and keeps --no-batch", async () => {
    const options = await resolveCheckOptions({ jobs: "3", timeout: "250", shard: "2/4", batch: false, lanes: "lanes", allowlist: ["a.json"] }, ctx());
    expect(options).toMatchObject({ jobs: 3, replay: { timeouts: { ceilingMs: 250 } }, shard: { index: 2, count: 4 }, batch: false, lanesGiven: true, allowlistFiles: ["a.json"] });
  });

  it("a reporter outside the closed set is one line naming the valid ones; --json beside another reporter is refused", () => {
    expect(() => resolveReporter({ reporter: "xml" })).toThrow(new UsageError('unknown reporter "xml": use one of text, json, junit, github, html, blob (--reporter)'));
    expect(() => resolveReporter({ reporter: "junit", json: true })).toThrow(new UsageError("--json and --reporter junit disagree; give one of them"));
    expect(resolveReporter({ reporter: "text", json: true })).toBe("json");
  });

  it("--timeout is parsed one way wherever a command waits: the same one-line error names the flag and the value", async () => {
    const message = "--timeout 1.5: expected a positive whole number of ms";
    await expect(resolveCheckOptions({ timeout: "1.5" }, ctx())).rejects.toThrow(message);
    await expect(resolveReplayCommandOptions({ timeout: "1.5", dir: "x" }, repoRoot)).rejects.toThrow(message);
    expect(() => resolveRerecordOptions({ timeout: "1.5" }, repoRoot)).toThrow(message);
    expect(() => resolveRecordOptions({ provider: "echo", cell: "turn", timeout: "1.5" }, repoRoot)).toThrow(message);
  });

  it("replay names its cell by directory or by --provider and --cell, and says so when given neither", async () => {
    expect((await resolveReplayCommandOptions({ dir: "recordings/echo/turn", timeline: true }, repoRoot)).target).toEqual({ dir: path.join(repoRoot, "recordings/echo/turn") });
    const named = await resolveReplayCommandOptions({ provider: "echo", cell: "turn", json: true }, repoRoot);
    expect(named).toMatchObject({ target: { provider: "echo", cell: "turn", roots: [path.join(repoRoot, "recordings")] }, output: "json" });
    await expect(resolveReplayCommandOptions({ provider: "echo" }, repoRoot)).rejects.toThrow("name one cell");
  });

  it("rerecord's oracles default to lanes/, or <out>/lanes with --out", () => {
    expect(resolveRerecordOptions({}, repoRoot).lanesDir).toBe(path.join(repoRoot, "lanes"));
    expect(resolveRerecordOptions({ out: "/tmp/rr" }, repoRoot)).toMatchObject({ outDir: "/tmp/rr", lanesDir: "/tmp/rr/lanes", alwaysCurrent: false });
    expect(() => resolveRerecordOptions({ verify: false }, repoRoot)).toThrow(/^--no-verify: rerecord always replays/);
  });

  it("record: defaults from harness/defaults.ts; an unknown --network is refused naming the valid modes", () => {
    expect(resolveRecordOptions({ provider: "echo", cell: "turn" }, repoRoot)).toMatchObject({
      out: path.join(repoRoot, "recordings"),
      lanes: path.join(repoRoot, "lanes"),
      cellsRoot: path.join(repoRoot, "cells"),
      timeoutMs: RECORD_STEP_TIMEOUT_MS,
      network: "auto",
      redact: [],
    });
    expect(() => resolveRecordOptions({ provider: "echo", cell: "turn", network: "wifi" }, repoRoot)).toThrow(new UsageError("--network wifi: use one of auto, netns, watch"));
  });
});

describe("list, lanes and diff resolve their flags the same way", () => {
  it("list and lanes share the recordings selection; --lanes and --out are resolved against the working directory", async () => {
    const { resolveListOptions } = await import("../../harness/cli/list.js");
    const { resolveLanesOptions } = await import("../../harness/cli/lanes.js");
    expect(resolveListOptions({ provider: "echo" }, repoRoot)).toEqual({
      selection: { roots: [path.join(repoRoot, "recordings")], filter: { provider: "echo", cell: undefined } },
      lanesDir: path.join(repoRoot, "lanes"),
      lanesGiven: false,
      json: false,
    });
    expect(resolveLanesOptions({ out: "out", recorded: true }, repoRoot)).toMatchObject({ out: { value: "out", dir: path.join(repoRoot, "out") }, recorded: true, json: false });
    expect(() => resolveListOptions({ recordings: ["no-such-root"] }, repoRoot)).toThrow(`--recordings no-such-root: directory not found (${path.join(repoRoot, "no-such-root")})`);
  });

  it("diff: --context defaults to 3 lines and must be a whole number ≥ 0; an empty --html writes nothing", async () => {
    const { resolveDiffOptions } = await import("../../harness/cli/diff.js");
    expect(resolveDiffOptions({ a: "main", b: "HEAD" }, repoRoot)).toEqual({ a: "main", b: "HEAD", context: 3, json: false, full: false });
    expect(resolveDiffOptions({ a: "x", b: "y", context: "0", html: "" }, repoRoot).html).toBeUndefined();
    expect(() => resolveDiffOptions({ a: "x", b: "y", context: "-1" }, repoRoot)).toThrow("--context -1: expected a whole number ≥ 0 of lines");
  });
});
