import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { recordProviders } from "../../harness/families/index.js";
import { ModelScriptSchema } from "../../harness/model-server/script.js";
import type { ModelServer } from "../../harness/model-server/server.js";
import { packageDistPath } from "../../harness/runtime/spawn-bridge.js";

// What each agent of two bridge families (native and ACP adapter) is launched with: the env, the
// bridge's launch options and every config file a recording writes, for Claude Code, Codex and pi
// through both of their families. Pinned in agent-launches.json (made from the families before the
// agents' offline knowledge moved to harness/agents, issue 40): a change to how an agent runs
// offline shows here as a changed line, before any re-recording. The agents are stand-ins (a
// script printing a version, package.json files) in a temp install, so this runs without them.

/** The providers of both families of each agent that runs under two bridges. */
const PROVIDERS = ["claude-code", "acp-claude", "acp-claude-zed", "codex", "acp-codex", "pi", "acp-pi"];

/** Files of the stand-in install: each launch command, and each package.json a version is read from. */
const STAND_IN_COMMANDS = [
  "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
  "node_modules/.bin/claude-agent-acp",
  "node_modules/.bin/claude-code-acp",
  "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
  "node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp",
  "node_modules/.bin/pi-acp",
  "node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
];
const STAND_IN_PACKAGES = [
  "@anthropic-ai/claude-code",
  "@agentclientprotocol/claude-agent-acp",
  "@zed-industries/claude-code-acp",
  "@zed-industries/codex-acp",
  "pi-acp",
  "@mariozechner/pi-coding-agent",
];

/** A model script calling each tool the cells use, with opencode's argument names, as every cell spells them. */
const CALLS = ModelScriptSchema.parse({
  title: "t",
  responses: [
    {
      toolCalls: [
        { name: "read", arguments: { filePath: "{{cwd}}/a.txt" } },
        { name: "edit", arguments: { filePath: "{{cwd}}/a.txt", oldString: "x", newString: "y" } },
        { name: "write", arguments: { filePath: "{{cwd}}/b.txt", content: "z\n" } },
        { name: "bash", arguments: { command: "ls", description: "list" } },
        { name: "task", arguments: { description: "d", prompt: "p" } },
      ],
    },
  ],
});

let root = "";
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "parity-agent-launches-"));
  for (const file of STAND_IN_COMMANDS) {
    const at = path.join(root, "agents", file);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, "#!/bin/sh\necho 0.0.0\n");
    chmodSync(at, 0o755);
  }
  // Codex's recording refuses to start without bubblewrap on PATH (harness/agents/codex.ts): a stand-in, so this runs on any host.
  mkdirSync(path.join(root, "bin"));
  writeFileSync(path.join(root, "bin", "bwrap"), "#!/bin/sh\n");
  chmodSync(path.join(root, "bin", "bwrap"), 0o755);
  for (const name of STAND_IN_PACKAGES) {
    mkdirSync(path.join(root, "agents", "node_modules", name), { recursive: true });
    writeFileSync(path.join(root, "agents", "node_modules", name, "package.json"), '{"version":"0.0.0"}\n');
  }
});
afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

/** Every file below `dir`, by path relative to `dir`, with its text. */
function filesBelow(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const file = path.join(at, name);
      if (statSync(file).isDirectory()) walk(file);
      else out[path.relative(dir, file)] = readFileSync(file, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** What `prepare` gives one provider, with this run's paths and the host's PATH as placeholders. */
async function launchOf(providerId: string): Promise<unknown> {
  vi.stubEnv("PATH", `${path.join(root, "bin")}${path.delimiter}${process.env.PATH ?? "/usr/bin:/bin"}`);
  const provider = recordProviders(undefined, { agentsDir: path.join(root, "agents") })[providerId];
  if (provider === undefined) throw new Error(`no provider ${providerId}`);
  const runRoot = path.join(root, "runs", providerId);
  const dirs = { root: runRoot, workspace: path.join(runRoot, "workspace"), home: path.join(runRoot, "home") };
  mkdirSync(dirs.workspace, { recursive: true });
  mkdirSync(dirs.home, { recursive: true });
  const model = { origin: "http://127.0.0.1:9", baseUrl: "http://127.0.0.1:9/v1" } as ModelServer;
  const prepared = await provider.prepare(dirs, model);
  const recorded = {
    env: prepared.env,
    options: prepared.options,
    files: filesBelow(runRoot),
    modelApi: prepared.modelApi,
    cliVersion: prepared.cliVersion,
    note: prepared.note,
    spelledCalls: provider.spellScript?.(CALLS).responses[0]?.toolCalls ?? null,
    normalize: (provider.normalize ?? []).map(({ pattern, replace }) => ({ pattern: String(pattern), replace })),
    redact: (provider.redactPatterns ?? []).map(String),
    rejections: (provider.rejectionPatterns ?? []).map(String),
    settled: provider.sessionSettled ?? null,
  };
  // The host's PATH first: it names the repository, which is replaced after it.
  const text = JSON.stringify(recorded)
    .replaceAll(JSON.stringify(process.env.PATH ?? "/usr/bin:/bin").slice(1, -1), "<PATH>")
    .replaceAll(path.join(root, "agents"), "<agents>")
    .replaceAll(runRoot, "<run>")
    .replaceAll(path.dirname(packageDistPath()), "<repo>");
  return JSON.parse(text);
}

describe("the launch of each agent that runs under two bridge families", () => {
  const pinned = JSON.parse(readFileSync(path.join(import.meta.dirname, "agent-launches.json"), "utf8")) as Record<string, unknown>;
  for (const providerId of PROVIDERS) {
    it(`${providerId}: env, launch options and config files as pinned`, async () => {
      expect(await launchOf(providerId)).toEqual(pinned[providerId]);
    });
  }
});
