import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./run-cli.js";

// `parity allow --json` (every other command that reports has --json): one object per run, the
// same `action` and `written` keys in each mode (harness/cli/allow-json.ts), nothing else on stdout.

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A project holding the echo recordings and oracles, and `allowlists/echo.json` with `entries`. */
async function project(entries: unknown[] = []): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-allow-json-"));
  scratch.push(dir);
  await cp(path.join(repoRoot, "recordings/echo"), path.join(dir, "recordings/echo"), { recursive: true });
  await cp(path.join(repoRoot, "lanes/echo"), path.join(dir, "lanes/echo"), { recursive: true });
  await mkdir(path.join(dir, "allowlists"));
  if (entries.length > 0) await writeFile(path.join(dir, "allowlists/echo.json"), `${JSON.stringify(entries, null, 2)}\n`);
  return dir;
}

const entry = { provider: "echo", cell: "turn", layer: "events", path: "/*[type=item/agentMessage/delta]/delta", pr: "#5", reason: "chunks may split differently" };

describe("parity allow --json", () => {
  it("add: the entry as written (a position turned into its selector), its file and index, the note", async () => {
    const dir = await project();
    const r = await runCli(["allow", "--provider", "echo", "--cell", "turn", "--path", "/4/delta", "--pr", "#5", "--reason", "chunks", "--json"], { cwd: dir });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { entry: { path: string }; note: string };
    const onDisk = JSON.parse(await readFile(path.join(dir, "allowlists/echo.json"), "utf8")) as unknown[];
    expect(out).toEqual({ action: "add", written: ["allowlists/echo.json"], file: "allowlists/echo.json", index: 0, entry: onDisk[0], note: expect.stringContaining("/4/delta is a position") });
    expect(out.entry.path).not.toBe("/4/delta");
  });

  it("--migrate: each positional entry with what it became or why it stayed", async () => {
    const dir = await project([
      { ...entry, path: "/4/delta" },
      { ...entry, cell: "*", path: "/3/delta" },
    ]);
    const r = await runCli(["allow", "--migrate", "allowlists/echo.json", "--json"], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    const onDisk = JSON.parse(await readFile(path.join(dir, "allowlists/echo.json"), "utf8")) as Array<{ path: string }>;
    expect(JSON.parse(r.out)).toEqual({
      action: "migrate",
      written: ["allowlists/echo.json"],
      file: "allowlists/echo.json",
      changed: 1,
      entries: [
        { index: 0, from: "/4/delta", to: onDisk[0]!.path, kept: null },
        { index: 1, from: "/3/delta", to: null, kept: expect.stringContaining("applies to several cells") },
      ],
    });
  });

  it("--prune: each entry removed with its file and index; none removed is an empty list and nothing written", async () => {
    const dir = await project([entry]);
    const r = await runCli(["allow", "--prune", "--provider", "echo", "--cell", "turn", "--json"], { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ action: "prune", written: ["allowlists/echo.json"], pruned: [{ file: "allowlists/echo.json", index: 0, entry }], incomplete: [] });
    const again = await runCli(["allow", "--prune", "--provider", "echo", "--cell", "turn", "--json"], { cwd: dir });
    expect(JSON.parse(again.out)).toEqual({ action: "prune", written: [], pruned: [], incomplete: [] });
  });

  it("a bad entry under --json is still one error line on stderr, exit 2, nothing on stdout", async () => {
    const dir = await project();
    const r = await runCli(["allow", "--provider", "echo", "--cell", "turn", "--path", "/4/delta", "--pr", "5", "--reason", "x", "--json"], { cwd: dir });
    expect(r).toEqual({ code: 2, out: "", err: expect.stringMatching(/^parity: --pr: [^\n]+\n$/) });
  });
});
