import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT_CODES, ParityError } from "../../harness/errors.js";
import { REDACTED, TRIM_KEEP_HEAD, TRIM_KEEP_TAIL, compileUserPatterns, createRedactor, redactJsonValue, trimMarker } from "../../harness/recording/redact.js";
import { RedactionSurvivorError, sweepDirectory, sweepFileText } from "../../harness/recording/redact-verify.js";

const HOME = "/home/alice";
const entry = (line: string, seq = 1) => JSON.stringify({ ts: 1000, run: 7, seq, dir: "runtime→bridge", line });
const innerLine = (entryText: string) => (JSON.parse(entryText) as { line: string }).line;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("structural pass (spec 10 §4)", () => {
  it("redacts secret-named env values and removes the record variable, keeping other keys", () => {
    const redactor = createRedactor({ home: HOME });
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "thread/start",
      params: {
        options: {
          envVars: { OPENAI_API_KEY: "plantedsecretvalue123", PATH: "/usr/bin", BB_PROVIDER_BRIDGE_RECORD_DIR: "/tmp/rec", GH_AUTH: "" },
        },
      },
    });
    const out = JSON.parse(innerLine(redactor.redactLaneEntry(entry(line)))) as { params: { options: { envVars: Record<string, string> } } };
    expect(out.params.options.envVars).toEqual({ OPENAI_API_KEY: REDACTED, PATH: "/usr/bin", GH_AUTH: "" });
  });

  it("redacts the ACP [{name, value}] env form too", () => {
    const value = redactJsonValue({
      mcpServers: [
        {
          env: [
            { name: "MY_TOKEN", value: "abcdefghijkl" },
            { name: "LANG", value: "C" },
          ],
        },
      ],
    });
    expect(value).toEqual({
      mcpServers: [
        {
          env: [
            { name: "MY_TOKEN", value: REDACTED },
            { name: "LANG", value: "C" },
          ],
        },
      ],
    });
  });

  it("trims strings over 2000 characters around the marker, once", () => {
    const long = `${"a".repeat(1500)}${"b".repeat(700)}${"c".repeat(300)}`;
    const trimmed = redactJsonValue({ text: long }) as { text: string };
    expect(trimmed.text).toBe(`${long.slice(0, TRIM_KEEP_HEAD)}${trimMarker(long.length - TRIM_KEEP_HEAD - TRIM_KEEP_TAIL)}${long.slice(-TRIM_KEEP_TAIL)}`);
    expect(redactJsonValue(trimmed)).toEqual(trimmed);
  });

  it("leaves a line without anything to redact byte for byte", () => {
    const redactor = createRedactor({ home: HOME });
    const line = '{"jsonrpc":"2.0", "id":1,"result":{"ok":true}}';
    const text = entry(line);
    expect(redactor.redactLaneEntry(text)).toBe(text);
  });
});

describe("textual pass (spec 10 §4)", () => {
  const redactor = createRedactor({ home: HOME, paths: [{ from: "/tmp/parity-ws-x1y2", to: "/workspace" }] });

  it("rewrites the home path, its dashed form and the owner pair, not a longer sibling", () => {
    const text = "cd /home/alice/src && ls -l -> -rw-r--r-- 1 alice alice 12 x; project -home-alice-src; /home/alicex stays";
    expect(redactor.redactText(text)).toBe("cd /home/user/src && ls -l -> -rw-r--r-- 1 user user 12 x; project -home-user-src; /home/alicex stays");
  });

  it("rewrites slash-less spellings of multi-segment paths (titles, diff headers), never a bare word", () => {
    expect(redactor.redactText("--- a/tmp/parity-ws-x1y2/a.txt\ntitle tmp/parity-ws-x1y2/a.txt; xtmp/parity-ws-x1y2 stays")).toBe(
      "--- a/workspace/a.txt\ntitle workspace/a.txt; xtmp/parity-ws-x1y2 stays",
    );
    expect(redactor.redactText("home/alice/notes")).toBe("home/user/notes");
    const root = createRedactor({ home: "/root" });
    expect(root.redactText("the root of /root/x is root")).toBe("the root of /home/user/x is root");
    expect(root.redactText(root.redactText("/root/x"))).toBe("/home/user/x");
    expect(root.redactText("multi-root workspaces; project -root-src")).toBe("multi-root workspaces; project -home-user-src");
  });

  it("rewrites the workspace path before the home path", () => {
    expect(redactor.redactText('{"cwd":"/tmp/parity-ws-x1y2","file":"/tmp/parity-ws-x1y2/a.txt"}')).toBe('{"cwd":"/workspace","file":"/workspace/a.txt"}');
  });

  it("hides emails, bearer values, Authorization values and every token prefix", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl`;
    const text = [
      "mail alice.smith+x@corp.example.org now",
      "curl -H 'Authorization: Bearer abcDEF123456789xyz'",
      '{"Authorization":"Basic dXNlcjpwYXNz"}',
      "ghp_ABCDEFGHIJKLMNOPQRSTUV github_pat_11ABCDEFG0123456789_abc sk-ant-api03-abcdefghijklmnop sk-proj1234567890abcd",
      "xoxb-1234567890-abcdef bbde_abcdefgh123 bbcm_zyxwvut987 task-runner-long-name",
      jwt,
    ].join("\n");
    const out = redactor.redactText(text);
    expect(out).toBe(
      [
        "mail user@example.com now",
        "curl -H 'Authorization: Bearer REDACTED'",
        '{"Authorization":"REDACTED"}',
        "ghp_REDACTED github_pat_REDACTED sk-ant-REDACTED sk-REDACTED",
        "xoxb-REDACTED bbde_REDACTED bbcm_REDACTED task-runner-long-name",
        "eyJREDACTED",
      ].join("\n"),
    );
  });

  it("redacts an escaped Authorization value inside a JSON string inside a line", () => {
    const inner = JSON.stringify({ headers: JSON.stringify({ Authorization: "token-abc-123" }) });
    const out = redactor.redactLine(inner);
    expect(out).not.toContain("token-abc-123");
    expect(JSON.parse(JSON.parse(out).headers)).toEqual({ Authorization: REDACTED });
  });

  it("applies user --redact patterns and known secret values", () => {
    const custom = createRedactor({ home: HOME, patterns: compileUserPatterns(["acct-[0-9]{6}"]), secrets: ["hunter2hunter2"] });
    expect(custom.redactText("id acct-123456 pw hunter2hunter2")).toBe(`id ${REDACTED} pw ${REDACTED}`);
  });

  it("is idempotent on a whole lane file", () => {
    const file = [
      entry(JSON.stringify({ params: { env: { API_TOKEN: "zzzzzzzzzz" }, cwd: "/home/alice/p", note: "x".repeat(3000) } }), 1),
      entry("not json from a child: Bearer qwertyuiop1234 alice@example.net", 2),
      "",
    ].join("\n");
    const once = redactor.redactFile("runtime→bridge.ndjson", file);
    expect(once).not.toBe(file);
    expect(redactor.redactFile("runtime→bridge.ndjson", once)).toBe(once);
  });

  it("refuses / and an empty home, and bad --redact patterns", () => {
    expect(() => createRedactor({ home: "/" })).toThrow(/refused/);
    expect(() => createRedactor({ home: "" })).toThrow(/refused/);
    expect(() => compileUserPatterns(["("])).toThrow(/--redact/);
    expect(() => compileUserPatterns(["x*"])).toThrow(/empty string/);
  });
});

describe("final sweep", () => {
  const redactor = createRedactor({ home: HOME });

  it("finds nothing in a redacted recording with planted secrets", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "redact-test-"));
    dirs.push(dir);
    const lane = [
      entry(JSON.stringify({ params: { options: { envVars: { OPENAI_API_KEY: "sk-planted0123456789abcdef" } } } }), 1),
      entry('{"jsonrpc":"2.0","method":"x","params":{"h":"Authorization: Bearer plantedBearer0123456"}}', 2),
      entry("ask bob@corp.example.com in /home/alice/work", 3),
    ].join("\n");
    writeFileSync(path.join(dir, "runtime→bridge.ndjson"), redactor.redactFile("runtime→bridge.ndjson", `${lane}\n`));
    writeFileSync(path.join(dir, "manifest.json"), redactor.redactText('{"note":"by alice@corp.example.com"}\n'));
    expect(await sweepDirectory(dir, redactor)).toEqual([]);
  });

  it("reports every planted secret of an unredacted file with file:line and without the secret", () => {
    const lane = [
      entry(JSON.stringify({ params: { options: { envVars: { OPENAI_API_KEY: "plantedsecretvalue123" } } } }), 1),
      entry("clean line", 2),
      entry("Authorization: Bearer plantedBearer0123456", 3),
      entry("mail bob@corp.example.com from /home/alice/work", 4),
      entry("printenv -> SERVICE_TOKEN=abcdefgh12345", 5),
    ].join("\n");
    const survivors = sweepFileText("rec/runtime→bridge.ndjson", lane, redactor);
    expect(survivors.map((s) => `${s.line} ${s.rule}`)).toEqual(["1 secret env value", "3 bearer", "4 path", "4 email", "5 secret assignment"]);
    expect(JSON.stringify(survivors)).not.toContain("plantedBearer0123456");
    const error = new RedactionSurvivorError(survivors);
    expect(error).toBeInstanceOf(ParityError);
    expect(error.exitCode).toBe(EXIT_CODES.secretSurvived);
    expect(error.message.split("\n")[0]).toBe("rec/runtime→bridge.ndjson:1: secret env value survived redaction (OPEN… (14 chars))");
  });

  it("forbidden patterns are sweep-only: never rewritten, always reported", () => {
    const custom = createRedactor({ home: HOME, forbidden: [/parity-record-[A-Za-z0-9]{6}/] });
    expect(custom.redactText("in parity-record-ab12CD/ws")).toBe("in parity-record-ab12CD/ws");
    expect(sweepFileText("x.json", "ok\nin parity-record-ab12CD/ws\n", custom).map((s) => [s.line, s.rule])).toEqual([[2, "forbidden parity-record-[A-Za-z0-9]{6}"]]);
  });

  it("a user pattern that survives is reported; its own REDACTED output is not", () => {
    const custom = createRedactor({ home: HOME, patterns: compileUserPatterns(["acct-[0-9]{6}"]) });
    expect(sweepFileText("m.json", "a acct-123456\nb REDACTED\n", custom).map((s) => [s.line, s.rule])).toEqual([[1, "--redact acct-[0-9]{6}"]]);
  });
});
