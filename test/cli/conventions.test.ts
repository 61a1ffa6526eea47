import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closestName, editDistance } from "../../harness/cli/did-you-mean.js";
import { renderJunitReport } from "../../harness/report/junit.js";
import { repoRoot, runCli } from "./run-cli.js";

describe("CLI conventions (issue 27 item 6)", () => {
  it("parity help <cmd> is <cmd> --help; a bare help is --help", async () => {
    const help = await runCli(["help", "check"]);
    const flag = await runCli(["check", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toBe(flag.out);
    expect(help.out).toContain("--reporter");
    expect((await runCli(["help"])).out).toBe((await runCli(["--help"])).out);
  });

  it("-u is --update (refused under CI like --update)", async () => {
    const r = await runCli(["check", "-u", "--provider", "echo"], { ci: true });
    expect(r.code).toBe(2);
    expect(r.err).toBe("parity: CI=true: check --update writes oracles; run it locally and commit what it prints\n");
  });

  it("--color and --no-color override the environment's choice", async () => {
    const on = await runCli(["check", "--provider", "echo", "--cell", "zero-work", "--color"]);
    expect(on.out).toMatch(/\u001b\[32mPASS/);
    const off = await runCli(["check", "--provider", "echo", "--cell", "zero-work", "--no-color"], { color: true });
    expect(off.out).not.toMatch(/\u001b/);
  });

  it("suggests a command for a typo by edit distance, swapped letters included", async () => {
    expect(editDistance("lsit", "list")).toBe(1);
    expect(editDistance("chekc", "check")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(closestName("lsit", ["check", "list", "lanes"])).toBe("list");
    const r = await runCli(["lsit"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('parity: unknown command "lsit"; did you mean `parity list`?: see `parity --help`\n');
  });

  it("JUnit's failure message counts differences as the text report does", () => {
    const diff = { op: "replace", path: "/3/status", old: "completed", new: "failed" };
    const cell = {
      provider: "echo",
      cell: "turn",
      status: "fail" as const,
      ms: 1,
      events: 5,
      diffs: [
        { against: "oracle" as const, ...diff },
        { against: "recording" as const, ...diff },
      ],
      stale: [],
      divergences: [],
    };
    expect(renderJunitReport({ ms: 1, cells: [cell] })).toContain('<failure message="1 difference" type="parity">');
  });

  it("the README's numbers of committed recordings are the measured ones", async () => {
    const root = path.join(repoRoot, "recordings");
    const providers = (await readdir(root)).filter((p) => !p.includes(".")).sort();
    const cells: Array<{ provider: string; fixture: boolean; process: boolean }> = [];
    for (const provider of providers) {
      for (const cell of await readdir(path.join(root, provider))) {
        const manifest = JSON.parse(await readFile(path.join(root, provider, cell, "manifest.json"), "utf8")) as { cliVersion?: string; scope?: string };
        cells.push({ provider, fixture: String(manifest.cliVersion ?? "").startsWith("fixture agent"), process: manifest.scope === "process" });
      }
    }
    const readme = await readFile(path.join(repoRoot, "README.md"), "utf8");
    const fixture = cells.filter((c) => c.fixture);
    const live = cells.filter((c) => !c.fixture && c.provider !== "echo");
    const processScoped = cells.filter((c) => c.process).length;
    const sentence = readme.slice(readme.indexOf("Committed recordings (`parity list`):")).replace(/\s+/g, " ");
    expect(sentence).toContain(`${cells.length} cells of ${providers.length} providers`);
    expect(sentence).toContain(`echo (${cells.filter((c) => c.provider === "echo").length})`);
    expect(sentence).toContain(`${fixture.length} fixture-agent cells`);
    expect(sentence).toContain(`${live.length} recorded live`);
    for (const provider of new Set(live.map((c) => c.provider))) expect(sentence).toContain(`${provider} ${live.filter((c) => c.provider === provider).length}`);
    expect(sentence).toContain(`\`parity check\` replays all ${cells.length} (${cells.length - processScoped} thread cells; ${processScoped} process-scoped`);
    // check gates each accepted alternate path as a cell of its own: a fresh clone's gate counts them
    // too (`187 passed, 0 failed, 4 skipped (191 cells)`), which the README said as 189 before.
    const alternates: string[] = [];
    for (const provider of providers) {
      for (const cell of await readdir(path.join(root, provider))) {
        const dir = path.join(root, provider, cell, "alternates");
        const paths = await readdir(dir).catch(() => [] as string[]);
        alternates.push(...paths.filter((k) => /^\d+$/.test(k)).map((k) => `${provider}/${cell}/alternates/${k}`));
      }
    }
    const gated = cells.length + alternates.length;
    expect(sentence).toContain(`and the ${alternates.length} accepted alternate paths`);
    expect(sentence).toContain(`\`${gated - processScoped} passed, 0 failed, ${processScoped} skipped (${gated} cells)\``);
  });
});
