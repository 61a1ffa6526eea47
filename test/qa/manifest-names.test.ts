import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "../cli/run-cli.js";

// QA: a recording whose manifest names another cell (copied into a new cell's directory and
// not edited) was assembled and listed under the directory's name without a word.
describe("a manifest that names another provider or cell", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function copyAs(field: "provider" | "cell", value: string): Promise<{ root: string; manifest: string }> {
    const root = await mkdtemp(path.join(os.tmpdir(), "parity-qa-manifest-"));
    dirs.push(root);
    const dir = path.join(root, "echo", "turn");
    await cp(path.join(repoRoot, "recordings", "echo", "turn"), dir, { recursive: true });
    const manifest = path.join(dir, "manifest.json");
    const m = JSON.parse(await readFile(manifest, "utf8")) as Record<string, unknown>;
    m[field] = value;
    await writeFile(manifest, `${JSON.stringify(m, null, 2)}\n`);
    return { root, manifest };
  }

  it.each(["lanes", "list"])("%s: exit 2 naming manifest.json and both names", async (command) => {
    const { root, manifest } = await copyAs("cell", "zero-work");
    const r = await runCli([command, "--recordings", root]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${manifest}: cell is "zero-work" but the directory names cell "turn"\n`);
  });

  it("lanes: a provider mismatch too", async () => {
    const { root, manifest } = await copyAs("provider", "acp-cursor");
    const r = await runCli(["lanes", "--recordings", root]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${manifest}: provider is "acp-cursor" but the directory names provider "echo"\n`);
  });
});
