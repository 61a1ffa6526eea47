import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckProgress, type ProgressStream } from "../../harness/progress/check-progress.js";
import { repoRoot, runCli } from "../helpers/run-cli.js";

function fakeStream(isTTY: boolean, columns?: number): ProgressStream & { text: string } {
  const stream = {
    isTTY,
    text: "",
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
    ...(columns !== undefined ? { columns } : {}),
  };
  return stream;
}

describe("check progress", () => {
  it("off a terminal: one line per finished cell, in finishing order, nothing for a start", () => {
    const stream = fakeStream(false);
    const progress = createCheckProgress(stream, 12);
    progress.started("acp-cursor/fork");
    progress.started("acp-cursor/resume");
    expect(stream.text).toBe("");
    progress.finished("acp-cursor/resume", "pass", 420);
    progress.finished("acp-cursor/model-list", "skip", 0);
    progress.finished("acp-cursor/fork", "fail", 1250);
    progress.end();
    expect(stream.text).toBe([" 1/12 cells · acp-cursor/resume passed (0.4 s)", " 2/12 cells · acp-cursor/model-list skipped", " 3/12 cells · acp-cursor/fork FAILED (1.3 s)", ""].join("\n"));
  });

  it("on a terminal: one line rewritten in place, naming the earliest running cell, erased at the end", () => {
    const stream = fakeStream(true, 100);
    const progress = createCheckProgress(stream, 30);
    progress.started("acp-opencode/steer");
    progress.started("acp-opencode/fork");
    progress.finished("acp-opencode/steer", "pass", 300);
    progress.end();
    progress.finished("acp-opencode/fork", "pass", 300);
    const frames = stream.text.split("\r\x1b[2K");
    expect(frames).toEqual(["", " 0/30 cells · acp-opencode/steer", " 0/30 cells · acp-opencode/steer", " 1/30 cells · acp-opencode/fork", ""]);
    expect(stream.text).not.toContain("\n");
  });

  it("cuts the live line to the terminal's width", () => {
    const stream = fakeStream(true, 20);
    createCheckProgress(stream, 30).started("acp-hermes-agent/user-question");
    expect(stream.text).toBe("\r\x1b[2K 0/30 cells · acp-h");
  });

  it("parity check off a terminal prints a line per cell on stderr and leaves the report on stdout alone", async () => {
    const bin = path.join(repoRoot, "bin", "parity.js");
    const run = spawnSync(process.execPath, [bin, "check", "--provider", "echo", "--reporter", "json"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status).toBe(0);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const [i, line] of lines.entries()) expect(line).toMatch(new RegExp(`^${i + 1}/4 cells · echo/(resume|stop-interrupt|turn|zero-work) passed \\(\\d+\\.\\d s\\)$`));
    expect(new Set(lines.map((l) => l.split(" ")[3])).size).toBe(4);
    const inProcess = await runCli(["check", "--provider", "echo", "--reporter", "json"]);
    expect(inProcess.err).toBe("");
    const cells = (out: string) => (JSON.parse(out) as { cells: Array<{ cell: string; status: string }> }).cells.map((c) => [c.cell, c.status]);
    expect(cells(run.stdout)).toEqual(cells(inProcess.out));
  });
});

// `script` gives the child a pseudo-terminal, as a user's terminal would; skipped where it is missing.
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

describe.runIf(hasScript)("parity check on a terminal", () => {
  const onTerminal = (term: string): string => {
    const bin = path.join(repoRoot, "bin", "parity.js");
    const command = `TERM=${term} ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} check --provider echo --cell turn --reporter json > /dev/null`;
    return spawnSync("script", ["-qec", command, "/dev/null"], { cwd: repoRoot, encoding: "utf8" }).stdout;
  };

  it("draws one live line and erases it", () => {
    const text = onTerminal("xterm");
    expect(text).toContain("\r\x1b[2K0/1 cells · echo/turn");
    expect(text.endsWith("\r\x1b[2K")).toBe(true);
    expect(text).not.toContain("\n");
  });

  it("a dumb terminal gets a line per cell instead", () => {
    const text = onTerminal("dumb");
    expect(text).not.toContain("\x1b[2K");
    expect(text.replace(/\r/g, "")).toMatch(/^1\/1 cells · echo\/turn passed \(\d+\.\d s\)\n$/);
  });
});
