/**
 * The launch command's installation facts (spec 20 §1.2 "installation status from `which`/`--version`"):
 * PATH lookup like `which`, and the bounded `--version` run and its parse.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI_VERSION_LIMITS, findExecutable, parseCliVersion, readCliVersion } from "../../stack/acp/maintenance/executable.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "acp-maint-exe-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function script(dir: string, name: string, body: string, mode = 0o755): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
  return file;
}

describe("parseCliVersion", () => {
  it("takes the first version-looking token, else the trimmed first line, else null", () => {
    expect(parseCliVersion("tool 1.2.3\n")).toBe("1.2.3");
    expect(parseCliVersion("v0.18.4")).toBe("0.18.4");
    expect(parseCliVersion("opencode version 1.18.0-beta.2 (linux)")).toBe("1.18.0-beta.2");
    expect(parseCliVersion("omp/3.1.0+build.7, node 20")).toBe("3.1.0+build.7");
    expect(parseCliVersion("built 2026.01.02.")).toBe("2026.01.02");
    expect(parseCliVersion("abc1.2 then 4.5")).toBe("4.5");
    expect(parseCliVersion("\n  nightly build  \nsecond")).toBe("nightly build");
    expect(parseCliVersion("x".repeat(500))).toHaveLength(200);
    expect(parseCliVersion(" \n\t")).toBeNull();
  });
});

describe("findExecutable", () => {
  it("walks PATH in order, skips directories, non-executables and empty entries; a path with / is checked as is", async () => {
    const first = tempDir();
    const second = tempDir();
    mkdirSync(path.join(first, "agent"));
    script(first, "plain", "exit 0", 0o644);
    const found = script(second, "agent", "exit 0");
    script(second, "plain", "exit 0");
    const pathValue = ["", first, second].join(path.delimiter);
    expect(await findExecutable("agent", pathValue)).toBe(found);
    expect(await findExecutable("plain", pathValue)).toBe(path.join(second, "plain"));
    expect(await findExecutable("missing", pathValue)).toBeNull();
    expect(await findExecutable("agent", undefined)).toBeNull();
    expect(await findExecutable(found, "")).toBe(found);
    expect(await findExecutable(path.join(first, "plain"), pathValue)).toBeNull();
    expect(await findExecutable("", pathValue)).toBeNull();
  });
});

describe("readCliVersion (no shell, 10 s, 64 KiB)", () => {
  it("reads stdout, else stderr; the child gets the env given; failures give null", async () => {
    const dir = tempDir();
    expect(await readCliVersion(script(dir, "out", 'echo "out $1 9.8.7"'), {})).toBe("9.8.7");
    expect(await readCliVersion(script(dir, "err", 'echo "err 1.0.0-rc1" >&2'), {})).toBe("1.0.0-rc1");
    expect(await readCliVersion(script(dir, "envy", 'echo "v$AGENT_VERSION"'), { AGENT_VERSION: "3.3.3" })).toBe("3.3.3");
    expect(await readCliVersion(script(dir, "fails", 'echo "1.2.3"; exit 2'), {})).toBeNull();
    expect(await readCliVersion(path.join(dir, "missing"), {})).toBeNull();
    const big = CLI_VERSION_LIMITS.maxOutputBytes + 1024;
    expect(await readCliVersion(script(dir, "huge", `head -c ${big} /dev/zero | tr '\\0' 'a'; echo " 1.0.0"`), { PATH: process.env.PATH })).toBeNull();
    // `$(...)` would run only through a shell; argv reaches the program literally.
    expect(await readCliVersion(script(dir, "argv", 'printf "%s\\n" "$1"'), {})).toBe("--version");
  });
});
