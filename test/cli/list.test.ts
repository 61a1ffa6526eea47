import path from "node:path";
import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli as run } from "../helpers/run-cli.js";

const sharedRoot = path.resolve(repoRoot, "../shared/recordings");

describe("parity list", () => {
  it("prints the acp-cursor matrix as JSON with manifest facts", async () => {
    const { code, out, err } = await run(["list", "--recordings", sharedRoot, "--provider", "acp-cursor", "--json"]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const rows = JSON.parse(out) as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.cell)).toEqual((await readdir(path.join(sharedRoot, "acp-cursor"))).sort());
    const modelList = rows.find((r) => r.cell === "model-list")!;
    expect(modelList.scope).toBe("process");
    expect(modelList.currentLines).toBeNull();
    const turnTools = rows.find((r) => r.cell === "turn-tools")!;
    expect(turnTools.scope).toBe("thread");
    expect((turnTools.lines as Record<string, number>)["bridge→runtime"]).toBe(turnTools.currentLines);
  });

  it("prints a table with one row per cell and no colour when ctx.color is false", async () => {
    const { code, out } = await run(["list", "--recordings", sharedRoot, "--cell", "fork"]);
    expect(code).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^provider\s+cell\s+scope/);
    expect(lines[1]).toMatch(/^acp-cursor\s+fork\s+thread\s/);
    expect(lines.at(-1)).toMatch(/^1 recording\(s\)/);
    expect(out).not.toContain("\u001b[");
  });

  it("colours the header and the oracle column only when ctx.color is true", async () => {
    const { code, out } = await run(["list", "--recordings", sharedRoot, "--cell", "fork", "--lanes", path.join(repoRoot, "no-such-oracles")], {
      color: true,
    });
    expect(code).toBe(0);
    expect(out).toContain("\u001b[1mprovider");
    expect(out).toMatch(/\u001b\[33mmissing\u001b\[39m/);
  });

  it("names oracles that no recording accounts for", async () => {
    const { mkdtemp, mkdir, writeFile, rm, cp } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    // Oracles apply to the checkout's own recordings only (as in `parity check`), so the
    // checkout here is a temp dir holding a copy of one committed echo recording.
    const checkout = await mkdtemp(path.join(tmpdir(), "parity-list-checkout-"));
    try {
      await cp(path.join(repoRoot, "recordings", "echo", "zero-work"), path.join(checkout, "recordings", "echo", "zero-work"), { recursive: true });
      const lanes = path.join(checkout, "lanes");
      await mkdir(path.join(lanes, "echo"), { recursive: true });
      await writeFile(path.join(lanes, "echo", "zero-work.json"), "[]\n");
      await writeFile(path.join(lanes, "echo", "renamed-cell.json"), "[]\n");
      const { code, out } = await run(["list", "--recordings", path.join(checkout, "recordings"), "--lanes", lanes], { cwd: checkout });
      expect(code).toBe(0);
      expect(out).toMatch(/\necho\s+zero-work\s+.*\syes\n/);
      expect(out).toMatch(/1 with an oracle\n/);
      expect(out.trimEnd().split("\n").at(-1)).toBe(`oracle without a recording: ${path.join("lanes", "echo", "renamed-cell.json")}`);
    } finally {
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it("an unknown --cell is a usage error listing the valid cells", async () => {
    const { code, out, err } = await run(["list", "--recordings", sharedRoot, "--cell", "nope"]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err.trimEnd().split("\n")).toHaveLength(1);
    expect(err).toMatch(/unknown --cell nope; recorded cells: .*turn-tools/);
  });
});
