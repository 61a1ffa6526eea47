import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { terminalSafe, visible, visibleLine } from "../../harness/report/visible.js";
import { repoRoot } from "../helpers/run-cli.js";

const run = promisify(execFile);

// What a hostile allowlist reason can hold: an OSC window title ended by BEL, a clear-screen, a
// cursor move home, a carriage return that would overwrite the line, a right-to-left override and
// a C1 control (CSI as one byte).
const HOSTILE = "evil \u001b]0;PWNED\u0007 \u001b[2J\u001b[H clear\r over \u202eRTL\u202c \u009b31m";

/** Every escape byte of `text` that does not start a colour (SGR) sequence, and every raw steering character. */
function steering(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\u001b") {
      if (!/^\u001b\[[0-9;]*m/.test(text.slice(i, i + 16))) found.push(JSON.stringify(text.slice(i, i + 8)));
    } else if (/[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(ch)) {
      found.push(JSON.stringify(ch));
    }
  }
  return found;
}

describe("visible", () => {
  test("writes every steering character as \\uXXXX and keeps tab and newline", () => {
    expect(visible("a\u001b[2Jb\tc\nd\re\u202ef\u0007")).toBe("a\\u001b[2Jb\tc\nd\\u000de\\u202ef\\u0007");
  });

  test("visibleLine also escapes newline and tab, so a value cannot forge a report line", () => {
    expect(visibleLine("x\nFAIL fake\ty")).toBe("x\\u000aFAIL fake\\u0009y");
  });

  test("leaves ordinary text, including non-Latin scripts and emoji, untouched", () => {
    const text = "ok — über, 日本語, עברית, 🎉";
    expect(visible(text)).toBe(text);
    expect(terminalSafe(text, true)).toBe(text);
  });

  test("its escapes are JSON escapes: the guard over JSON output keeps what the JSON means", () => {
    const value = { reason: "a\u202eb\u0085c\u007f" };
    const guarded = terminalSafe(JSON.stringify(value), false);
    expect(steering(guarded)).toEqual([]);
    expect(JSON.parse(guarded)).toEqual(value);
  });

  test("terminalSafe keeps the colour sequences chalk writes only when colour is on", () => {
    const text = "\u001b[31mFAIL\u001b[39m \u001b]0;t\u0007";
    expect(terminalSafe(text, true)).toBe("\u001b[31mFAIL\u001b[39m \\u001b]0;t\\u0007");
    expect(terminalSafe(text, false)).toBe("\\u001b[31mFAIL\\u001b[39m \\u001b]0;t\\u0007");
  });
});

describe("parity check --explain over a hostile allowlist", () => {
  let dir: string;
  let allowlist: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "parity-visible-"));
    allowlist = path.join(dir, "allow.json");
    const entry = { provider: "echo", cell: "turn", layer: "events", path: "/*/delta", pr: "#5", reason: HOSTILE };
    await writeFile(allowlist, `${JSON.stringify([entry], null, 2)}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function check(extraEnv: Record<string, string>, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const argv = [path.join(repoRoot, "bin/parity.js"), "check", "--provider", "echo", "--cell", "turn", "--allowlist", allowlist, ...flags];
    const env = { ...process.env, CI: "", NO_COLOR: "", ...extraEnv };
    try {
      const { stdout, stderr } = await run(process.execPath, argv, { cwd: repoRoot, env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  test.each([
    ["without colour", { FORCE_COLOR: "0" }],
    ["with colour forced (a CI log)", { FORCE_COLOR: "1" }],
  ])("%s: the reviewer's terminal gets no steering sequence, and sees the reason's escapes", async (_name, env) => {
    const { code, stdout, stderr } = await check(env, "--explain");
    // The entry masks no difference on echo/turn, so it is stale: exit 1, and the reason is printed.
    expect(code).toBe(1);
    expect(steering(stdout)).toEqual([]);
    expect(steering(stderr)).toEqual([]);
    expect(stdout).toContain("evil \\u001b]0;PWNED\\u0007 \\u001b[2J\\u001b[H clear\\u000d over \\u202eRTL\\u202c \\u009b31m");
  });

  test("the JSON report keeps the reason's exact value", async () => {
    const { code, stdout } = await check({ FORCE_COLOR: "0" }, "--reporter", "json");
    expect(code).toBe(1);
    expect(steering(stdout)).toEqual([]);
    expect(stdout).toContain("PWNED");
    expect(JSON.stringify(JSON.parse(stdout))).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });

  test("the junit and github reports carry no steering character either", async () => {
    for (const reporter of ["junit", "github"]) {
      const { stdout } = await check({ FORCE_COLOR: "0" }, "--reporter", reporter);
      expect(steering(stdout), reporter).toEqual([]);
    }
  });
});
