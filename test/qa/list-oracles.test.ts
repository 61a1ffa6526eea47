import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot, runCli, sharedRecordings } from "../cli/run-cli.js";

// QA: `parity list --recordings ../shared/recordings` showed the repository's own oracles
// (lanes/acp-cursor/turn-tools.json belongs to recordings/acp-cursor/turn-tools) as the shared
// cells' oracles, and listed every other committed oracle as "without a recording". `parity
// check` never holds a recording outside the checkout against an oracle; list now agrees.
describe("parity list: which oracles apply", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it("a recording outside the checkout has no oracle and no oracle is called orphaned", async () => {
    const checkout = await mkdtemp(path.join(os.tmpdir(), "parity-qa-list-"));
    dirs.push(checkout);
    await mkdir(path.join(checkout, "lanes", "acp-cursor"), { recursive: true });
    await writeFile(path.join(checkout, "lanes", "acp-cursor", "turn-tools.json"), "[]\n");
    await writeFile(path.join(checkout, "lanes", "acp-cursor", "gone.json"), "[]\n");
    const json = await runCli(["list", "--recordings", sharedRecordings, "--provider", "acp-cursor", "--json"], { cwd: checkout });
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.out) as Array<{ cell: string; oracle: string | null }>;
    expect(rows.find((r) => r.cell === "turn-tools")?.oracle).toBeNull();
    const text = await runCli(["list", "--recordings", sharedRecordings, "--provider", "acp-cursor"], { cwd: checkout });
    expect(text.code).toBe(0);
    expect(text.out).not.toContain("oracle without a recording");
    expect(text.out).toMatch(/recording\(s\), 0 with an oracle\n$/);
  });

  it("the checkout's own recordings get their oracles, and a leftover oracle is named", async () => {
    const checkout = await mkdtemp(path.join(os.tmpdir(), "parity-qa-list-"));
    dirs.push(checkout);
    await cp(path.join(repoRoot, "recordings", "echo", "turn"), path.join(checkout, "recordings", "echo", "turn"), { recursive: true });
    await mkdir(path.join(checkout, "lanes", "echo"), { recursive: true });
    await writeFile(path.join(checkout, "lanes", "echo", "turn.json"), "[]\n");
    await writeFile(path.join(checkout, "lanes", "echo", "gone.json"), "[]\n");
    const r = await runCli(["list"], { cwd: checkout });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^echo\s+turn\s+thread\s.*\syes\n/m);
    expect(r.out).toContain(`oracle without a recording: ${path.join("lanes", "echo", "gone.json")}\n`);
  });
});
