import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recordPathRewrites } from "../../harness/families/record-provider.js";
import { ABBREVIATED_MIN_CHARS, abbreviatedPathRule } from "../../harness/recording/abbreviated-path.js";
import { RECORDED_PATHS } from "../../harness/recording/recorded-paths.js";
import { applyTextRules, createRedactor } from "../../harness/recording/redact.js";
import { sweepFileText } from "../../harness/recording/redact-verify.js";
import { repoRoot } from "../cli/run-cli.js";

const HOME = "/home/alice";
const WS = RECORDED_PATHS.workspace;

/** The run's dirs as record-cell.ts lays them out under `root`. */
const dirsUnder = (root: string) => ({ root, workspace: path.join(root, "ws"), home: path.join(root, "home") });

/** The record flow's redactor for a run under `root` (record-stage.ts): its path rewrites, the temp name forbidden. */
const recordRedactor = (root: string) => createRedactor({ home: HOME, paths: recordPathRewrites(dirsUnder(root), "/usr/bin"), forbidden: [new RegExp(path.basename(root))] });

/**
 * How GitHub Copilot CLI 1.0.102 titles a path in a tool call, as observed live (paths of 48, 63, 86
 * and 97 characters): a path over 50 characters becomes `...` and its last 47 characters.
 */
const copilotShortened = (p: string) => (p.length > 50 ? `...${p.slice(-47)}` : p);

/** The committed recording's `tool_call` line of acp-copilot new-file-folder (recorded under a short root: its title was not shortened). */
function committedToolCallLine(): string {
  const lane = readFileSync(path.join(repoRoot, "recordings/acp-copilot/new-file-folder/provider→bridge.ndjson"), "utf8");
  const entry = lane.split("\n").find((l) => l.includes('\\"sessionUpdate\\":\\"tool_call\\"'));
  return (JSON.parse(entry!) as { line: string }).line;
}

/** That line as copilot writes it when the workspace is `workspace` and the file is `rel` below it. */
function copilotLineUnder(workspace: string, rel = "src/new/hello.txt"): string {
  const committed = committedToolCallLine();
  const file = `${workspace}/${rel}`;
  return committed.replace(`"title":"Creating ${WS}/src/new/hello.txt"`, `"title":"Creating ${copilotShortened(file)}"`).replaceAll(`${WS}/src/new/hello.txt`, file);
}

describe("an agent's abbreviated spelling of a run path (copilot new-file-folder under the session temp dir)", () => {
  // The input that broke: `parity record` nests the run root in its session temp dir, so the path
  // is long, copilot shortened it in the title, and `rec-00000000` survived (exit 3, nothing written).
  const root = "/tmp/parity-Ab3xYz/rec-00000000";

  it("the title copilot wrote under the session temp dir is redacted to the committed recording's, with no survivor", () => {
    const raw = copilotLineUnder(`${root}/ws`);
    expect(raw).toContain('"title":"Creating ...parity-Ab3xYz/rec-00000000/ws/src/new/hello.txt"');
    const redactor = recordRedactor(root);
    // Without the abbreviation read, the sweep refuses this line (what the live record did).
    const plainOnly = createRedactor({ home: HOME, paths: recordPathRewrites(dirsUnder(root), "/usr/bin") }).rules.filter((r) => r.name !== "abbreviated path");
    expect(applyTextRules(raw, plainOnly)).toContain("rec-00000000");
    const redacted = redactor.redactLine(raw);
    expect(redacted).toBe(committedToolCallLine());
    expect(sweepFileText("provider→bridge.ndjson", JSON.stringify({ ts: 1, run: 1, seq: 1, dir: "provider→bridge", line: redacted }), redactor)).toEqual([]);
    expect(redactor.redactLine(redacted)).toBe(redacted);
  });

  it("gives the same bytes whatever the temp root's length and wherever copilot's cut falls", () => {
    // The short root the committed recordings were made under, and TMPDIRs of every length up to 60.
    const roots = ["/tmp/rec-00000000", ...Array.from({ length: 61 }, (_, n) => `/tmp/${"d".repeat(n + 1)}/parity-Ab3xYz/rec-00000000`)];
    // File names long enough that the cut falls at every place from the root's top down to `/ws` and below.
    const redactors = roots.map((r) => ({ r, redactor: recordRedactor(r) }));
    for (const rel of ["src/new/hello.txt", ...Array.from({ length: 30 }, (_, n) => `src/new/${"h".repeat(n + 16)}.txt`)]) {
      const outputs = new Set(redactors.map(({ r, redactor }) => redactor.redactLine(copilotLineUnder(`${r}/ws`, rel))));
      expect([...outputs].length, rel).toBe(1);
      const [only] = [...outputs];
      expect(only).not.toMatch(/rec-0|parity-Ab3xYz|ddd/);
    }
  });
});

describe("abbreviatedPathRule", () => {
  const from = "/tmp/parity-Ab3xYz/rec-00000000/ws";
  const rule = abbreviatedPathRule(from, WS)!;
  const redact = (text: string) => applyTextRules(text, [rule]);

  it("reads a head elided with ... or …, and a middle elided, as the path", () => {
    expect(redact("Creating ...Ab3xYz/rec-00000000/ws/src/a.txt")).toBe(`Creating ${WS}/src/a.txt`);
    expect(redact("Viewing …00000/ws/notes.txt")).toBe(`Viewing ${WS}/notes.txt`);
    expect(redact("Viewing /tmp/…/ws/notes.txt")).toBe(`Viewing ${WS}/notes.txt`);
    expect(redact("Viewing /tmp/parity-Ab…rec-00000000/ws")).toBe(`Viewing ${WS}`);
  });

  it("leaves alone what is not specific to the path", () => {
    // Too little kept: `…/ws` and `…0/ws` name folders anywhere.
    expect(redact("Viewing …/ws/notes.txt")).toBe("Viewing …/ws/notes.txt");
    expect(redact("Viewing ...0/ws/notes.txt")).toBe("Viewing ...0/ws/notes.txt");
    // The kept tail must end where a segment of the path ends.
    expect(redact("Viewing ...00000000/wsx/notes.txt")).toBe("Viewing ...00000000/wsx/notes.txt");
    // A head that is not the path's own head is another path.
    expect(redact("Viewing /var/…00000000/ws/notes.txt")).toBe("Viewing /var/…00000000/ws/notes.txt");
    expect(redact("Viewing abc...00000000/ws/notes.txt")).toBe("Viewing abc...00000000/ws/notes.txt");
    // A tail without a `/` is a piece of one name.
    expect(redact("Viewing ...c-00000000 now")).toBe("Viewing ...c-00000000 now");
    // Head and tail that together hold the whole path are not an elision of it.
    expect(redact(`Viewing /tmp/parity-Ab3xYz/rec-0000…0000/ws`)).toBe(`Viewing /tmp/parity-Ab3xYz/rec-0000…0000/ws`);
  });

  it("is made only for absolute paths longer than the minimum, not PATH lists or URLs", () => {
    expect(abbreviatedPathRule("/root", "/home/user")).toBeUndefined();
    expect(abbreviatedPathRule("/usr/local/bin:/usr/bin", "$PATH")).toBeUndefined();
    expect(abbreviatedPathRule("http://127.0.0.1:41234", "http://127.0.0.1:1")).toBeUndefined();
    expect(abbreviatedPathRule("/".padEnd(ABBREVIATED_MIN_CHARS + 1, "a"), "/x")).toBeDefined();
  });
});
