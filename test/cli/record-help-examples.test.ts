/**
 * `parity record --help`'s examples run as written in a fresh clone. One that records a single cell
 * into the project's `recordings/` (no --out, --repeat, --agent-version, --all-cells) and names a
 * cell the provider has a committed recording of is only refused ("a recording already exists here
 * and is never overwritten", exit 2): `parity record --provider acp-opencode --cell turn-tools` was,
 * tried by a new user from a fresh clone.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RECORD_EXAMPLES } from "../../harness/cli/record.js";
import { repoRoot, runCli } from "./run-cli.js";

/** The value after `flag` in the example's words, or undefined. */
const flagValue = (words: readonly string[], flag: string) => {
  const at = words.indexOf(flag);
  return at >= 0 ? words[at + 1] : undefined;
};

describe("parity record --help examples", () => {
  it("none records a single cell into recordings/ over a committed recording", () => {
    const refused: string[] = [];
    for (const [command] of RECORD_EXAMPLES) {
      const words = command.split(/\s+/);
      if (["--out", "--repeat", "--agent-version", "--all-cells", "--custom-agents"].some((flag) => words.includes(flag))) continue;
      const provider = flagValue(words, "--provider");
      const cell = flagValue(words, "--cell");
      expect(provider, command).toBeDefined();
      expect(cell, command).toBeDefined();
      if (existsSync(path.join(repoRoot, "recordings", provider!, cell!))) refused.push(command);
    }
    expect(refused).toEqual([]);
  });

  it("are what --help shows", async () => {
    const help = await runCli(["record", "--help"]);
    expect(help.code).toBe(0);
    const shown = help.out.replace(/\s+/g, " ");
    for (const [command] of RECORD_EXAMPLES) {
      // yargs wraps the command column; every word of each example is there in order.
      const words = command.replace("$0", "parity").split(/\s+/);
      let at = 0;
      for (const word of words) {
        at = shown.indexOf(word, at);
        expect(at, `${word} of ${command}`).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
