import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

// QA: a broken allowlist or lane file said "at position 20" (no line), and a binary file
// printed its raw bytes to the terminal.
describe("bad JSON files name the line and never echo binary", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  async function file(name: string, content: string | Buffer): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "parity-qa-json-"));
    dirs.push(dir);
    await writeFile(path.join(dir, name), content);
    return path.join(dir, name);
  }
  const allow = (f: string) => ["allow", "--provider", "echo", "--cell", "turn", "--path", "/1/a", "--pr", "#1", "--reason", "qa", "--file", f];

  it("a truncated allowlist names its line", async () => {
    const f = await file("a.json", '[\n  {"provider": "echo",\n  "cell": "turn"\n');
    const r = await runCli(allow(f));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^parity: ${f.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:4:1: not valid JSON: the file ends before the "\\{" opened at line 2, column 3 is closed\\n$`));
  });

  it("a binary allowlist is named as binary, its bytes are not printed", async () => {
    const f = await file("b.json", Buffer.from([0x5b, 0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x9b]));
    const r = await runCli(allow(f));
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${f}: binary data (NUL bytes), not JSON\n`);
  });

  it("invalid bytes without NUL are shown as ?", async () => {
    const f = await file("c.json", Buffer.from([0x7b, 0xff, 0x1b, 0x5b, 0x33, 0x31, 0x6d]));
    const r = await runCli(["diff", f, f]);
    expect(r.code).toBe(2);
    expect(r.err).not.toContain("\u001b");
    expect(r.err).not.toContain("\ufffd");
    expect(r.err).toMatch(/:1:2: not valid JSON: expected a property name in double quotes, found character U\+FFFD\n$/);
    expect(r.err.split("\n")).toHaveLength(2);
  });

  it("an empty allowlist file says so", async () => {
    const f = await file("d.json", "");
    const r = await runCli(["check", "--provider", "echo", "--cell", "zero-work", "--allowlist", f]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`parity: ${f}: not valid JSON: the file is empty\n`);
  });
});
