import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewCommand } from "../../harness/cli/review.js";
import { CURRENT_BRIDGE_LANE_FILE } from "../../harness/recording/lane-entry.js";
import { repoRoot, runCli } from "./run-cli.js";
import { copyProviderProject } from "../helpers/provider-project.js";

// Accepting changes after a failing check: `check --update` (everything) and `parity review`
// (cell by cell). A bridge that shouts "word" stands in for a deliberate bridge change.

let work = "";
let shout = "";
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "parity-review-"));
  shout = path.join(work, "shout.mjs");
  const echo = path.join(repoRoot, "dist/stack/echo/bridge.js");
  await writeFile(
    shout,
    `import { experimental_providerBridge as echo } from ${JSON.stringify(echo)};
// The echo bridge, but every "word" it writes is "WORD": the same protocol, a changed output.
const shout = (v) => typeof v === "string" ? v.replace(/word/g, "WORD") : Array.isArray(v) ? v.map(shout) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shout(x)])) : v;
const wrapped = new WeakMap();
const wrap = (ctx) => {
  if (!wrapped.has(ctx)) {
    const io = new Proxy(ctx.io, { get: (t, k) => (typeof t[k] === "function" ? (...a) => t[k](...a.map(shout)) : t[k]) });
    wrapped.set(ctx, Object.create(ctx, { io: { value: io } }));
  }
  return wrapped.get(ctx);
};
export const experimental_providerBridge = {
  handleLine: (line, ctx, message) => echo.handleLine(line, wrap(ctx), message),
  ...(echo.start ? { start: (ctx) => echo.start(wrap(ctx)) } : {}),
  ...(echo.onClose ? { onClose: (ctx) => echo.onClose(wrap(ctx)) } : {}),
};
`,
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
async function project(): Promise<string> {
  n += 1;
  return copyProviderProject(repoRoot, "echo", path.join(work, `p${n}`));
}

/**
 * A copy of a project whose local `check` (the shouting bridge) left pending results for
 * echo/resume and echo/turn: one gate run shared by the review tests of answers (reject, quit,
 * A, the PR check), whose review walks those files and replays nothing. The review that runs the
 * gate itself is covered by "walks each changed cell", --match and the write-policy tests.
 */
let checked: Promise<string> | undefined;
async function checkedProject(): Promise<string> {
  checked ??= project().then(async (dir) => {
    const r = await runCli(["check", "--module", shout], { cwd: dir });
    if (r.code !== 1) throw new Error(`the shared local check exited ${r.code}: ${r.err}`);
    return dir;
  });
  const template = await checked;
  n += 1;
  const dir = path.join(work, `p${n}`);
  await cp(template, dir, { recursive: true });
  return dir;
}

/** sha256 of every file under `dir`, by relative path. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true }).map(String)) {
    const file = path.join(dir, rel);
    if (statSync(file).isFile()) out[rel] = createHash("sha256").update(readFileSync(file)).digest("hex");
  }
  return out;
}

/** Paths whose hash differs (or appeared/disappeared) between two `hashes` results. */
function changed(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}

/** `changed` without the `.pending` files a local check leaves for cells nobody accepted or rejected. */
const changedAccepted = (before: Record<string, string>, after: Record<string, string>) => changed(before, after).filter((f) => !f.endsWith(".pending"));

// Each test runs the gate (and rerecords) several times: a budget for a loaded machine, no verdict.
describe("check --update", () => {
  it("after a bridge change: rerecords only the changed cells (oracle + .current), prints the git add, and the gate passes", async () => {
    const cwd = await project();
    const before = hashes(cwd);
    const r = await runCli(["check", "--module", shout, "--update"], { cwd });
    expect(r.code, r.err).toBe(0);
    const after = hashes(cwd);
    const files = ["lanes/echo/resume.json", "lanes/echo/turn.json", `recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}`, `recordings/echo/turn/${CURRENT_BRIDGE_LANE_FILE}`];
    expect(changed(before, after)).toEqual(files);
    expect(r.out).toContain(`updated echo/turn: lanes/echo/turn.json, recordings/echo/turn/${CURRENT_BRIDGE_LANE_FILE}\n`);
    expect(r.out).toContain(
      "to commit:\n  git add lanes/echo/resume.json 'recordings/echo/resume/bridge→runtime.current.ndjson' lanes/echo/turn.json 'recordings/echo/turn/bridge→runtime.current.ndjson'\n",
    );
    expect(JSON.parse(await readFile(path.join(cwd, "lanes/echo/turn.json"), "utf8")).some((e: { delta?: string }) => e.delta?.includes("WORD"))).toBe(true);
    const again = await runCli(["check", "--module", shout], { cwd, ci: true });
    expect(again.code).toBe(0);
    // Nothing left to update: a second run writes nothing.
    const third = await runCli(["check", "--module", shout, "--update"], { cwd });
    expect(third.out).toContain("nothing to commit\n");
    expect(changed(after, hashes(cwd))).toEqual([]);
  });

  it("a hand-edited oracle: only the oracle is rewritten; no .current, since the bridge's output did not change", async () => {
    const cwd = await project();
    const file = path.join(cwd, "lanes/echo/turn.json");
    const oracle = JSON.parse(await readFile(file, "utf8")) as Array<Record<string, unknown>>;
    oracle[4]!.delta = "edited ";
    await writeFile(file, `${JSON.stringify(oracle, null, 2)}\n`);
    const before = hashes(cwd);
    const r = await runCli(["check", "--update"], { cwd });
    expect(r.code, r.out + r.err).toBe(0);
    expect(changed(before, hashes(cwd))).toEqual(["lanes/echo/turn.json"]);
    expect(await readFile(file, "utf8")).toBe(await readFile(path.join(repoRoot, "lanes/echo/turn.json"), "utf8"));
    expect(r.out).toContain("to commit:\n  git add lanes/echo/turn.json\n");
  });

  it("is refused under CI", async () => {
    const r = await runCli(["check", "--update"], { ci: true });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^parity: CI=true: check --update writes oracles/);
  });
});

describe("github annotations after a bridge change", () => {
  it("a recording that differs exactly as the oracle does is not annotated twice: every annotation is on the oracle, at a line", async () => {
    const cwd = await project();
    const r = await runCli(["check", "--module", shout, "--cell", "turn", "--reporter", "github"], { cwd, ci: true });
    expect(r.code).toBe(1);
    const errors = r.out.split("\n").filter((l) => l.startsWith("::error "));
    expect(errors.length).toBe(3); // the changed events 7 and 9–10: two groups, then the summary annotation
    for (const line of errors.slice(0, -1)) expect(line).toMatch(/^::error file=lanes\/echo\/turn\.json,line=\d+,title=parity echo\/turn::\d+ differences? at oracle event \d+/);
  });
});

describe("parity review", () => {
  const reviewIn = async (cwd: string, answers: string[], extra: Record<string, unknown> = {}) => {
    let out = "";
    const command = createReviewCommand({ input: Readable.from(answers.map((a) => `${a}\n`)) });
    const code = await command.run({ module: shout, ...extra }, { out: (t) => void (out += t), err: (t) => void (out += t), color: false, verbose: false, ci: false, cwd });
    return { code, out };
  };

  it("walks each changed cell (summary, then diff): accept rerecords that cell only, allow writes PR-tied entries; the gate then passes", async () => {
    const cwd = await project();
    const before = hashes(cwd);
    const r = await reviewIn(cwd, ["a", "l", "#7", "the echo shouts WORD now"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("2 changed cells to review.");
    const resumeAt = r.out.indexOf("── echo/resume (1/2) ──\nFAIL echo/resume ");
    const turnAt = r.out.indexOf("── echo/turn (2/2) ──\nFAIL echo/turn ");
    expect(resumeAt).toBeGreaterThan(-1);
    expect(turnAt).toBeGreaterThan(resumeAt);
    expect(r.out.slice(resumeAt, turnAt)).toMatch(/against oracle and recording \(they agree\): 4 differences/);
    expect(r.out.slice(resumeAt, turnAt)).toContain('"word " → "WORD "');
    expect(r.out).toContain(`  accepted: lanes/echo/resume.json, recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}\n`);
    expect(r.out).toMatch(/ {2}allowed: allowlists\/echo\.json entry 0: \/\*\[turn=1\]\[item=agentMessage:1\]\[type=item\/agentMessage\/delta\]\[n=\d+\]\/delta \(#7\)\n/);
    expect(r.out).toContain("reviewed: 1 accepted, 1 allowed, 0 rejected, 0 skipped\n");
    expect(r.out).toContain("to commit:\n  git add lanes/echo/resume.json 'recordings/echo/resume/bridge→runtime.current.ndjson' allowlists/echo.json\n");
    expect(changed(before, hashes(cwd))).toEqual(["allowlists/echo.json", "lanes/echo/resume.json", `recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}`]);
    const entries = JSON.parse(await readFile(path.join(cwd, "allowlists/echo.json"), "utf8")) as Array<{ cell: string; pr: string; reason: string }>;
    expect(entries.every((e) => e.cell === "turn" && e.pr === "#7" && e.reason === "the echo shouts WORD now")).toBe(true);
    expect((await runCli(["check", "--module", shout], { cwd, ci: true })).code).toBe(0);
  });

  it("reject and quit write nothing and leave the gate red (exit 1); reject deletes the pending results, quit leaves them; an unknown answer repeats the choices", async () => {
    const cwd = await checkedProject();
    const before = hashes(cwd);
    const r = await reviewIn(cwd, ["x", "r", "q"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("  [a]ccept (rerecord this cell)  [A]ccept this and all the rest  [r]eject  a[l]low with a PR  [s]kip  [q]uit\n");
    expect(r.out).toContain("rejected: left as is");
    expect(r.out).toContain("reviewed: 0 accepted, 0 allowed, 1 rejected, 1 skipped\nnothing written\n");
    // echo/resume was rejected (its pending files deleted); echo/turn, left by quit, keeps them for a later review.
    expect(changed(before, hashes(cwd))).toEqual([`lanes/echo/resume.json.pending`, `recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}.pending`]);
    expect(
      Object.keys(hashes(cwd))
        .filter((f) => f.endsWith(".pending"))
        .sort(),
    ).toEqual([`lanes/echo/turn.json.pending`, `recordings/echo/turn/${CURRENT_BRIDGE_LANE_FILE}.pending`]);
  });

  it("A accepts this cell and every one after it without asking again (issue 27)", async () => {
    const cwd = await checkedProject();
    const r = await reviewIn(cwd, ["A"]);
    expect(r.code).toBe(0);
    expect(r.out.match(/accept, accept all, reject, allow, skip or quit\?/g)).toHaveLength(1);
    expect(r.out).toContain("reviewed: 2 accepted, 0 allowed, 0 rejected, 0 skipped\n");
    expect((await runCli(["check", "--module", shout], { cwd, ci: true })).code).toBe(0);
  });

  it("--match reviews only the cells its globs name (issue 27)", async () => {
    const cwd = await project();
    const before = hashes(cwd);
    const r = await reviewIn(cwd, ["a"], { match: ["echo/t*"] });
    expect(r.out).toContain("1 changed cell to review.");
    expect(r.out).toContain("── echo/turn (1/1) ──");
    expect(r.out).not.toContain("echo/resume");
    expect(changedAccepted(before, hashes(cwd)).every((f) => f.includes("turn"))).toBe(true);
  });

  it("checks the PR before asking for the reason (issue 27)", async () => {
    const cwd = await checkedProject();
    const before = hashes(cwd);
    const r = await reviewIn(cwd, ["s", "l", "42", "q"]);
    expect(r.out).toContain('  not allowed: PR "42" is not "#" and a number (e.g. #42)\n');
    expect(r.out).not.toContain("why it is intended");
    expect(changedAccepted(before, hashes(cwd))).toEqual([]);
  });

  it("nothing to review when the gate passes; refused under CI", async () => {
    const cwd = await project();
    expect(await reviewIn(cwd, [], { module: undefined })).toEqual({ code: 0, out: "nothing to review: 4 cells, none changed\n" });
    const ci = await runCli(["review"], { ci: true });
    expect(ci.code).toBe(2);
  });
});

describe("the write policy (harness/check/write-policy.ts)", () => {
  /** A bridge module that is the shouting echo and appends one line to `spawns` each time a bridge process loads it. */
  async function countingBridge(): Promise<{ module: string; spawns: () => number }> {
    const dir = await mkdtemp(path.join(work, "counting-"));
    const spawnsFile = path.join(dir, "spawns");
    const module = path.join(dir, "counting.mjs");
    await writeFile(spawnsFile, "");
    await writeFile(
      module,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(spawnsFile)}, "spawn\\n");\nexport { experimental_providerBridge } from ${JSON.stringify(shout)};\n`,
    );
    return { module, spawns: () => readFileSync(spawnsFile, "utf8").split("\n").filter(Boolean).length };
  }

  it("after a local check, parity review walks the .pending files it left and starts no bridge; with none, it runs the gate once (issue 28)", async () => {
    const { module, spawns } = await countingBridge();
    const cwd = await project();
    expect((await runCli(["check", "--module", module], { cwd })).code).toBe(1);
    const checkAlone = spawns();
    expect(checkAlone).toBeGreaterThan(0);
    let atFirstPrompt: number | undefined;
    const reviewed = async (dir: string, answers: string[]) => {
      let out = "";
      atFirstPrompt = undefined;
      const command = createReviewCommand({ input: Readable.from(answers.map((a) => `${a}\n`)) });
      const code = await command.run(
        { module },
        {
          out: (t) => {
            out += t;
            if (atFirstPrompt === undefined && t.includes("accept, accept all, reject")) atFirstPrompt = spawns();
          },
          err: (t) => void (out += t),
          color: false,
          verbose: false,
          ci: false,
          cwd: dir,
        },
      );
      return { code, out };
    };
    const r = await reviewed(cwd, ["a", "a"]);
    expect(r.code, r.out).toBe(0);
    expect(spawns()).toBe(checkAlone);
    expect(r.out).toContain("2 cells have pending results from an earlier parity check: reviewing them as they are (nothing replayed");
    // The legend names where the pending results came from and what accepting them does.
    expect(r.out).toContain("2 changed cells to review, pending from an earlier parity check. [a]ccept (rerecord this cell)  [A]ccept this and all the rest");
    // The same differences the gate showed, worked out from the files it left.
    const resumeAt = r.out.indexOf("── echo/resume (1/2) ──\nFAIL echo/resume ");
    const turnAt = r.out.indexOf("── echo/turn (2/2) ──\nFAIL echo/turn ");
    expect(resumeAt).toBeGreaterThan(-1);
    expect(turnAt).toBeGreaterThan(resumeAt);
    expect(r.out.slice(resumeAt, turnAt)).toMatch(/against oracle and recording \(they agree\): 4 differences/);
    expect(r.out.slice(resumeAt, turnAt)).toContain('"word " → "WORD "');
    expect(r.out).toContain(`  accepted: lanes/echo/resume.json, recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}\n`);
    expect(r.out).toContain("reviewed: 2 accepted, 0 allowed, 0 rejected, 0 skipped\n");
    expect(Object.keys(hashes(cwd)).filter((f) => f.endsWith(".pending"))).toEqual([]);
    expect((await runCli(["check", "--module", shout], { cwd, ci: true })).code).toBe(0);
    // No pending results: the review runs the gate, once (as many bridges as the check alone), and
    // its accepts start none after it (this covered "accepting in review replays nothing" alone before).
    const fresh = await project();
    const before = spawns();
    const again = await reviewed(fresh, ["a", "a"]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).not.toContain("pending results from an earlier parity check");
    expect(again.out).toContain("reviewed: 2 accepted, 0 allowed, 0 rejected, 0 skipped\n");
    expect(atFirstPrompt! - before).toBe(checkAlone);
    expect(spawns()).toBe(atFirstPrompt);
    expect(Object.keys(hashes(fresh)).filter((f) => f.endsWith(".pending"))).toEqual([]);
    expect(changedAccepted(hashes(cwd), hashes(fresh)).filter((f) => f.startsWith("lanes/"))).toEqual([]);
  }, 240_000);

  it("check --update renames the gate's pending results: it starts no more bridges than the check alone", async () => {
    const { module, spawns } = await countingBridge();
    const plain = await project();
    expect((await runCli(["check", "--module", module], { cwd: plain })).code).toBe(1);
    const checkAlone = spawns();
    const updated = await project();
    expect((await runCli(["check", "--module", module, "--update"], { cwd: updated })).code).toBe(0);
    expect(spawns() - checkAlone).toBe(checkAlone);
    // -u wrote the files the plain check left pending; the oracles byte for byte (a current lane's
    // lines carry the ids and times its replay minted, so only its presence is compared).
    const pending = Object.entries(hashes(plain)).filter(([f]) => f.endsWith(".pending"));
    expect(pending.map(([f]) => f).sort()).toEqual([
      "lanes/echo/resume.json.pending",
      "lanes/echo/turn.json.pending",
      `recordings/echo/resume/${CURRENT_BRIDGE_LANE_FILE}.pending`,
      `recordings/echo/turn/${CURRENT_BRIDGE_LANE_FILE}.pending`,
    ]);
    const after = hashes(updated);
    for (const [file, hash] of pending) {
      const accepted = file.slice(0, -".pending".length);
      if (accepted.startsWith("lanes/")) expect(after[accepted], file).toBe(hash);
      else expect(after[accepted], file).toBeDefined();
    }
    expect(Object.keys(after).filter((f) => f.endsWith(".pending"))).toEqual([]);
  });

  it("a local check writes changed cells and a missing oracle as .pending only; the accepted files stay as they are", async () => {
    const cwd = await project();
    await rm(path.join(cwd, "lanes/echo/zero-work.json"));
    const before = hashes(cwd);
    const r = await runCli(["check", "--module", shout], { cwd });
    expect(r.code).toBe(1);
    expect(changedAccepted(before, hashes(cwd))).toEqual([]);
    expect(changed(before, hashes(cwd))).toContain("lanes/echo/zero-work.json.pending");
    expect(r.err).toMatch(/^parity: stored \d+ pending files \(\.pending\) for 3 changed cells in lanes\/echo, recordings\/echo\/resume, recordings\/echo\/turn \(e\.g\. /m);
    expect(r.out).toContain("FAIL echo/zero-work");
  });

  it("under CI a check writes nothing, pending or accepted, for a changed cell or a missing oracle", async () => {
    const cwd = await project();
    await rm(path.join(cwd, "lanes/echo/zero-work.json"));
    const before = hashes(cwd);
    const r = await runCli(["check", "--module", shout], { cwd, ci: true });
    expect(r.code).toBe(1);
    expect(r.out).toContain("FAIL echo/turn");
    expect(r.out).toContain("FAIL echo/zero-work");
    expect(changed(before, hashes(cwd))).toEqual([]);
  });
});
