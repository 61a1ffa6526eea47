import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

// QA: `parity diff <checkout> <checkout>` walked a checkout with no lanes/ at large
// (`**/*.json`), reading its manifests, allowlists and package files as lanes and failing on
// the first that was not an event array (`parity diff lanes recordings` did the same).
describe("parity diff reads lanes only where lanes live", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  const lane = `${JSON.stringify([{ type: "turn/started", threadId: "", scope: { kind: "turn", turnId: "#1" } }], null, 2)}\n`;

  it("a checkout without lanes/ has no lanes; its other JSON files are never read", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "parity-qa-diff-"));
    dirs.push(root);
    const old = path.join(root, "old");
    const now = path.join(root, "new");
    await mkdir(path.join(old, "recordings", "echo", "turn"), { recursive: true });
    await mkdir(path.join(old, "allowlists"), { recursive: true });
    await writeFile(path.join(old, "package.json"), '{"name":"x"}\n');
    await writeFile(path.join(old, "recordings", "echo", "turn", "manifest.json"), '{"provider":"echo"}\n');
    await writeFile(path.join(old, "allowlists", "echo.json"), "[]\n");
    await mkdir(path.join(now, "lanes", "echo", "deeper"), { recursive: true });
    await writeFile(path.join(now, "lanes", "echo", "turn.json"), lane);
    await writeFile(path.join(now, "lanes", "echo", "deeper", "not-a-lane.json"), "{}\n");

    const r = await runCli(["diff", old, now, "--json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { lanes: Array<{ key: string; status: string }> };
    expect(doc.lanes.map((l) => [l.key, l.status])).toEqual([["echo/turn", "added"]]);
  });

  it("a lanes directory given directly is read at <provider>/<cell>.json depth", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "parity-qa-diff-"));
    dirs.push(root);
    for (const side of ["a", "b"]) {
      await mkdir(path.join(root, side, "echo", "turn"), { recursive: true });
      await writeFile(path.join(root, side, "echo", "turn.json"), lane);
      // A recording directory beside the lanes: its manifest is not a lane.
      await writeFile(path.join(root, side, "echo", "turn", "manifest.json"), '{"provider":"echo"}\n');
    }
    const r = await runCli(["diff", path.join(root, "a"), path.join(root, "b")]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });
});

// Issue 39: `parity diff lanes/codex lanes/acp-codex` compared 0 lanes and exited 0, a false pass.
describe("parity diff never passes on nothing compared", () => {
  it("two providers' oracle folders pair up cell by cell", async () => {
    const r = await runCli(["diff", "lanes/codex", "lanes/acp-codex", "--json"]);
    expect(r.err).toBe("");
    const doc = JSON.parse(r.out) as { lanes: Array<{ key: string; status: string }> };
    expect(doc.lanes.length).toBeGreaterThan(5);
    expect(doc.lanes.find((l) => l.key === "turn-tools")?.status).toBe("changed");
    expect(r.code).toBe(1);
  });

  it("a folder that is not a checkout and holds no lanes: exit 2, one line naming it", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "parity-qa-diff-"));
    try {
      const r = await runCli(["diff", root, "lanes"]);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      expect(r.err).toBe(`parity: "${root}" holds no lanes (looked for lanes/<provider>/<cell>.json, <provider>/<cell>.json and <cell>.json in it)\n`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("two folders with lanes but none in common: exit 2, one line", async () => {
    const r = await runCli(["diff", "lanes/echo/../echo", "lanes/pi/../../lanes"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: "lanes\/echo\/\.\.\/echo" \(\d+ lanes\) and "lanes\/pi\/\.\.\/\.\.\/lanes" \(\d+ lanes\) have no lane in common: nothing to compare/);
    expect(r.err.split("\n").length).toBe(2);
  });
});
