import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InputError, UsageError } from "../../harness/errors.js";
import { buildFixtureScript, FIXTURE_RECORD_PROVIDERS, fixtureRecordProvider, FIXTURE_AGENT_PROFILES } from "../../harness/families/acp/fixture-agents.js";
import { parseFixtureScript } from "../../stack/acp/fixture-agent/script.js";
import { repoRoot } from "../cli/run-cli.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "fixture-provider-test-"));
  dirs.push(dir);
  return dir;
}

const cellJson = (texts: string[]) => ({
  description: "A test cell with scripted prompts.",
  threadId: "thr_test",
  steps: [{ op: "initialize" }, { op: "thread/start" }, ...texts.map((text) => ({ op: "turn/start", text }))],
});
const reply = (text: string) => ({ steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } }, { end: "end_turn" }] });

/** A cells root with the given cells: name → [prompt texts, fragments per provider]. */
function cellsRoot(cells: Record<string, [string[], Record<string, unknown>]>): string {
  const root = tempDir();
  for (const [name, [texts, fragments]] of Object.entries(cells)) {
    mkdirSync(path.join(root, name, "agents"), { recursive: true });
    writeFileSync(path.join(root, name, "cell.json"), JSON.stringify(cellJson(texts)));
    for (const [provider, fragment] of Object.entries(fragments)) writeFileSync(path.join(root, name, "agents", `${provider}.json`), JSON.stringify(fragment));
  }
  return root;
}

describe("buildFixtureScript", () => {
  it("merges the profile with every cell's fragment, keying prompts without `when` by the cell's prompt texts in order", async () => {
    const root = cellsRoot({
      alpha: [["first alpha prompt", "second alpha prompt"], { "acp-grok": { prompts: [reply("a1"), reply("a2")] } }],
      beta: [["beta prompt"], { "acp-grok": { prompts: [{ ...reply("b1"), when: "beta" }] }, "acp-omp": { prompts: [reply("omp")] } }],
    });
    const script = parseFixtureScript(await buildFixtureScript(root, "acp-grok"));
    expect(script.prompts.map((p) => p.when)).toEqual(["first alpha prompt", "second alpha prompt", "beta"]);
    expect(script.sessionIdPrefix).toBe(FIXTURE_AGENT_PROFILES["acp-grok"]!.base.sessionIdPrefix);
    expect(script.sessionResult).toEqual(FIXTURE_AGENT_PROFILES["acp-grok"]!.base.sessionResult);
    const only = parseFixtureScript(await buildFixtureScript(root, "acp-grok", "beta"));
    expect(only.prompts.map((p) => p.when)).toEqual(["beta"]);
  });

  it("refuses two cells sharing a prompt key, a fragment with more prompts than its cell, and a bad fragment, naming the file", async () => {
    const shared = cellsRoot({
      one: [["same text"], { "acp-omp": { prompts: [reply("1")] } }],
      two: [["same text"], { "acp-omp": { prompts: [reply("2")] } }],
    });
    await expect(buildFixtureScript(shared, "acp-omp")).rejects.toThrow(/two[/\\]agents[/\\]acp-omp\.json.*also used by cell one/);
    await expect(buildFixtureScript(shared, "acp-omp", "two")).resolves.toBeTruthy();

    const tooMany = cellsRoot({ one: [["only one"], { "acp-omp": { prompts: [reply("1"), reply("2")] } }] });
    const error = await buildFixtureScript(tooMany, "acp-omp").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain("cell one has only 1 prompt(s)");

    const bad = cellsRoot({ one: [["x"], { "acp-omp": { prompts: [{ steps: [{ end: "" }] }] } }] });
    await expect(buildFixtureScript(bad, "acp-omp")).rejects.toThrow(/invalid fixture fragment: field `prompts\.0\.steps\.0/);
    const extra = cellsRoot({ one: [["x"], { "acp-omp": { prompts: [reply("1")], sessionResult: {} } }] });
    await expect(buildFixtureScript(extra, "acp-omp")).rejects.toBeInstanceOf(InputError);
  });

  it("refuses a provider without a profile and a provider with no fragment (UsageError)", async () => {
    const root = cellsRoot({ one: [["x"], { "acp-omp": { prompts: [reply("1")] } }] });
    await expect(buildFixtureScript(root, "acp-opencode")).rejects.toBeInstanceOf(UsageError);
    await expect(buildFixtureScript(root, "acp-cursor")).rejects.toThrow(/no fixture fragment for acp-cursor/);
  });
});

describe("fixtureRecordProvider", () => {
  it("registers the four fixture providers, each on the ACP bridge without a model endpoint", () => {
    expect(Object.keys(FIXTURE_RECORD_PROVIDERS).sort()).toEqual(["acp-cursor", "acp-grok", "acp-hermes-agent", "acp-omp"]);
    for (const provider of Object.values(FIXTURE_RECORD_PROVIDERS)) {
      expect(provider.takesModelEndpoint).toBe(false);
      expect(provider.modulePath.endsWith(path.join("dist", "stack", "acp", "bridge.js"))).toBe(true);
    }
  });

  it("prepare writes the script into the run's temp root and keeps the shipped launch spec except command/args", async () => {
    const root = tempDir();
    const run = { root, workspace: path.join(root, "ws"), home: path.join(root, "home") };
    const prepared = await fixtureRecordProvider(FIXTURE_AGENT_PROFILES["acp-grok"]!).prepare(run, undefined);
    const options = prepared.options.providerOptions as Record<string, any>;
    expect(options.acpDialect).toBe("grok");
    expect(options.acpLaunchSpec.command).toBe("node");
    expect(options.acpLaunchSpec.permissionCli).toEqual({ full: ["--always-approve"], insertAfterArgs: 1 });
    const scriptFile = options.acpLaunchSpec.args[2] as string;
    expect(scriptFile.startsWith(root)).toBe(true);
    const script = parseFixtureScript(JSON.parse(readFileSync(scriptFile, "utf8")));
    // Fragments come from the committed cells/ by default, keyed by the committed cells' prompts.
    const subagent = JSON.parse(readFileSync(path.join(repoRoot, "cells", "subagent", "cell.json"), "utf8")) as { steps: Array<{ text?: string }> };
    expect(script.prompts.some((p) => p.when === subagent.steps.find((step) => step.text)?.text)).toBe(true);
    expect(prepared.cliVersion).toMatch(/^fixture agent .*grok dialect.*not grok agent stdio$/);
    expect(prepared.note).toContain("NOT a real capture");
    expect(prepared.env.HOME).toBe(run.home);
  });
});
