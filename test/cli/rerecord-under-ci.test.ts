import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CURRENT_BRIDGE_LANE_FILE } from "../../harness/recording/lane-entry.js";
import { repoRoot, runCli } from "./run-cli.js";

// New-user trial: `CI=true parity rerecord --provider echo --cell turn --out /tmp/x` was refused
// while `CI=true parity record --out /tmp/…` wrote. The CI rule guards the project's own
// recordings/ and lanes/; an --out outside the working directory is scratch output.
describe("parity rerecord under CI=true", () => {
  let out: string;
  beforeEach(async () => {
    out = await mkdtemp(path.join(tmpdir(), "parity-ux-rerecord-ci-"));
  });
  afterEach(async () => {
    await rm(out, { recursive: true, force: true });
  });

  async function repoWrites(): Promise<string[]> {
    const current = path.join(repoRoot, "recordings", "echo", "turn", CURRENT_BRIDGE_LANE_FILE);
    return [existsSync(current) ? await readFile(current, "utf8") : "", await readFile(path.join(repoRoot, "lanes", "echo", "turn.json"), "utf8").catch(() => "")];
  }

  it("writes to an --out outside the working directory, as record does, and leaves the repository alone", async () => {
    const before = await repoWrites();
    const result = await runCli(["rerecord", "--provider", "echo", "--cell", "turn", "--out", out], { ci: true });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(out, "echo", "turn", CURRENT_BRIDGE_LANE_FILE))).toBe(true);
    expect(await readdir(path.join(out, "lanes", "echo"))).toEqual(["turn.json", "turn.version"]);
    expect(await repoWrites()).toEqual(before);
  });

  it("is still refused inside the repository: no --out, an --out under it, or --lanes under it", async () => {
    const inside = path.join(repoRoot, "tmp-ux-polish-never-written");
    const cases = [
      [[], /^parity: rerecord writes .*CI=true nothing writes the project's recordings or oracles; pass --out <dir> outside the working directory/],
      [["--out", "tmp-ux-polish-never-written"], /^parity: --out .*tmp-ux-polish-never-written is inside the working directory/],
      [["--out", out, "--lanes", "lanes"], /^parity: --lanes .*\/lanes is inside the working directory/],
    ] as const;
    for (const [extra, message] of cases) {
      const result = await runCli(["rerecord", "--provider", "echo", "--cell", "turn", ...extra], { ci: true });
      expect(result.code).toBe(2);
      expect(result.out).toBe("");
      expect(result.err).toMatch(message);
      expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    }
    expect(existsSync(inside)).toBe(false);
    expect(await readdir(out)).toEqual([]);
  });
});
