import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../harness/recording/redact.js";
import { sweepDirectory } from "../../harness/recording/redact-verify.js";
import { repoRoot } from "../cli/run-cli.js";

const recordings = path.join(repoRoot, "recordings");
const cells = readdirSync(recordings, { withFileTypes: true })
  .filter((p) => p.isDirectory())
  .flatMap((p) => readdirSync(path.join(recordings, p.name)).map((cell) => path.join(p.name, cell)));

describe("committed recordings pass the final sweep", () => {
  // The repository path and temp-root names must never reach a committed recording either.
  const redactor = createRedactor({
    home: homedir() === "/" ? "/nonexistent-home" : homedir(),
    paths: [{ from: repoRoot, to: "/repo" }],
    forbidden: [/parity-record-[A-Za-z0-9]{6}/],
  });

  it.each(cells)("%s", async (cell) => {
    const dir = path.join(recordings, cell);
    expect(await sweepDirectory(dir, redactor)).toEqual([]);
    // Files only: a carried workspace/ fixture is swept above, file by file.
    for (const file of readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name))
      expect(redactor.redactFile(file, readFileSync(path.join(dir, file), "utf8"))).toBe(readFileSync(path.join(dir, file), "utf8"));
  });

  it("covers the opencode recordings", () => {
    expect(cells.filter((c) => c.startsWith("acp-opencode"))).toHaveLength(15);
  });
});
