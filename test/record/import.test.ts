import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { recordCell } from "../../harness/record/record-cell.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// Issue 41 (build point 6): a record-mode folder written by a running bridge
// (BB_PROVIDER_BRIDGE_RECORD_DIR) becomes gated cells with `parity import`. The folders here are the
// ones the project's own bridges write in record mode: the echo bridge, and the ACP bridge with the
// omp fixture agent (reads and writes through fs/*), kept from a `record` run (`--keep-temp`).
describe("parity import of a record-mode folder", () => {
  let work: string;
  const kept: string[] = [];
  const recordDir: Record<string, string> = {};
  const recordedOracle: Record<string, string> = {};

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), "parity-import-"));
    for (const [provider, cell] of [
      ["echo", "turn"],
      ["acp-omp-fixture", "turn-tools"],
    ] as const) {
      const out = path.join(work, `recorded-${provider}`);
      const result = await recordCell({
        providerId: provider,
        cell,
        cellsRoot: path.join(repoRoot, "cells"),
        outRoot: out,
        lanesRoot: path.join(out, "lanes"),
        redact: [],
        now: () => Date.now(),
        tempParent: work,
        onKeptTemp: (root) => kept.push(root),
      });
      // The bridge's own record-mode folder of that run: <root>/rec/<provider>/<thread>/…
      recordDir[provider] = path.join(kept.at(-1)!, "rec");
      recordedOracle[provider] = await readFile(result.oracleFile, "utf8");
      // record writes the oracle's version sidecar with it: the recording's own cliVersion (harness/recording/oracle-version.ts).
      expect(await readFile(result.oracleFile.replace(/\.json$/, ".version"), "utf8")).toBe(`${JSON.stringify({ cliVersion: result.manifest.cliVersion })}\n`);
    }
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test.each(["echo", "acp-omp-fixture"])("%s: imports, and passes check once its pending oracle is accepted — the same oracle record wrote", async (provider) => {
    const out = path.join(work, `imported-${provider}`);
    const lanes = path.join(out, "lanes");
    const imported = await runCli(["import", recordDir[provider]!, "--out", out, "--lanes", lanes, "--json"]);
    expect(imported.err).toBe("");
    expect(imported.code).toBe(0);
    const [cell] = JSON.parse(imported.out) as Array<{ provider: string; cell: string; threadId: string }>;
    expect(cell!.provider).toBe(provider);
    expect(cell!.cell).toMatch(/^import-thr_/);

    // The oracle's version sidecar waits beside the pending oracle, naming the manifest's cliVersion.
    const versionText = `${JSON.stringify({ cliVersion: "unknown (imported from a record-mode folder)" })}\n`;
    expect(await readFile(path.join(lanes, provider, `${cell!.cell}.version.pending`), "utf8")).toBe(versionText);
    const first = await runCli(["check", "--recordings", out, "--lanes", lanes]);
    expect(first.code).toBe(1); // no accepted oracle yet
    const accepted = await runCli(["check", "-u", "--recordings", out, "--lanes", lanes]);
    expect(accepted.code, accepted.out + accepted.err).toBe(0);
    const gate = await runCli(["check", "--recordings", out, "--lanes", lanes]);
    expect(gate.code, gate.out).toBe(0);
    expect(await readFile(path.join(lanes, provider, `${cell!.cell}.json`), "utf8")).toBe(recordedOracle[provider]);
    expect(await readFile(path.join(lanes, provider, `${cell!.cell}.version`), "utf8")).toBe(versionText);

    // Never overwritten: the same import again is refused before anything is written.
    const again = await runCli(["import", recordDir[provider]!, "--out", out, "--lanes", lanes]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/already exists and is never overwritten/);
  });

  test("the agent's reads through the bridge become the recording's workspace fixture", async () => {
    const out = path.join(work, "imported-acp-omp-fixture");
    const [dir] = await readdir(path.join(out, "acp-omp-fixture"));
    const manifest = JSON.parse(await readFile(path.join(out, "acp-omp-fixture", dir!, "manifest.json"), "utf8")) as { workspace?: string; cliVersion: string };
    expect(manifest.workspace).toMatch(/^sha256:/);
    expect(await readFile(path.join(out, "acp-omp-fixture", dir!, "workspace", "notes.txt"), "utf8")).toBe(
      await readFile(path.join(repoRoot, "cells", "turn-tools", "workspace", "notes.txt"), "utf8"),
    );
  });

  test("a secret of the environment is redacted wherever it appears", async () => {
    const source = path.join(work, "with-secret");
    await cp(recordDir.echo!, source, { recursive: true });
    const [thread] = (await readdir(path.join(source, "echo"))).filter((d) => d !== "_process");
    const lane = path.join(source, "echo", thread!, "runtime→bridge.ndjson");
    await writeFile(lane, (await readFile(lane, "utf8")).replace(/"text\\":\\"/, '"text\\":\\"token s3cr3t-value-1234 '));
    expect(await readFile(lane, "utf8")).toContain("s3cr3t-value-1234");
    const out = path.join(work, "imported-secret");
    vi.stubEnv("PARITY_IMPORT_TEST_TOKEN", "s3cr3t-value-1234");
    const r = await runCli(["import", source, "--out", out, "--lanes", path.join(out, "lanes")]);
    expect(r.code, r.err).toBe(0);
    const [cell] = await readdir(path.join(out, "echo"));
    expect(await readFile(path.join(out, "echo", cell!, "runtime→bridge.ndjson"), "utf8")).not.toContain("s3cr3t-value-1234");
  });

  test("bad selections: one line, exit 2, nothing written", async () => {
    const out = path.join(work, "never");
    for (const argv of [
      ["import", path.join(work, "no-such-folder"), "--out", out],
      ["import", recordDir.echo!, "--provider", "nope", "--out", out],
      ["import", recordDir.echo!, "--thread", "nope", "--out", out],
      ["import", recordDir.echo!, "--cell", "../escape", "--out", out],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err.split("\n")).toHaveLength(2);
    }
    await expect(readdir(out)).rejects.toThrow();
  });
});
