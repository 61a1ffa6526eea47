import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Readable } from "node:stream";
import { createReviewCommand } from "../../harness/cli/review.js";
import { racedAgentAnswers, racedRequests } from "../../harness/record/raced-requests.js";
import { recordCell } from "../../harness/record/record-cell.js";
import { listRecordings } from "../../harness/recording/reader.js";
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

  test("parity review names parity import as where the pending oracle came from (it said 'an earlier parity check' and 'rerecord'); beside a check's result, each source with its count", async () => {
    const out = path.join(work, "imported-review");
    const lanes = path.join(out, "lanes");
    expect((await runCli(["import", recordDir.echo!, "--out", out, "--lanes", lanes, "--cell", "incident-42"])).code).toBe(0);
    const review = async (answers: string[]) => {
      const command = createReviewCommand({ input: Readable.from(answers.map((a) => `${a}\n`).join("")) });
      let text = "";
      const code = await command.run({ recordings: [out], lanes }, { out: (t) => void (text += t), err: (t) => void (text += t), color: false, verbose: false, ci: false, cwd: work });
      return { code, text };
    };
    const alone = await review(["s"]);
    expect(alone.text).toContain("1 cell has pending results from parity import: reviewing them as they are");
    expect(alone.text).toContain("1 changed cell to review, pending from parity import. [a]ccept (give the imported recording its first oracle)  [A]ccept this and all the rest");
    expect(alone.text).toMatch(/pending from parity import of rec\/echo\/thr_[^ ]+ \(accepting gives the recording its first oracle\): /);
    expect(alone.text).not.toMatch(/rerecord|earlier parity check/);
    expect(alone.code).toBe(1);

    // A committed recording whose oracle waits as a check left it: a check's result, rerecorded on accept.
    await cp(path.join(repoRoot, "recordings", "echo", "turn"), path.join(out, "echo", "turn"), { recursive: true });
    await cp(path.join(repoRoot, "lanes", "echo", "turn.json"), path.join(lanes, "echo", "turn.json.pending"));
    const mixed = await review(["s", "s"]);
    expect(mixed.text).toContain("2 cells have pending results from an earlier parity check and parity import:");
    expect(mixed.text).toContain(
      "2 changed cells to review, pending from parity import (1), an earlier parity check (1). [a]ccept (parity import: give the imported recording its first oracle; an earlier parity check: rerecord this cell)",
    );
  });

  test("review knows an import by its manifest's structured source (version 2), whatever its note says; an import made before source (version 1, the note alone) still reads as one", async () => {
    const out = path.join(work, "imported-source");
    const lanes = path.join(out, "lanes");
    expect((await runCli(["import", recordDir.echo!, "--out", out, "--lanes", lanes, "--cell", "by-source"])).code).toBe(0);
    const file = path.join(out, "echo", "by-source", "manifest.json");
    const written = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    expect(written.manifestVersion).toBe(2);
    expect(written.source).toEqual({ kind: "import", folder: expect.stringMatching(/^rec\/echo\/thr_[^/]+$/) as unknown });
    const folder = (written.source as { folder: string }).folder;
    expect(written.note).toMatch(/^Imported by parity import from rec\/echo\/thr_/);
    const review = async () => {
      const command = createReviewCommand({ input: Readable.from("s\n") });
      let text = "";
      await command.run({ recordings: [out], lanes }, { out: (t) => void (text += t), err: (t) => void (text += t), color: false, verbose: false, ci: false, cwd: work });
      return text;
    };
    // The note is prose a person may rewrite: review reads the source.
    await writeFile(file, `${JSON.stringify({ ...written, note: "Incident 42, kept as a regression cell." }, null, 2)}\n`);
    expect(await review()).toContain(`pending from parity import of ${folder} (accepting gives the recording its first oracle): `);
    // A manifest an import wrote before version 2: no manifestVersion, no source, the note alone.
    const { manifestVersion: _version, source: _source, ...v1 } = written;
    await writeFile(file, `${JSON.stringify(v1, null, 2)}\n`);
    expect(await review()).toContain(`pending from parity import of ${folder} (accepting gives the recording its first oracle): `);
    // Neither: a check's result.
    await writeFile(file, `${JSON.stringify({ ...v1, note: "Incident 42, kept as a regression cell." }, null, 2)}\n`);
    expect(await review()).toContain("pending from an earlier parity check");
  });

  test("a session whose runtime sent thread/start and turn/start in one write (raced) is named at import, seq by seq, and nothing is written; --keep-diverging writes its recording without a pending oracle", async () => {
    const source = path.join(repoRoot, "test", "fixtures", "import-race");
    const out = path.join(work, "imported-race");
    const lanes = path.join(out, "lanes");
    const refused = await runCli(["import", source, "--out", out, "--lanes", lanes, "--cell", "race"]);
    expect(refused.code, refused.err).toBe(1);
    expect(refused.out).toBe("");
    expect(refused.err).toContain("parity: echo/race (thread thr_race) is not a clean cell: replayed through today's bridge it does not (or not always) give the recorded bridge output");
    expect(refused.err).toContain("  seq 19 (bridge→runtime): the answer to thread/start (id 2, seq 3) came after turn/start (seq 6) was read");
    expect(refused.err).toContain("parity: nothing imported (all threads or none); --keep-diverging writes its recording without a pending oracle");
    await expect(readdir(out)).rejects.toThrow();

    const kept = await runCli(["import", source, "--out", out, "--lanes", lanes, "--cell", "race", "--keep-diverging", "--json"]);
    expect(kept.code).toBe(1);
    const [cell] = JSON.parse(kept.out) as Array<{ pendingOracle: string | null; written: boolean; problems: string[] }>;
    expect(cell).toMatchObject({ pendingOracle: null, written: true });
    expect(cell!.problems[0]).toMatch(/^seq 19 \(bridge→runtime\): the answer to thread\/start/);
    expect(await readdir(path.join(out, "echo"))).toEqual(["race"]);
    await expect(readdir(lanes)).rejects.toThrow();
  });

  test("a replay that hits the wall-clock ceiling (--timeout 1, as the other commands' timeout tests) is exit 4, no verdict, nothing written", async () => {
    const out = path.join(work, "imported-timeout");
    const r = await runCli(["import", recordDir.echo!, "--out", out, "--timeout", "1"]);
    expect(r.code, r.err).toBe(4);
    expect(r.err).toContain("the replay hit the wall-clock ceiling (1 ms): no verdict");
    await expect(readdir(out)).rejects.toThrow();
  });

  test("an agent request the bridge answered after the agent's next lines, with its answer to another request between (test/fixtures/import-agent-race, the ACP bridge in record mode): named at import, seq by seq", async () => {
    const source = path.join(repoRoot, "test", "fixtures", "import-agent-race");
    const out = path.join(work, "imported-agent-race");
    const refused = await runCli(["import", source, "--out", out, "--lanes", path.join(out, "lanes"), "--cell", "agent-race"]);
    expect(refused.code, refused.err).toBe(1);
    expect(refused.err).toContain(
      "  seq 28 (bridge→provider): the bridge's answer to the agent's fs/read_text_file (id 900, seq 20) came after session/update (seq 23) was read, and seq 22 (bridge→provider) was written between the request and it",
    );
    expect(refused.err).toContain("parity: nothing imported (all threads or none)");
    await expect(readdir(out)).rejects.toThrow();
  });

  test("an agent line read between a runtime line and the bridge's write acting on it is no race: the import's replay names it (test/fixtures/import-late-update, moved there); as recorded, the session imports clean", async () => {
    const source = path.join(repoRoot, "test", "fixtures", "import-late-update");
    const clean = await runCli(["import", source, "--out", path.join(work, "late-clean"), "--lanes", path.join(work, "late-clean", "lanes"), "--cell", "late"]);
    expect(clean.code, clean.err).toBe(0);
    const moved = path.join(work, "late-moved");
    await cp(source, moved, { recursive: true });
    const lane = path.join(moved, "acp-omp-fixture", "thr_turn_tools", "provider→bridge.ndjson");
    const text = await readFile(lane, "utf8");
    expect(text).toContain('"seq":19,');
    await writeFile(lane, text.replace('"seq":19,', '"seq":15.5,'));
    const out = path.join(work, "late-moved-out");
    const refused = await runCli(["import", moved, "--out", out, "--lanes", path.join(out, "lanes"), "--cell", "late"]);
    expect(refused.code, refused.err).toBe(1);
    expect(refused.err).toContain("bridge→provider request session/prompt (id 3) (agent #1) matches no recorded output here");
    expect(refused.err).not.toContain("the bridge's answer to the agent's");
  });

  test("racedRequests: the raced session has one; no committed recording has any", async () => {
    const read = async (file: string) =>
      (await readFile(file, "utf8").catch(() => ""))
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { seq: number; run: number; line: string });
    const lanesOf = async (dir: string) => {
      const lanes = {
        "runtime→bridge": await read(path.join(dir, "runtime→bridge.ndjson")),
        "bridge→runtime": await read(path.join(dir, "bridge→runtime.ndjson")),
        "provider→bridge": await read(path.join(dir, "provider→bridge.ndjson")),
        "bridge→provider": await read(path.join(dir, "bridge→provider.ndjson")),
      };
      return [...racedRequests(lanes["runtime→bridge"], lanes["bridge→runtime"]), ...racedAgentAnswers(lanes)];
    };
    expect(await lanesOf(path.join(repoRoot, "test", "fixtures", "import-race", "echo", "thr_race"))).toHaveLength(1);
    expect(await lanesOf(path.join(repoRoot, "test", "fixtures", "import-agent-race", "acp-omp-fixture", "thr_turn_tools"))).toEqual([
      expect.stringMatching(/^seq 28 \(bridge→provider\): the bridge's answer to the agent's fs\/read_text_file \(id 900, seq 20\)/),
    ]);
    // The agent's later lines read in one chunk with nothing written between (acp-omp/new-file-folder:
    // fs/write_text_file 21, its session/update 22, the answer 25): written back to back by a replay, no race.
    expect(await lanesOf(path.join(repoRoot, "recordings", "acp-omp", "new-file-folder"))).toEqual([]);
    const committed = (await listRecordings([path.join(repoRoot, "recordings")])).map((l) => l.dir);
    expect(committed.length).toBeGreaterThan(100);
    const raced: string[] = [];
    for (const dir of committed) if ((await lanesOf(dir)).length > 0) raced.push(dir);
    expect(raced).toEqual([]);
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
    // The prompt was edited and the bridge's recorded echo of it was not: its replay diverges (exit 1),
    // so the recording is written only with --keep-diverging (without a pending oracle).
    const r = await runCli(["import", source, "--out", out, "--lanes", path.join(out, "lanes"), "--keep-diverging"]);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain("is not a clean cell");
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

  test("the project's recordings/ is not a record-mode folder: one line naming the first recording, exit 2, nothing written (it was read as raced threads, each 'not a clean cell', exit 1)", async () => {
    const out = path.join(work, "never-recordings");
    const r = await runCli(["import", "recordings", "--provider", "echo", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `parity: ${path.join(repoRoot, "recordings", "echo", "resume")}: a recording (it has manifest.json), not a thread a bridge wrote in record mode; import reads the folder BB_PROVIDER_BRIDGE_RECORD_DIR named (<dir>/<provider>/<thread>/<direction>.ndjson), and a recording is gated as it is (parity check --recordings ${path.join(repoRoot, "recordings")})\n`,
    );
    await expect(readdir(out)).rejects.toThrow();
  });
});
