/**
 * Portable recordings (issue 24, "Done when": `grep` over `recordings/` finds no `/tmp/`, `/root/`,
 * `node_modules/.bin` path of the recording machine outside normalized placeholders), checked over
 * every committed recording file, so a recording made on a branch before the record layer
 * normalized its launch env (the codex and claude-code cells carried the whole expanded `PATH`,
 * `/home/user/.npm/_npx/…/node_modules/.bin:/work/wt/node_modules/.bin:…`) fails here.
 *
 * Allowed: the fixed paths a recording names (harness/recording/recorded-paths.ts `RECORDED_PATHS`:
 * workspace, home, temp root, repository) and the echo cells' own working directory, which their
 * runtime script names (`recordings/echo/*`, never a directory of the machine that ran them).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RECORDED_INHERITED_PATH, RECORDED_PATHS } from "../../harness/recording/recorded-paths.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recordingsRoot = path.join(repoRoot, "recordings");

/** The echo cells' working directory, written by their runtime script (recordings/echo/turn). */
const ECHO_CELL_CWD = "/tmp/parity-echo-ws";
const PLACEHOLDERS = [...Object.values<string>(RECORDED_PATHS), ECHO_CELL_CWD];

/** An absolute path under one of the machine-specific roots, not inside a longer path. */
const MACHINE_ROOT_PATH = /(?<![A-Za-z0-9_./-])\/(?:tmp|root|work|home)(?:\/[A-Za-z0-9_.@+~%=/-]*)?/g;
/** A `node_modules/.bin` directory and the path that leads to it. */
const BIN_DIR_PATH = /[A-Za-z0-9_.@+~%=/-]*node_modules\/\.bin/g;

const isPlaceholder = (p: string) => PLACEHOLDERS.some((h) => p === h || p.startsWith(`${h}/`));

/** Every machine path of `text` that no placeholder covers, with the rule that found it. */
function machinePaths(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(MACHINE_ROOT_PATH)) if (!isPlaceholder(m[0])) found.push(m[0]);
  for (const m of text.matchAll(BIN_DIR_PATH)) if (!m[0].startsWith(`${RECORDED_PATHS.repo}/`)) found.push(m[0]);
  return found;
}

/** Every file under `dir`, recursively (recordings carry their workspace fixture). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** Every `env.PATH` value in the launch specs of a recording line (any depth). */
function launchPaths(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => launchPaths(v, out));
  else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      const pathValue = key === "env" && typeof v === "object" && v !== null ? (v as Record<string, unknown>).PATH : undefined;
      if (typeof pathValue === "string") out.push(pathValue);
      launchPaths(v, out);
    }
  }
  return out;
}

const files = filesUnder(recordingsRoot).sort();
const lanes = files.filter((f) => f.endsWith(".ndjson"));

describe("committed recordings name no path of the machine that recorded them", () => {
  it("the detector finds what the committed codex launch env carried before issue 24, and passes the placeholders", () => {
    const before = '{"PATH":"/home/user/.npm/_npx/8686ce05b17cd27f/node_modules/.bin:/repo/node_modules/.bin:/work/wt/node_modules/.bin:/node_modules/.bin:/root/.cargo/bin"}';
    expect(machinePaths(before)).toEqual([
      "/work/wt/node_modules/.bin",
      "/root/.cargo/bin",
      "/home/user/.npm/_npx/8686ce05b17cd27f/node_modules/.bin",
      "/work/wt/node_modules/.bin",
      "/node_modules/.bin",
    ]);
    const after = '{"PATH":"/repo/agents/node_modules/.bin:$PATH","cwd":"/tmp/parity-workspace","log":"/tmp/parity-record/tmp/cc-socks/0.sock","HOME":"/home/user"}';
    expect(machinePaths(after)).toEqual([]);
  });

  it(`no file under recordings/ has a /tmp/, /root/, /work/, /home/ or node_modules/.bin path outside the placeholders`, () => {
    expect(files.length).toBeGreaterThan(400);
    const offenders = files.flatMap((file) => {
      const found = machinePaths(readFileSync(file, "utf8"));
      return found.length > 0 ? [`${path.relative(repoRoot, file)}: ${[...new Set(found)].slice(0, 3).join(", ")}`] : [];
    });
    expect(offenders).toEqual([]);
  });

  it(`every launch env PATH is the profile's /repo/… entries followed by ${RECORDED_INHERITED_PATH}, or ${RECORDED_INHERITED_PATH} alone`, () => {
    const values = new Set<string>();
    for (const file of lanes) {
      for (const entry of readFileSync(file, "utf8").split("\n")) {
        if (entry === "" || !entry.includes("PATH")) continue;
        const line = (JSON.parse(entry) as { line: string }).line;
        try {
          for (const value of launchPaths(JSON.parse(line))) values.add(value);
        } catch {
          // A line that is not JSON carries no launch spec.
        }
      }
    }
    expect(values.size).toBeGreaterThan(0);
    for (const value of values) {
      const entries = value.split(":");
      expect(entries.at(-1), value).toBe(RECORDED_INHERITED_PATH);
      for (const entry of entries.slice(0, -1)) expect(entry.startsWith(`${RECORDED_PATHS.repo}/`), value).toBe(true);
    }
  });
});
