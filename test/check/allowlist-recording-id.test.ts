/**
 * An allowlist entry tied to a recordings root (`"recordings": "../shared/recordings"`) applies to
 * the recordings the user passes when they are the same recordings, whatever path reaches them
 * (harness/compare/allowlist.ts `entryApplies`, harness/recording/identity.ts). The bug: from a
 * clone not beside `shared/`, `parity check --recordings /abs/shared/recordings --provider acp-cursor`
 * failed 6 of 8 cells, the entries' root resolving to a folder that is not there.
 *
 * Without ../shared: a temp recordings folder holding a copy of the project's acp-cursor/turn-tools
 * recording, checked against an oracle without its `bb/session-options` event (so the live lane
 * has one event more, the difference the real cursor entries mask), with an entry whose root is
 * not there. With ../shared (skipped cleanly without it): the real cursor recordings from a
 * project folder that is not beside shared/, as a fresh clone elsewhere is.
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryApplies, type AllowlistEntry } from "../../harness/compare/allowlist.js";
import { recordingIdentity } from "../../harness/recording/identity.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";
import { sharedInputPresent } from "../helpers/shared-input.js";

interface Report {
  schemaVersion: number;
  cells: Array<{ provider: string; cell: string; status: string; detail?: { error?: string }; unappliedEntries?: unknown[] }>;
}

const SELECTOR = "/*[type=thread/extensionState/updated][kind=bb/session-options]";
const entry = (extra: Partial<AllowlistEntry>): AllowlistEntry => ({
  provider: "acp-cursor",
  cell: "turn-tools",
  layer: "events",
  path: SELECTOR,
  pr: "#5",
  reason: "the spec-30 bridge publishes the session's config options as a thread state event",
  ...extra,
});

describe("an entry for a recordings root, the same recording by another path (temp folder, no ../shared)", () => {
  let dir: string;
  let recordings: string;
  let lanes: string;
  let id: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-recording-id-"));
    recordings = path.join(dir, "elsewhere", "recordings");
    lanes = path.join(dir, "elsewhere", "lanes");
    await cp(path.join(repoRoot, "recordings", "acp-cursor", "turn-tools"), path.join(recordings, "acp-cursor", "turn-tools"), { recursive: true });
    const oracle = JSON.parse(await readFile(path.join(repoRoot, "lanes", "acp-cursor", "turn-tools.json"), "utf8")) as Array<{ kind?: string }>;
    const without = oracle.filter((e) => e.kind !== "bb/session-options");
    expect(without.length).toBe(oracle.length - 1);
    await mkdir(path.join(lanes, "acp-cursor"), { recursive: true });
    await writeFile(path.join(lanes, "acp-cursor", "turn-tools.json"), `${JSON.stringify(without, null, 2)}\n`);
    id = recordingIdentity(path.join(recordings, "acp-cursor", "turn-tools"))!;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const check = async (entries: AllowlistEntry[], name: string) => {
    const file = path.join(dir, `${name}.json`);
    await writeFile(file, `${JSON.stringify(entries, null, 2)}\n`);
    const args = ["check", "--recordings", recordings, "--lanes", lanes, "--provider", "acp-cursor", "--cell", "turn-tools", "--allowlist", file];
    const r = await runCli([...args, "--reporter", "json"]);
    // Why an entry did not apply: the text reporter's words, and the JSON's unappliedEntries.
    const text = await runCli(args);
    const report = JSON.parse(r.out) as Report;
    return { code: r.code, err: r.err, cell: report.cells[0]!, schemaVersion: report.schemaVersion, text: text.out };
  };

  it("the identity is the recording's lanes': the copy's is the project's, another cell's is not", () => {
    expect(id).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(recordingIdentity(path.join(repoRoot, "recordings", "acp-cursor", "turn-tools"))).toBe(id);
    expect(recordingIdentity(path.join(repoRoot, "recordings", "acp-cursor", "approval-allow"))).not.toBe(id);
    expect(recordingIdentity(dir)).toBeUndefined();
  });

  it("a copy whose bridge lanes a rerecord refreshed is the same recording; one whose agent said something else is not", async () => {
    // parity rerecord writes bridge→runtime.current.ndjson beside a recording (harness/rerecord):
    // the shared recordings' ids changed with it and their entries fell back on the root path.
    const copy = path.join(dir, "refreshed");
    await cp(path.join(recordings, "acp-cursor", "turn-tools"), copy, { recursive: true });
    const current = path.join(copy, "bridge→runtime.current.ndjson");
    await writeFile(current, `${(await readFile(current, "utf8")).trimEnd()}\n`.replace(/\n$/, "\n\n"));
    expect(recordingIdentity(copy)).toBe(id);
    await rm(current);
    expect(recordingIdentity(copy)).toBe(id);
    // An entry naming it applies there, wherever that is, its own root not there.
    expect(entryApplies(entry({ recordings: "../no-such-root/recordings", recordingId: id }), "acp-cursor", "turn-tools", copy)).toBe(true);
    for (const lane of ["provider→bridge.ndjson", "runtime→bridge.ndjson"]) {
      const other = path.join(dir, `other-${lane}`);
      await cp(copy, other, { recursive: true });
      await writeFile(path.join(other, lane), `${await readFile(path.join(other, lane), "utf8")}\n`);
      expect(recordingIdentity(other), lane).not.toBe(id);
      await rm(other, { recursive: true, force: true });
    }
    await rm(copy, { recursive: true, force: true });
  });

  it("the failing cell's JSON report says which root-tied entries did not apply and why (schema 7)", async () => {
    const r = await check([entry({ recordings: "../no-such-root/recordings" })], "unnamed-json");
    const root = path.resolve(repoRoot, "../no-such-root/recordings");
    // The committed acp-cursor entries (../shared/recordings) name their own recordings, not this copy: a group of their own.
    const groups = r.cell.unappliedEntries as Array<{ recordings: string }>;
    expect(groups.map((g) => g.recordings).sort()).toEqual(["../no-such-root/recordings", "../shared/recordings"]);
    expect(groups.filter((g) => g.recordings === "../no-such-root/recordings")).toEqual([
      {
        recordings: "../no-such-root/recordings",
        root,
        rootThere: false,
        entries: 1,
        identifying: 0,
        recordingId: id,
        note: `1 allowlist entry for acp-cursor/turn-tools did not apply: it is for the recordings under ../no-such-root/recordings, which is not there (${root}); they name no recording (recordingId), so only a recording under that root is theirs`,
      },
    ]);
    expect(r.schemaVersion).toBe(7);
    // A passing cell carries none.
    expect((await check([entry({ recordings: "../no-such-root/recordings", recordingId: id })], "identified-json")).cell.unappliedEntries).toBeUndefined();
  });

  it("without the entry the cell fails on the added event", async () => {
    const r = await check([], "none");
    expect([r.cell.status, r.code]).toEqual(["fail", 1]);
  });

  it("an entry whose root is not there applies to the recording it identifies: the cell passes", async () => {
    const r = await check([entry({ recordings: "../no-such-root/recordings", recordingId: id })], "identified");
    expect([r.cell.status, r.code], r.text).toEqual(["pass", 0]);
  });

  it("one that names no recording applies to nothing there, and the failing cell says why", async () => {
    const r = await check([entry({ recordings: "../no-such-root/recordings" })], "unnamed");
    expect([r.cell.status, r.code]).toEqual(["fail", 1]);
    expect(r.text).toContain(
      `1 allowlist entry for acp-cursor/turn-tools did not apply: it is for the recordings under ../no-such-root/recordings, which is not there (${path.resolve(repoRoot, "../no-such-root/recordings")}); they name no recording (recordingId), so only a recording under that root is theirs`,
    );
  });

  it("one that identifies another recording of the same provider/cell does not apply, said so", async () => {
    const other = recordingIdentity(path.join(repoRoot, "recordings", "acp-cursor", "approval-allow"))!;
    const r = await check([entry({ recordings: "../no-such-root/recordings", recordingId: other })], "other");
    expect([r.cell.status, r.code]).toEqual(["fail", 1]);
    expect(r.text).toContain(`they identify another recording than this one (${id})`);
  });

  it("by path: the root relative to the project, or reached through a symbolic link, applies without an identity", async () => {
    expect((await check([entry({ recordings: path.relative(repoRoot, recordings) })], "relative")).cell.status).toBe("pass");
    const link = path.join(dir, "link");
    await symlink(path.join(dir, "elsewhere"), link);
    expect((await check([entry({ recordings: path.join(link, "recordings") })], "linked")).cell.status).toBe("pass");
    // entryApplies itself: the copy under the link's name, the entry naming the real folder.
    expect(entryApplies(entry({ recordings }), "acp-cursor", "turn-tools", path.join(link, "recordings", "acp-cursor", "turn-tools"))).toBe(true);
  });

  it('a recordingId without recordings, or with cell "*", is one line naming the file and entry, exit 2', async () => {
    const file = path.join(dir, "bad.json");
    await writeFile(file, `${JSON.stringify([entry({ recordingId: id })], null, 2)}\n`);
    const r = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--provider", "acp-cursor", "--allowlist", file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.json.*recordingId names a recording of a recordings root: give recordings too\n$/);
    await writeFile(file, `${JSON.stringify([entry({ cell: "*", recordings: "x", recordingId: id })], null, 2)}\n`);
    const star = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--provider", "acp-cursor", "--allowlist", file]);
    expect(star.code).toBe(2);
    expect(star.err).toContain('recordingId names one recording: give its cell, not "*"');
  });

  it("parity allow --recordings writes the recording's identity", async () => {
    const file = path.join(dir, "written.json");
    const r = await runCli(["allow", "--provider", "acp-cursor", "--cell", "turn-tools", "--recordings", recordings, "--path", SELECTOR, "--pr", "#5", "--reason", "thread state", "--file", file]);
    expect(r.code, r.err).toBe(0);
    const written = JSON.parse(await readFile(file, "utf8")) as AllowlistEntry[];
    expect(written).toEqual([{ provider: "acp-cursor", cell: "turn-tools", recordings, recordingId: id, layer: "events", path: SELECTOR, pr: "#5", reason: "thread state" }]);
  });
});

const SHARED = path.resolve(repoRoot, "../shared/recordings");

describe.skipIf(!sharedInputPresent(SHARED))("the real acp-cursor recordings from a project not beside shared/", () => {
  let project: string;
  beforeAll(async () => {
    // A folder in the temp dir, so its ../shared is not there: the committed allowlists as a clone has them.
    project = await mkdtemp(path.join(os.tmpdir(), "parity-clone-elsewhere-"));
    await cp(path.join(repoRoot, "allowlists"), path.join(project, "allowlists"), { recursive: true });
  });
  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it("each committed entry's recordingId is its shared recording's identity (rewritten once to identity 2)", async () => {
    const entries = JSON.parse(await readFile(path.join(repoRoot, "allowlists", "acp-cursor.json"), "utf8")) as AllowlistEntry[];
    const identified = entries.filter((e) => e.recordingId !== undefined);
    expect(identified.length).toBeGreaterThan(0);
    for (const e of identified) expect(e.recordingId, `${e.cell} ${e.path}`).toBe(recordingIdentity(path.join(SHARED, e.provider, e.cell)));
  });

  it("every cell passes by the entries' recording identities, as from beside shared/", async () => {
    const r = await runCli(["check", "--recordings", SHARED, "--provider", "acp-cursor", "--reporter", "json"], { cwd: project });
    const report = JSON.parse(r.out) as Report;
    expect(report.cells.filter((c) => c.status === "fail").map((c) => `${c.cell}: ${c.detail?.error}`)).toEqual([]);
    expect(report.cells.filter((c) => c.status === "pass").length).toBe(7);
    expect(r.code).toBe(0);
  });
});
