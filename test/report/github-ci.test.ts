import { cp, mkdir, mkdtemp, symlink, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, repoRoot } from "../cli/run-cli.js";

/**
 * A repository `ws` with the package's oracles in a subdirectory (`ws/pkg/lanes`): copies of the
 * acp-claude and acp-codex oracles, each with its agent message text changed (one failing cell per
 * oracle against the real recordings: 16 since the command-fails and model-error cells were
 * recorded), the run started in the project as CI would.
 */
let ws: string;
let lanes: string;
let recordings: string;
const broken: string[] = [];
beforeAll(async () => {
  ws = await mkdtemp(path.join(os.tmpdir(), "github-ci-"));
  lanes = path.join(ws, "pkg", "lanes");
  recordings = path.join(ws, "recordings");
  await mkdir(recordings);
  for (const provider of ["acp-claude", "acp-codex"]) {
    // The real recordings, linked (read only), so the run covers exactly these cells.
    await symlink(path.join(repoRoot, "recordings", provider), path.join(recordings, provider));
    await cp(path.join(repoRoot, "lanes", provider), path.join(lanes, provider), { recursive: true });
    // Every oracle, an accepted alternate's too (`<cell>/alternates/<k>.json`, checked as a cell of its own).
    const oracles = (await readdir(path.join(lanes, provider), { recursive: true })).filter((f) => f.endsWith(".json")).sort();
    for (const file of oracles) {
      const oracle = path.join(lanes, provider, file);
      const lane = JSON.parse(await readFile(oracle, "utf8")) as Array<Record<string, any>>;
      const message = lane.find((e) => e.type === "item/completed" && e.item?.type === "agentMessage");
      const turn = lane.find((e) => e.type === "turn/completed");
      if (message !== undefined) message.item.text = `${message.item.text} (changed)`;
      else turn!.status = turn!.status === "completed" ? "failed" : "completed";
      await writeFile(oracle, `${JSON.stringify(lane, null, 2)}\n`);
      broken.push(`${provider}/${file.replace(/\.json$/, "")}`);
    }
  }
});
afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe("--reporter github fits GitHub (issue 27 item 3)", () => {
  it("≤ 10 error annotations per step with a summary naming the rest, repository-relative file=, line= of the changed field, and the job summary", async () => {
    const summary = path.join(ws, "step-summary.md");
    await writeFile(summary, "earlier step\n");
    // CI=true, as on GitHub: a local run would also write each failing cell's pending results
    // (a refreshed lane per cell), which this report does not need (51.8 s against 6.2 s, 16 cells).
    const all = await runCli(["check", "--recordings", recordings, "--lanes", lanes, "--reporter", "github"], {
      env: { GITHUB_WORKSPACE: ws, GITHUB_STEP_SUMMARY: summary },
      ci: true,
    });
    expect(all.code, all.err).toBe(1);
    const errors = all.out.split("\n").filter((l) => l.startsWith("::error "));
    expect(errors.length).toBeLessThanOrEqual(10);
    const last = errors[errors.length - 1]!;
    expect(broken.length).toBeGreaterThan(10);
    const n = broken.length;
    expect(last).toMatch(
      new RegExp(`^::error title=parity summary::parity: 0 passed, ${n} failed, 0 skipped \\(${n} cells\\); ${n - 9} more annotations left out \\(GitHub shows 10 per step\\), for `),
    );
    const annotated = errors.slice(0, -1).map((l) => /title=parity ([^:]+)::/.exec(l)![1]!);
    const named = last.slice(last.indexOf(", for ") + 6);
    for (const cell of broken) expect(annotated.includes(cell) || named.includes(cell), cell).toBe(true);

    for (const error of errors.slice(0, -1)) {
      const file = /file=([^,]+),/.exec(error)![1]!;
      expect(file).toMatch(/^pkg\/lanes\/acp-(claude|codex)\/[\w-]+(\/alternates\/\d+)?\.json$/);
      const line = Number(/,line=(\d+),/.exec(error)![1]);
      const text = (await readFile(path.join(ws, file), "utf8")).split("\n")[line - 1]!;
      // The changed field's own line, not its event's opening brace.
      expect(text, error).toMatch(/^\s+"(text|status)": /);
    }

    const markdown = await readFile(summary, "utf8");
    expect(markdown.startsWith("earlier step\n### parity check\n")).toBe(true);
    // An alternate's row reruns it by its own name (`--cell stop-interrupt/alternates/2`).
    for (const cell of broken) {
      const [provider, ...name] = cell.split("/");
      expect(markdown).toContain(`| ${cell} | fail | 1 difference | \`parity check --provider ${provider} --cell ${name.join("/")}\` |`);
    }
    expect(markdown).not.toMatch(/\| acp-cursor\//);
  }, 600_000);
});
