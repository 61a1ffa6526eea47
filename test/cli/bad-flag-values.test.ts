import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DirectoryCreateError, ensureDir } from "../../harness/recording/atomic-write.js";
import { repoRoot, runCli, sharedRecordings } from "./run-cli.js";

// The new-user trial's inputs, fed exactly: each is exit 2 with ONE line on stderr naming the
// option and the problem, nothing on stdout, nothing written (docs/design/00-product.md, CLI exit codes).

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "parity-usage2-"));
  work.push(dir);
  return dir;
}

/** Exactly one stderr line, `parity: <message>`, matching `pattern`; nothing on stdout. */
function expectOneLine(r: { code: number; out: string; err: string }, pattern: RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toHaveLength(2);
  expect(r.err.endsWith("\n")).toBe(true);
  expect(r.err).toMatch(pattern);
  expect(r.err).not.toMatch(/\n\s+at /);
}

describe("--module that is not a provider bridge", () => {
  it("check --module pasted from `check --help` (no such file): exit 2 before any replay", async () => {
    const r = await runCli(["check", "--provider", "acp-cursor", "--module", "./dist/my-acp-bridge.js"]);
    expectOneLine(r, /^parity: --module \.\/dist\/my-acp-bridge\.js: no such module \(.*dist\/my-acp-bridge\.js\)\n$/);
  });

  it("replay … --module ./x.js: exit 2, one line", async () => {
    const r = await runCli(["replay", "recordings/echo/turn", "--module", "./x.js"]);
    expectOneLine(r, /^parity: --module \.\/x\.js: no such module /);
  });

  it("a directory, a module that throws on import, and one without the export are each named", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "throws.mjs"), 'throw new Error("boom at import");\n');
    await writeFile(path.join(dir, "plain.mjs"), "export const somethingElse = 1;\n");
    const at = (file: string) => ["check", "--provider", "echo", "--cell", "turn", "--module", path.join(dir, file)];
    expectOneLine(await runCli(["check", "--provider", "echo", "--module", dir]), /: not a file /);
    expectOneLine(await runCli(at("throws.mjs")), /throws\.mjs: cannot load: boom at import\n$/);
    expectOneLine(await runCli(at("plain.mjs")), /plain\.mjs: does not export experimental_providerBridge /);
  });

  it("the shipped echo bridge passes the check and the gate runs through it", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--module", "dist/stack/echo/bridge.js", "--reporter", "json"]);
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { cells: { status: string }[] }).cells.map((c) => c.status)).toEqual(["pass"]);
  });
});

describe("--timeout and --jobs values", () => {
  it.each(["-5", "0", "abc", "1.5"])("check --timeout %s: exit 2 quoting the value", async (value) => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--timeout", value]);
    expectOneLine(r, new RegExp(`^parity: --timeout ${value.replace(".", "\\.")}: expected a positive whole number of ms\\n$`));
  });

  it.each(["-5", "0", "abc"])("replay --timeout %s: exit 2 quoting the value", async (value) => {
    const r = await runCli(["replay", "recordings/echo/turn", "--timeout", value]);
    expectOneLine(r, new RegExp(`^parity: --timeout ${value}: expected a positive whole number of ms\\n$`));
  });

  it("--jobs abc names abc, not NaN", async () => {
    const r = await runCli(["check", "--provider", "echo", "--jobs", "abc"]);
    expectOneLine(r, /^parity: --jobs abc: expected a positive whole number of cells\n$/);
  });

  it("a valid --timeout and --jobs still run the gate", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--timeout", "5000", "--jobs", "1", "--reporter", "json"]);
    expect(r.code, r.err).toBe(0);
  });
});

describe.skipIf(process.platform !== "linux")("a path under /proc cannot hold a directory (Node's recursive mkdir loops there)", () => {
  it("check --dump-dir /proc/x: exit 2 naming the option, no replay", async () => {
    const r = await runCli(["check", "--provider", "echo", "--cell", "turn", "--dump-dir", "/proc/x"]);
    expectOneLine(r, /^parity: --dump-dir \/proc\/x: cannot create directory: ENOENT \(.+\)\n$/);
  });

  it("lanes --out /proc/x: exit 2 naming the option", async () => {
    const r = await runCli(["lanes", "--provider", "echo", "--out", "/proc/x"]);
    expectOneLine(r, /^parity: --out \/proc\/x: cannot create directory: ENOENT /);
  });

  it("record --out /proc/x: exit 2 naming the directory, nothing written (it used to hang)", async () => {
    const r = await runCli(["record", "--provider", "echo", "--cell", "zero-work", "--out", "/proc/x"]);
    expectOneLine(r, /^parity: \/proc\/x: cannot create directory: ENOENT /);
  });

  it("diff --html /proc/x/a.html: exit 2 naming the option and the directory, nothing printed", async () => {
    const r = await runCli(["diff", "lanes/echo/turn.json", "lanes/echo/turn.json", "--html", "/proc/x/a.html"]);
    expectOneLine(r, /^parity: --html \/proc\/x\/a\.html: cannot create directory \/proc\/x: ENOENT /);
  });

  it("ensureDir fails once with a DirectoryCreateError", async () => {
    const thrown = await ensureDir("/proc/x/y").catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(DirectoryCreateError);
    expect((thrown as DirectoryCreateError).errno).toBe("ENOENT");
    expect((thrown as DirectoryCreateError).dir).toBe("/proc/x");
  });
});

describe("ensureDir elsewhere", () => {
  it("creates missing parents, accepts an existing directory, refuses a file in the path", async () => {
    const dir = await tempDir();
    await ensureDir(path.join(dir, "a", "b", "c"));
    await ensureDir(path.join(dir, "a", "b"));
    expect(await readdir(path.join(dir, "a", "b"))).toEqual(["c"]);
    await writeFile(path.join(dir, "file"), "x");
    const thrown = await ensureDir(path.join(dir, "file", "sub")).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(DirectoryCreateError);
    expect((thrown as DirectoryCreateError).errno).toBe("ENOTDIR");
    expect((thrown as DirectoryCreateError).dir).toBe(path.join(dir, "file", "sub"));
  });
});

describe("parity allow against the recordings in effect", () => {
  /** A working directory whose recordings/ is the repo's (linked, nothing copied). */
  async function project(): Promise<string> {
    const dir = await tempDir();
    await symlink(path.join(repoRoot, "recordings"), path.join(dir, "recordings"), "dir");
    return dir;
  }
  const allow = (provider: string, cell: string, ...extra: string[]) => [
    "allow",
    "--provider",
    provider,
    "--cell",
    cell,
    "--pr",
    "#5",
    "--reason",
    "x",
    ...(extra.includes("--path") ? [] : ["--path", "/0/type"]),
    ...extra,
  ];

  it("an unknown provider (the trial's input): exit 2 naming it, no allowlist written", async () => {
    const cwd = await project();
    const r = await runCli(allow("nosuch", "turn"), { cwd });
    expectOneLine(r, /^parity: unknown --provider nosuch: nothing of it is recorded under recordings \(recorded providers: .*echo.*\)\n$/);
    expect(existsSync(path.join(cwd, "allowlists"))).toBe(false);
  });

  it("an unknown cell of a known provider, and of any provider: exit 2 naming it", async () => {
    const cwd = await project();
    expectOneLine(await runCli(allow("echo", "nosuch"), { cwd }), /^parity: unknown --cell nosuch: no recording of it for echo under recordings \(recorded cells: .*turn.*\)\n$/);
    expectOneLine(await runCli(allow("*", "nosuch"), { cwd }), /^parity: unknown --cell nosuch: no recording of it for any provider /);
    expect(existsSync(path.join(cwd, "allowlists"))).toBe(false);
  });

  it("--recordings is the root checked: a cell recorded only there is accepted, one missing there refused", async () => {
    const cwd = await project();
    expectOneLine(await runCli(allow("echo", "turn", "--recordings", sharedRecordings), { cwd }), /^parity: unknown --provider echo: .* under .*shared\/recordings /);
    const r = await runCli(allow("acp-cursor", "fork", "--recordings", sharedRecordings), { cwd });
    expect(r.code, r.err).toBe(0);
  });

  it("recorded cells and wildcards are accepted and written", async () => {
    const cwd = await project();
    expect((await runCli(allow("echo", "turn"), { cwd })).code).toBe(0);
    expect((await runCli(allow("echo", "*", "--path", "/1/type"), { cwd })).code).toBe(0);
    expect((await runCli(allow("*", "turn", "--path", "/2/type"), { cwd })).code).toBe(0);
    const written = JSON.parse(readFileSync(path.join(cwd, "allowlists", "echo.json"), "utf8")) as unknown[];
    expect(written).toHaveLength(2);
  });
});

describe("small things", () => {
  const version = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

  it.each(["--version", "-V"])("parity %s prints the package version", async (flag) => {
    const r = await runCli([flag]);
    expect(r).toEqual({ code: 0, out: `${version}\n`, err: "" });
  });

  it("--help lists the version flag once, with both of its letters (it listed -V and -v as two options)", async () => {
    for (const argv of [["--help"], ["list", "--help"]]) {
      const lines = (await runCli(argv)).out.split("\n").filter((line) => line.includes("--version"));
      expect(lines, argv.join(" ")).toHaveLength(1);
      expect(lines[0]).toMatch(/^\s+-V, -v, --version\s+Print the package version/);
    }
    expect((await runCli(["-v"])).out).toBe(`${version}\n`);
  });

  it("yargs' choices, missing-flag and missing-argument errors in the CLI's words: the flag as --name, its value, how to see help", async () => {
    expect(await runCli(["facts", "--network", "bogus"])).toEqual({ code: 2, out: "", err: "parity: --network bogus: use one of auto, netns, watch\n" });
    expect(await runCli(["drift"])).toEqual({ code: 2, out: "", err: "parity: missing --provider, --from: see parity drift --help\n" });
    expect(await runCli(["conform"])).toEqual({ code: 2, out: "", err: "parity: missing --bridge: see parity conform --help\n" });
    expect(await runCli(["compare", "echo"])).toEqual({
      code: 2,
      out: "",
      err: "parity: parity compare <providerA> <providerB>: 1 of 2 arguments given; see parity compare --help\n",
    });
    expect((await runCli(["merge-reports"])).err).toBe("parity: parity merge-reports <blobs..>: 0 of 1 arguments given; see parity merge-reports --help\n");
  });

  it("replay of a provider's folder names cells to pick; two output flags are refused (--json won over --timeline silently)", async () => {
    expectOneLine(
      await runCli(["replay", "recordings/echo"]),
      /^parity: recordings\/echo holds recordings, it is not one: name one cell, e.g. parity replay recordings\/echo\/resume or recordings\/echo\/stop-interrupt or recordings\/echo\/turn\n$/,
    );
    expectOneLine(await runCli(["replay", "recordings/echo/turn", "--timeline", "--json"]), /^parity: --json and --timeline are alternatives: pass one\n$/);
  });

  it("exit code 3 is in the top-level --help and in record --help, not in check --help; 4 in check --help", async () => {
    const top = await runCli(["--help"]);
    expect(top.out.replace(/\s+/g, " ")).toContain("3 a secret survived redaction");
    const record = await runCli(["record", "--help"]);
    expect(record.out.replace(/\s+/g, " ")).toContain("2 usage or input error, 3 a secret survived redaction");
    const check = await runCli(["check", "--help"]);
    expect(check.out.replace(/\s+/g, " ")).toContain(
      "Exit codes: 0 pass, 1 parity failure, 2 usage or input error, 4 infrastructure timeout (the wall-clock ceiling; no verdict); 5 internal error (a file, directory or stream that could not be read or written, named in one line); 129 parent gone (SIGHUP), 130 interrupted (SIGINT)",
    );
    expect(check.out).not.toContain("secret");
    // import redacts as record does, and replays each thread before writing: 3 and 4 are its too.
    const imported = await runCli(["import", "--help"]);
    expect(imported.out.replace(/\s+/g, " ")).toContain("2 usage or input error, 3 a secret survived redaction (nothing written), 4 infrastructure timeout");
  });

  it("one cell, one lane: singular counts", async () => {
    const lanes = await runCli(["lanes", "--provider", "echo", "--cell", "turn"]);
    expect(lanes.out.endsWith("\n1 cell\n")).toBe(true);
    const diff = await runCli(["diff", "lanes/echo/turn.json", "lanes/echo/turn.json"]);
    expect(diff.out).toContain("1 unchanged (1 lane)");
    const check = await runCli(["check", "--provider", "echo", "--cell", "turn", "--reporter", "github"]);
    expect(check.out).toContain("skipped (1 cell)");
  });

  it("replay --timeline of a cell whose live thread lane is empty says so", async () => {
    const r = await runCli(["replay", "--recordings", "../shared/recordings", "--provider", "acp-cursor", "--cell", "fork", "--timeline"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("acp-cursor/fork: the live thread lane is empty (0 events)\n");
  });
});

describe("nothing is written on a usage error", () => {
  it("check with a bad --timeout and a fresh --dump-dir creates no directory", async () => {
    const dir = await tempDir();
    const dump = path.join(dir, "dump");
    const r = await runCli(["check", "--provider", "echo", "--timeout", "0", "--dump-dir", dump]);
    expect(r.code).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("--agent-process", () => {
  it("a value outside in-process | relay | node: exit 2, one line naming the choices, before any replay", async () => {
    const r = await runCli(["check", "--provider", "echo", "--agent-process", "perl"]);
    expectOneLine(r, /^parity: --agent-process perl: use one of in-process, relay, node\n$/);
  });

  it("each stand-in replays a real agent's cell to the same verdict (the whole matrix: test/gate/stand-ins-matrix.ci.ts)", async () => {
    const outs: string[] = [];
    for (const kind of ["in-process", "relay", "node"]) {
      const r = await runCli(["check", "--provider", "pi", "--cell", "resume", "--agent-process", kind, "--reporter", "json"]);
      expect(r.code, r.err).toBe(0);
      const report = JSON.parse(r.out) as { cells: Array<{ status: string }> };
      outs.push(report.cells.map((c) => c.status).join(","));
    }
    expect(outs).toEqual(["pass", "pass", "pass"]);
  });
});
