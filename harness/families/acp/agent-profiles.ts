/**
 * The shipped agent profiles (agent-profile.ts): every real ACP agent of spec 50 plus
 * opencode, each run offline against the loopback model endpoint from the agents' own install
 * (`agents/`, `npm run agents:install`). Facts per agent (env, config, model API, tool names)
 * are spec 50's; API keys are fake and still redacted. Cell model scripts call opencode's
 * tools (`read {filePath}`, `edit {filePath, oldString, newString}`, `bash {command,
 * description}`); `tools` spells them for each agent.
 */
import { CLAUDE_CODE_OFFLINE_ENV, claudeCodeToolSpellings } from "../../agents/claude-code.js";
import { CODEX_ACP_OFFLINE_CONFIG, CODEX_CONFIG_FILE, CODEX_HOME_ENV, CODEX_TOOL_SPELLINGS } from "../../agents/codex.js";
import { PI_ADAPTER_MODEL, PI_AGENT_DIR, PI_OFFLINE_ENV, PI_TOOL_SPELLINGS, piModelsJson, piSettingsJson } from "../../agents/pi.js";
import type { Until } from "../../runtime/cell-driver.js";
import type { ShippedAgentProfile } from "../agent-profile.js";

/** Waits for the `available_commands_update` the agent sends after every session request (the bridge's provider-commands state). */
const COMMANDS_SETTLED: Until = { event: "thread/extensionState/updated", fields: { kind: "bb/provider-commands" } };

const bin = (name: string) => `{{agents}}/node_modules/.bin/${name}`;
const pkg = (name: string) => ({ packageJson: `{{agents}}/node_modules/${name}/package.json` });

/** Settings of the gemini-cli family (gemini, qwen) that keep it offline: auth by key, no statistics, telemetry or updates. */
const geminiFamilySettings = (authType: string) => ({
  security: { auth: { selectedType: authType } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
});

/**
 * A profile of one of the two ACP adapters of Claude Code: the same agent, env and model API
 * (harness/agents/claude-code.ts) behind a different package (whose binary is named as the profile
 * is), and file tools that differ only in their name prefix (the Zed adapter serves Read and Edit
 * over its own MCP server).
 */
const claudeAdapterProfile = (id: string, binName: string, packageName: string, fileToolPrefix: string): ShippedAgentProfile => ({
  id,
  name: binName,
  packages: [packageName],
  command: bin(binName),
  args: [],
  modelApi: "anthropic-messages",
  env: CLAUDE_CODE_OFFLINE_ENV,
  files: {},
  version: pkg(packageName),
  settle: [COMMANDS_SETTLED],
  tools: claudeCodeToolSpellings(fileToolPrefix),
  rejections: [],
  redact: [],
  normalize: [],
});

/**
 * omp's offline config (spec 50 "omp (oh-my-pi), the ninth"): its model registry (JSON is valid
 * YAML) with one OpenAI-chat provider on the loopback endpoint, and settings that turn off
 * everything that would reach out (update check, setup wizard, LSP downloads, memory, advisor,
 * marketplace) and pick the `replace` edit mode whose tool takes `{path, old_string, new_string}`.
 */
const OMP_FILES = {
  "{{home}}/.omp/agent/models.yml": {
    providers: { parity: { baseUrl: "{{baseUrl}}", api: "openai-completions", apiKey: "parity-fake-omp-key-0001", models: [{ id: "scripted" }] } },
  },
  "{{home}}/.omp/agent/config.yml": {
    modelRoles: { default: "parity/scripted" },
    startup: { checkUpdate: false, setupWizard: false, quiet: true },
    edit: { mode: "replace" },
    lsp: { enabled: false },
    autolearn: { enabled: false },
    advisor: { enabled: false },
    memory: { backend: "off" },
    marketplace: { autoUpdate: false },
  },
};

/** The shipped profiles, by provider id. */
export const SHIPPED_AGENT_PROFILES: Readonly<Record<string, ShippedAgentProfile>> = {
  "acp-opencode": {
    id: "acp-opencode",
    name: "opencode",
    packages: ["opencode-ai (the gate's devDependency)"],
    command: "{{repo}}/node_modules/.bin/opencode",
    // Port 0 on loopback: parallel recordings each get their own opencode server port.
    args: ["acp", "--port", "0", "--hostname", "127.0.0.1"],
    modelApi: "openai-chat",
    env: { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_DEFAULT_PLUGINS: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1" },
    files: {
      // opencode installs @opencode-ai/plugin into every config directory in the background
      // (an npm registry fetch) unless node_modules exists and package-lock.json already names
      // every dependency package.json does: pre-seeded, so it fetches nothing.
      "{{home}}/.config/opencode/package.json": { dependencies: { "@opencode-ai/plugin": "1.18.33" } },
      "{{home}}/.config/opencode/package-lock.json": { lockfileVersion: 3, packages: { "": { dependencies: { "@opencode-ai/plugin": "1.18.33" } } } },
      "{{home}}/.config/opencode/node_modules/.keep": "",
      "{{cwd}}/opencode.json": {
        $schema: "https://opencode.ai/config.json",
        provider: {
          parity: { npm: "@ai-sdk/openai-compatible", name: "Parity loopback", options: { baseURL: "{{baseUrl}}", apiKey: "none" }, models: { scripted: { name: "Scripted model" } } },
        },
        model: "parity/scripted",
        small_model: "parity/scripted",
        autoupdate: false,
        share: "disabled",
        permission: { edit: "ask", bash: "ask", webfetch: "ask" },
      },
    },
    version: { args: ["--version"] },
    settle: [COMMANDS_SETTLED],
    tools: {},
    rejections: [],
    redact: [],
    normalize: [],
  },
  "acp-qwen": {
    id: "acp-qwen",
    name: "qwen-code",
    packages: ["@qwen-code/qwen-code"],
    command: bin("qwen"),
    args: ["--acp"],
    modelApi: "openai-chat",
    env: {
      OPENAI_BASE_URL: "{{baseUrl}}",
      OPENAI_API_KEY: "parity-fake-openai-key-0001",
      OPENAI_MODEL: "parity-scripted",
      QWEN_DEFAULT_AUTH_TYPE: "openai",
      // Otherwise qwen re-spawns itself with inherited stdio to raise its heap.
      QWEN_CODE_NO_RELAUNCH: "true",
    },
    files: { "{{home}}/.qwen/settings.json": geminiFamilySettings("openai") },
    // From the package: under load `qwen --version` (a full CLI start) outran its time limit.
    version: pkg("@qwen-code/qwen-code"),
    settle: [COMMANDS_SETTLED],
    tools: {
      read: { name: "read_file", arguments: { file_path: "{{args.filePath}}" } },
      edit: { name: "edit", arguments: { file_path: "{{args.filePath}}", old_string: "{{args.oldString}}", new_string: "{{args.newString}}" } },
      write: { name: "write_file", arguments: { file_path: "{{args.filePath}}", content: "{{args.content}}" } },
      bash: { name: "run_shell_command", arguments: { command: "{{args.command}}", description: "{{args.description}}", is_background: false } },
    },
    rejections: [],
    // Its shell tool reports the process group id of the command it ran.
    redact: ["(?<=Process Group PGID: )\\d+"],
    normalize: [],
  },
  "acp-copilot": {
    id: "acp-copilot",
    name: "copilot",
    packages: ["@github/copilot"],
    // The native binary: the npm wrapper spawnSyncs it with inherited stdio.
    command: "{{agents}}/node_modules/@github/copilot-linux-x64/copilot",
    args: ["--acp", "--no-auto-update"],
    modelApi: "openai-chat",
    env: {
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: "{{baseUrl}}",
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_API_KEY: "parity-fake-copilot-key-0001",
      COPILOT_MODEL: "parity-scripted",
      COPILOT_AUTO_UPDATE: "false",
      COPILOT_HOME: "{{home}}/.copilot",
    },
    files: {},
    // From the package: under load `copilot --version` (a full CLI start) outran its time limit.
    version: pkg("@github/copilot"),
    settle: [COMMANDS_SETTLED],
    tools: {
      read: { name: "view", arguments: { path: "{{args.filePath}}" } },
      edit: { name: "edit", arguments: { path: "{{args.filePath}}", old_str: "{{args.oldString}}", new_str: "{{args.newString}}" } },
      write: { name: "create", arguments: { path: "{{args.filePath}}", file_text: "{{args.content}}" } },
      bash: { name: "bash", arguments: { command: "{{args.command}}", description: "{{args.description}}" } },
    },
    rejections: [],
    redact: [],
    // copilot counts its context usage itself, over a system prompt that names the time of day:
    // the count moves by a few tokens from one minute to the next.
    normalize: [
      {
        pattern: '(?<=\\\\"used\\\\":)\\d+',
        replace: "0",
        why: "copilot's context usage (usage_update used) is recorded as 0: it counts it itself over a prompt that names the time, so it differs between recordings.",
      },
    ],
  },
  "acp-gemini": {
    id: "acp-gemini",
    name: "gemini-cli",
    packages: ["@google/gemini-cli"],
    command: bin("gemini"),
    args: ["--acp"],
    modelApi: "gemini",
    env: { GEMINI_API_KEY: "parity-fake-gemini-key-0001", GOOGLE_GEMINI_BASE_URL: "{{origin}}", GEMINI_CLI_NO_RELAUNCH: "true" },
    files: { "{{home}}/.gemini/settings.json": geminiFamilySettings("gemini-api-key") },
    version: { args: ["--version"] },
    settle: [COMMANDS_SETTLED],
    tools: {
      read: { name: "read_file", arguments: { file_path: "{{args.filePath}}" } },
      edit: {
        name: "replace",
        arguments: { file_path: "{{args.filePath}}", old_string: "{{args.oldString}}", new_string: "{{args.newString}}", instruction: "Apply the requested change." },
      },
      write: { name: "write_file", arguments: { file_path: "{{args.filePath}}", content: "{{args.content}}" } },
      bash: { name: "run_shell_command", arguments: { command: "{{args.command}}", description: "{{args.description}}" } },
    },
    rejections: [],
    redact: [],
    normalize: [],
  },
  "acp-claude": claudeAdapterProfile("acp-claude", "claude-agent-acp", "@agentclientprotocol/claude-agent-acp", ""),
  "acp-claude-zed": claudeAdapterProfile("acp-claude-zed", "claude-code-acp", "@zed-industries/claude-code-acp", "mcp__acp__"),
  "acp-codex": {
    id: "acp-codex",
    name: "codex-acp",
    packages: ["@zed-industries/codex-acp"],
    // The native binary: the npm wrapper spawnSyncs it with inherited stdio, so killing the wrapper orphans it.
    command: "{{agents}}/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp",
    args: [],
    modelApi: "openai-responses",
    env: CODEX_HOME_ENV,
    files: { [CODEX_CONFIG_FILE]: CODEX_ACP_OFFLINE_CONFIG },
    version: pkg("@zed-industries/codex-acp"),
    settle: [COMMANDS_SETTLED],
    tools: CODEX_TOOL_SPELLINGS,
    rejections: [],
    redact: [],
    normalize: [],
  },
  "acp-omp": {
    id: "acp-omp",
    name: "omp",
    packages: ["@oh-my-pi/pi-coding-agent", "bun"],
    command: bin("omp"),
    args: ["acp"],
    modelApi: "openai-chat",
    // omp's script starts with `#!/usr/bin/env bun`: bun must be on PATH.
    env: { PATH: "{{agents}}/node_modules/.bin:{{PATH}}", OTEL_SDK_DISABLED: "true", PI_NO_PTY: "1" },
    files: OMP_FILES,
    version: pkg("@oh-my-pi/pi-coding-agent"),
    settle: [COMMANDS_SETTLED],
    tools: {
      read: { name: "read", arguments: { path: "{{args.filePath}}" } },
      edit: { name: "edit", arguments: { path: "{{args.filePath}}", old_string: "{{args.oldString}}", new_string: "{{args.newString}}" } },
      write: { name: "write", arguments: { path: "{{args.filePath}}", content: "{{args.content}}" } },
      bash: { name: "bash", arguments: { command: "{{args.command}}" } },
    },
    rejections: [],
    redact: [],
    normalize: [],
  },
  "acp-pi": {
    id: "acp-pi",
    name: "pi-acp",
    packages: ["pi-acp", "@mariozechner/pi-coding-agent"],
    command: bin("pi-acp"),
    args: [],
    modelApi: "openai-chat",
    // pi-acp starts `pi` from PATH.
    env: { PATH: "{{agents}}/node_modules/.bin:{{PATH}}", ...PI_OFFLINE_ENV },
    files: {
      [`{{home}}/${PI_AGENT_DIR}/models.json`]: piModelsJson("{{baseUrl}}", PI_ADAPTER_MODEL),
      [`{{home}}/${PI_AGENT_DIR}/settings.json`]: piSettingsJson(PI_ADAPTER_MODEL.provider),
    },
    version: pkg("pi-acp"),
    settle: [COMMANDS_SETTLED],
    tools: PI_TOOL_SPELLINGS,
    rejections: [],
    redact: [],
    normalize: [],
  },
};
