/**
 * What it takes to run Codex offline (docs/design/60-native-agents.md "Offline configuration",
 * "Tools"), for both bridge families that run it: natively as `codex app-server`
 * (`harness/families/codex`) and through its ACP adapter `codex-acp` (`harness/families/acp`).
 * A fresh `CODEX_HOME` under the run's HOME (never under its TMPDIR: Codex refuses to create its
 * sandbox helper there) holds a `config.toml` naming the loopback Responses endpoint. Templates
 * over the agent-profile placeholders (`{{home}}`, `{{baseUrl}}`, `{{cwd}}`, `{{args.<name>}}`).
 */

/** Where Codex keeps its state and config for one run: `CODEX_HOME`, under the run's HOME. */
export const CODEX_HOME_ENV = { CODEX_HOME: "{{home}}/.codex" };

/** The fake key the native app-server sends the loopback endpoint (redacted like any key). */
export const CODEX_FAKE_KEY_ENV = { OPENAI_API_KEY: "parity-fake-codex-key-0001" };

/** Where a run's `config.toml` goes (inside {@link CODEX_HOME_ENV}'s `CODEX_HOME`). */
export const CODEX_CONFIG_FILE = "{{home}}/.codex/config.toml";

/**
 * `config.toml` of the native `codex app-server` (harness/families/codex): a catalog model slug (an unknown slug drops
 * `apply_patch`), the loopback endpoint without retries, the workspace-write sandbox with
 * approvals left to the bridge, and plugins, update checks, analytics and history off.
 */
export const CODEX_OFFLINE_CONFIG = `model = "gpt-5.5"
model_provider = "offline"
check_for_update_on_startup = false
sandbox_mode = "workspace-write"
approval_policy = "never"
web_search = "disabled"

[model_providers.offline]
name = "Parity loopback"
base_url = "{{baseUrl}}"
wire_api = "responses"
requires_openai_auth = false
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[otel]
exporter = "none"

[features]
plugins = false
apps = false
remote_plugin = false
plugin_sharing = false
tool_suggest = false
in_app_updates = false
`;

/**
 * `config.toml` of the ACP adapter codex-acp (harness/families/acp): the loopback endpoint as
 * provider `parity`, and the model, sandbox and approval policy its recordings were made with
 * (the adapter asks for approvals itself, so `untrusted`).
 */
export const CODEX_ACP_OFFLINE_CONFIG = `model = "gpt-5.4-mini"
model_provider = "parity"
sandbox_mode = "danger-full-access"
approval_policy = "untrusted"
check_for_update_on_startup = false

[model_providers.parity]
name = "Parity loopback"
base_url = "{{baseUrl}}"
wire_api = "responses"
requires_openai_auth = false
supports_websockets = false

[features]
apply_patch_freeform = true
`;

/**
 * How the cells' tool calls (opencode's argument names) are spelled for Codex: reads and shell
 * commands through `exec_command`, edits and new files as freeform `apply_patch` input.
 */
export const CODEX_TOOL_SPELLINGS = {
  read: { name: "exec_command", arguments: { cmd: "cat {{args.filePath}}", workdir: "{{cwd}}" } },
  edit: { name: "apply_patch", input: "*** Begin Patch\n*** Update File: {{args.filePath}}\n@@\n-{{args.oldString}}\n+{{args.newString}}\n*** End Patch\n" },
  // An added file's lines each start with `+`: this spelling holds for a one-line content (new-file-folder's).
  write: { name: "apply_patch", input: "*** Begin Patch\n*** Add File: {{args.filePath}}\n+{{args.content}}*** End Patch\n" },
  bash: { name: "exec_command", arguments: { cmd: "{{args.command}}", workdir: "{{cwd}}" } },
};

/**
 * What Codex needs of the host: bubblewrap, its Linux sandbox for the commands it runs. Without
 * `bwrap` on its PATH it warns "could not find bubblewrap on PATH" into the lane (issue 38).
 */
export const CODEX_HOST_PROGRAMS = [{ program: "bwrap", debianPackage: "bubblewrap", why: "codex sandboxes its commands with it and writes a warning into the lane without it" }];

/** A JSON key inside a recorded lane entry, where the line's quotes are escaped (`\"key\":`). */
const key = (name: string) => String.raw`\\"${name}\\":`;
const numberOf = (names: string[]) => `${key(`(${names.join("|")})`)}\\d+`;

/** What differs between two recordings of the app-server's own lines and is normalized. */
export const CODEX_NORMALIZE = [
  {
    pattern: numberOf(["durationMs", "emittedAtMs", "startedAtMs", "completedAtMs", "createdAt", "updatedAt", "recencyAt", "startedAt", "completedAt"]),
    replace: String.raw`\"$1\":0`,
    why: "Codex's times and durations (emittedAtMs on every notification, *AtMs, *At, durationMs) are set to 0.",
  },
  { pattern: `${key("processId")}\\\\"\\d+\\\\"`, replace: String.raw`\"processId\":\"0\"`, why: "the PTY processId is set to 0." },
  {
    pattern: `${key("(installationId|serverName)")}\\\\"[^\\\\"]*\\\\"`,
    replace: String.raw`\"$1\":\"normalized\"`,
    why: "remoteControl's installationId (random per CODEX_HOME) and serverName (the host name) are normalized.",
  },
  {
    pattern: String.raw`http://127\.0\.0\.1:\d+`,
    replace: "http://127.0.0.1:0",
    why: "the loopback endpoint's port (Codex quotes the request URL in a model error) is set to 0.",
  },
  {
    pattern: String.raw`sessions/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-`,
    replace: "sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-",
    why: "rollout paths carry the recording's date and time.",
  },
];
