import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkFactsFresh, factsTargetFor, FactsStaleError, listFactsTargets, requireFreshFacts } from "../../harness/facts/fresh.js";
import { readFactsFile } from "../../harness/facts/reader.js";
import { factsFilePath } from "../../harness/facts/source.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

// `parity facts` end to end, in-process, over copies of committed cells (never the repository's
// own cells/: a test writes only below its temp dir).
const tmp = mkdtempSync(path.join(os.tmpdir(), "facts-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const repoCells = path.join(repoRoot, "cells");

/** A fresh copy of the committed `cells` named, with their facts, under a new root. */
function copyCells(...names: string[]): string {
  const root = mkdtempSync(path.join(tmp, "cells-"));
  for (const name of names) cpSync(path.join(repoCells, name), path.join(root, name), { recursive: true });
  return root;
}

describe("the committed facts", () => {
  it("every cell and variant has its facts, fresh, and each reads", async () => {
    const targets = await listFactsTargets(repoCells);
    expect(targets.length).toBeGreaterThan(20);
    for (const t of targets) {
      expect(await checkFactsFresh(repoCells, t.cell, t.variant)).toMatchObject({ status: "fresh" });
      const facts = await readFactsFile(factsFilePath(repoCells, t.cell, t.variant));
      expect([facts.cell, facts.variant]).toEqual([t.cell, t.variant]);
    }
  });

  it("command-fails: what the command really prints and its real exit code", async () => {
    const facts = await readFactsFile(factsFilePath(repoCells, "command-fails", null));
    expect(facts.steps).toEqual([expect.objectContaining({ kind: "command", ran: true, stdout: "first line\nsecond line\n", stderr: "something went wrong\n", exit: { code: 3 } })]);
    expect(facts.turns).toEqual([{ prompt: 1, responses: [0, 1], end: "completed" }]);
  });

  it("a provider's lane is judged by its variant's facts, else the cell's", () => {
    expect(factsTargetFor(repoCells, "approval-deny", "acp-qwen")).toEqual({ cell: "approval-deny", variant: "acp-qwen" });
    expect(factsTargetFor(repoCells, "approval-deny", "acp-opencode")).toEqual({ cell: "approval-deny", variant: null });
    expect(factsTargetFor(repoCells, "turn", "acp-opencode")).toBeNull();
  });
});

describe("a stale facts file fails loudly", () => {
  it("an edited cell.json makes its facts stale: one line naming the file and the command, exit 2", async () => {
    const cells = copyCells("command-fails");
    const file = path.join(cells, "command-fails", "cell.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("exit 3", "exit 4"));
    expect(await checkFactsFresh(cells, "command-fails", null)).toMatchObject({ status: "stale", command: "parity facts --cell command-fails" });
    const thrown = await requireFreshFacts(cells, "command-fails", null).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(FactsStaleError);
    expect((thrown as FactsStaleError).exitCode).toBe(2);
    expect((thrown as Error).message).toBe(
      `${path.join(cells, "command-fails", "facts.json")}: stale facts: the cell (its definition, variant or workspace) changed since they were computed; run \`parity facts --cell command-fails\``,
    );
    const r = await runCli(["facts", "--check", "--cells", cells]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: `parity: ${path.join(cells, "command-fails", "facts.json")}: stale facts: the cell (its definition, variant or workspace) changed since they were computed; run \`parity facts --cell command-fails --cells ${cells}\`\n`,
    });
  });

  it("an edited workspace file or variant makes only the facts it feeds stale; a missing file is named too", async () => {
    const cells = copyCells("turn-tools", "approval-deny");
    writeFileSync(path.join(cells, "turn-tools", "workspace", "notes.txt"), "status: draft\r\n");
    writeFileSync(path.join(cells, "approval-deny", "providers", "acp-qwen.json"), "{}\n");
    rmSync(path.join(cells, "approval-deny", "facts", "pi.json"));
    const r = await runCli(["facts", "--check", "--cells", cells]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toEqual([
      `parity: ${path.join(cells, "approval-deny", "facts", "acp-qwen.json")}: stale facts: the cell (its definition, variant or workspace) changed since they were computed; run \`parity facts --cell approval-deny --cells ${cells}\``,
      `parity: ${path.join(cells, "approval-deny", "facts", "pi.json")}: no facts file; run \`parity facts --cell approval-deny --cells ${cells}\``,
      `parity: ${path.join(cells, "turn-tools", "facts.json")}: stale facts: the cell (its definition, variant or workspace) changed since they were computed; run \`parity facts --cell turn-tools --cells ${cells}\``,
    ]);
  });
});

describe("parity facts", () => {
  it("writes the facts of a changed cell, then finds them fresh; an unchanged run writes nothing", async () => {
    const cells = copyCells("command-fails", "approval-deny");
    const file = path.join(cells, "command-fails", "cell.json");
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("exit 3", "exit 4"));
    const first = await runCli(["facts", "--cells", cells, "--cell", "command-fails", "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual([{ cell: "command-fails", variant: null, file: path.join(cells, "command-fails", "facts.json"), status: "written", steps: 1 }]);
    const facts = await readFactsFile(path.join(cells, "command-fails", "facts.json"));
    expect(facts.steps[0]).toMatchObject({ stdout: "first line\nsecond line\n", stderr: "something went wrong\n", exit: { code: 4 } });
    expect(await runCli(["facts", "--check", "--cells", cells])).toEqual({ code: 0, out: "9 facts file(s) fresh\n", err: "" });
    const again = await runCli(["facts", "--cells", cells]);
    expect(again.code).toBe(0);
    expect(again.out.trim().split("\n")).toHaveLength(9);
    expect(again.out).toMatch(/^unchanged .*command-fails\/facts\.json \(1 step\(s\)\)$/m);
    expect(again.out).not.toContain("wrote");
  });

  it("--provider selects the facts that judge that provider's lanes", async () => {
    const cells = copyCells("approval-deny", "command-fails");
    const r = await runCli(["facts", "--cells", cells, "--provider", "acp-qwen", "--check", "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { file: string }[]).map((x) => path.relative(cells, x.file))).toEqual(["approval-deny/facts/acp-qwen.json", "command-fails/facts.json"]);
  });

  it("under CI=true it never writes: a missing facts file is exit 2 and stays missing", async () => {
    const cells = copyCells("command-fails");
    rmSync(path.join(cells, "command-fails", "facts.json"));
    const r = await runCli(["facts", "--cells", cells], { ci: true });
    expect(r.code).toBe(2);
    expect(r.err).toContain("CI=true: parity facts writes nothing");
    expect(r.err).toContain(`${path.join(cells, "command-fails", "facts.json")}: no facts file; run \`parity facts --cell command-fails --cells ${cells}\``);
    expect(existsSync(path.join(cells, "command-fails", "facts.json"))).toBe(false);
  });

  it("bad flags are one line and exit 2", async () => {
    expect(await runCli(["facts", "--cell", "comand-fails"])).toEqual({ code: 2, out: "", err: `parity: --cell comand-fails: no such cell under ${repoCells} (did you mean command-fails?)\n` });
    expect(await runCli(["facts", "--provider", "acp-qwn", "--check"])).toEqual({ code: 2, out: "", err: "parity: --provider acp-qwn: no such provider (did you mean acp-qwen?)\n" });
  });

  it("a cell whose script names a path outside the workspace is refused in one line, nothing written", async () => {
    const cells = copyCells("turn-tools");
    const file = path.join(cells, "turn-tools", "cell.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"filePath": "{{cwd}}/notes.txt"', '"filePath": "/etc/hostname"'));
    const before = readFileSync(path.join(cells, "turn-tools", "facts.json"), "utf8");
    const r = await runCli(["facts", "--cells", cells]);
    expect(r).toEqual({ code: 2, out: "", err: `parity: ${file}: facts: model.responses.0.toolCalls.0 (read): /etc/hostname lies outside the workspace\n` });
    expect(readFileSync(path.join(cells, "turn-tools", "facts.json"), "utf8")).toBe(before);
  });
});
