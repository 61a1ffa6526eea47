import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../harness/errors.js";
import { detectNetworkIsolation, NETWORK_NETNS } from "../../harness/record/network.js";
import { readRecording } from "../../harness/recording/reader.js";
import { fitsUnixSocketPath, socketDirFor, socketParent, UNIX_SOCKET_PATH_MAX_BYTES } from "../../harness/runtime/unix-socket-path.js";
import { repoRoot, runCli } from "../cli/run-cli.js";
import { oneTurnCellRoot } from "./one-turn-cell.js";

// The bug: with a TMPDIR long enough that `<TMPDIR>/rec-00000000/model.sock` passed Linux's
// 107-byte socket path, Node cut the path at 107 bytes; where the cut fell on an existing
// directory (the run's own root, `<TMPDIR>/rec-00000000`, when TMPDIR is 94 bytes long) `parity
// record` ended "internal error: listen … EADDRINUSE" (exit 5). The fix
// (harness/runtime/unix-socket-path.ts) gives such a socket a short private directory; replay's
// relay and child sockets (`<TMPDIR>/pr-XXXXXX/relay.sock`) get the same guard.

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory whose path is `bytes` long, below a fresh temp dir (pushed for cleanup). */
function dirOfLength(bytes: number): string {
  const base = mkdtempSync(path.join(os.tmpdir(), "parity-long-"));
  dirs.push(base);
  const long = path.join(base, "d".repeat(Math.max(1, bytes - base.length - 1)));
  mkdirSync(long);
  expect(long.length).toBe(bytes);
  return long;
}

describe("Unix socket paths under a long temp directory", () => {
  it("fits at 107 bytes and not at 108 (Linux sun_path, NUL included)", () => {
    expect(UNIX_SOCKET_PATH_MAX_BYTES).toBe(107);
    expect(fitsUnixSocketPath(`/${"a".repeat(106)}`)).toBe(true);
    expect(fitsUnixSocketPath(`/${"a".repeat(107)}`)).toBe(false);
    // Bytes, not characters: a two-byte letter counts twice.
    expect(fitsUnixSocketPath(`/${"é".repeat(54)}`)).toBe(false);
  });

  it("socketParent keeps a short directory, falls back to a short one, and names both when neither fits", () => {
    expect(socketParent("/tmp/short", "pr-XXXXXX/relay.sock")).toBe("/tmp/short");
    const long = `/tmp/${"x".repeat(100)}`;
    expect(socketParent(long, "pr-XXXXXX/relay.sock", "/tmp")).toBe("/tmp");
    const call = (): string => socketParent(long, "pr-XXXXXX/relay.sock", long);
    expect(call).toThrow(UsageError);
    expect(call).toThrow(/too long for a Unix socket path .*set TMPDIR to a shorter directory/);
  });

  it("socketDirFor uses the run's directory when the socket fits there, else makes (and owns) a short private one", async () => {
    const short = mkdtempSync(path.join(os.tmpdir(), "parity-s-"));
    dirs.push(short);
    expect(await socketDirFor(short, "model.sock", short)).toEqual({ dir: short, owned: false });
    const fallback = mkdtempSync(path.join("/tmp", "parity-fb-"));
    dirs.push(fallback);
    const got = await socketDirFor(dirOfLength(100), "model.sock", fallback);
    expect(got.owned).toBe(true);
    expect(path.dirname(got.dir)).toBe(fallback);
    expect(fitsUnixSocketPath(path.join(got.dir, "model.sock"))).toBe(true);
  });

  it("parity check replays a real agent's recording through a bridge whose TMPDIR is 97 bytes long", async () => {
    vi.stubEnv("TMPDIR", dirOfLength(97));
    const result = await runCli(["check", "--provider", "pi", "--cell", "zero-work"], { cwd: repoRoot });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/1 passed/);
  });

  it.skipIf(detectNetworkIsolation("auto").kind !== "netns")(
    "parity record in a network namespace under a 94-byte TMPDIR (the model socket's cut fell on the run's root) records, and leaves nothing behind",
    async () => {
      const root = oneTurnCellRoot(dirs, "record-long-tmp-", "thr_long_tmpdir");
      const temp = path.join(root, "tmp", "t".repeat(Math.max(1, 94 - root.length - 5)));
      mkdirSync(temp);
      expect(temp.length).toBe(94);
      vi.stubEnv("TMPDIR", temp);
      const cellFile = path.join(root, "cells", "one-turn", "cell.json");
      writeFileSync(cellFile, JSON.stringify({ ...JSON.parse(readFileSync(cellFile, "utf8")), model: { responses: [{ text: "Hello." }] } }));
      const agents = path.join(root, "agents.json");
      const loopbackAgent = path.join(repoRoot, "test", "fixtures", "agents", "loopback-agent.mjs");
      writeFileSync(
        agents,
        JSON.stringify([{ id: "loop", displayName: "loopback-agent", command: process.execPath, args: [loopbackAgent], record: { modelApi: "openai-chat", env: { OPENAI_BASE_URL: "{{baseUrl}}" } } }]),
      );
      const out = path.join(root, "out");
      const args = ["record", "--provider", "acp-loop", "--cell", "one-turn", "--custom-agents", agents, "--cells", path.join(root, "cells"), "--out", out, "--network", "netns"];
      const result = await runCli(args, { cwd: root });
      expect(result.err).toBe("");
      expect(result.code).toBe(0);
      const recording = await readRecording(path.join(out, "acp-loop", "one-turn"));
      expect(recording.manifest.network).toBe(NETWORK_NETNS);
      expect(recording.lanes["provider→bridge"].map((e) => e.line).join("\n")).toContain("Hello.");
      expect(readdirSync(temp)).toEqual([]);
    },
  );
});
