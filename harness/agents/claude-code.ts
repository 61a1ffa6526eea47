/**
 * What it takes to run Claude Code offline (docs/design/60-native-agents.md "Offline
 * configuration"), for both bridge families that run it: natively over stream-json
 * (`harness/families/claude-code`) and through its two ACP adapters (`harness/families/acp`).
 * Templates over the agent-profile placeholders (`{{origin}}`, `{{home}}`, `{{args.<name>}}`).
 */

/** The offline env: the loopback endpoint, a fake key (redacted like any key), nothing that reaches out. */
export const CLAUDE_CODE_OFFLINE_ENV = {
  ANTHROPIC_BASE_URL: "{{origin}}",
  ANTHROPIC_API_KEY: "parity-fake-anthropic-key-0001",
  CLAUDE_CONFIG_DIR: "{{home}}/.claude",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  // As root, Claude Code refuses bypassPermissions (the runtime's `full` mode) without it, and both
  // ACP adapters pass --allow-dangerously-skip-permissions, which it exits 1 on without it.
  IS_SANDBOX: "1",
  // Claude Code retries a failed model request ten times by default with backoff growing to
  // 35 s and more (measured on 2.1.332: a 401 takes minutes); two retries still show its retry
  // path (`system` `api_retry` lines, each retry answered by the script's repeating error) and
  // end a model-error turn within seconds.
  CLAUDE_CODE_MAX_RETRIES: "2",
};

/**
 * How the cells' file and shell tool calls (opencode's argument names) are spelled for Claude
 * Code. `fileToolPrefix` names the file tools as an agent serves them: `""` for Claude Code's own,
 * `mcp__acp__` for the Zed adapter's, which serves Read and Edit over its own MCP server.
 */
export function claudeCodeToolSpellings(fileToolPrefix = "") {
  return {
    read: { name: `${fileToolPrefix}Read`, arguments: { file_path: "{{args.filePath}}" } },
    edit: { name: `${fileToolPrefix}Edit`, arguments: { file_path: "{{args.filePath}}", old_string: "{{args.oldString}}", new_string: "{{args.newString}}" } },
    write: { name: `${fileToolPrefix}Write`, arguments: { file_path: "{{args.filePath}}", content: "{{args.content}}" } },
    bash: { name: "Bash", arguments: { command: "{{args.command}}", description: "{{args.description}}" } },
  };
}

/**
 * The subagent tool. Claude Code 2.1.332 runs an agent in the background unless told otherwise,
 * and its parent then asks the model again while the subagent asks too: two requests racing for
 * the script's next response. In the foreground the parent waits for the subagent's report.
 */
export const CLAUDE_CODE_TASK_SPELLING = {
  name: "Task",
  arguments: { description: "{{args.description}}", prompt: "{{args.prompt}}", subagent_type: "general-purpose", run_in_background: false },
};

/** `settings.json` (in `CLAUDE_CONFIG_DIR`): no auto-update, permission mode `default` so `set_permission_mode` decides per turn. */
export const CLAUDE_CODE_SETTINGS_FILE = { "{{home}}/.claude/settings.json": { autoUpdates: false, permissions: { defaultMode: "default" } } };

/**
 * What differs between two recordings of Claude Code's own stream-json and is normalized.
 * Patterns run over the recorded lane entries, where each line is a JSON string (quotes as \").
 */
export const CLAUDE_CODE_NORMALIZE = [
  {
    pattern: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    replace: "00000000-0000-4000-8000-000000000000",
    why: "every UUID (session_id, each message's uuid, the CLI's can_use_tool request ids, the bridge's --session-id) is one fixed UUID; the bridge only echoes request ids back, in order.",
  },
  { pattern: String.raw`timestamp\\":\\"[0-9T:.Z-]+`, replace: String.raw`timestamp\":\"1970-01-01T00:00:00.000Z`, why: "message timestamps are the epoch." },
  {
    pattern: String.raw`(ttft_ms|ttft_stream_ms|duration_ms|duration_api_ms|time_to_request_ms|first_content_frame_ms|pid)\\":\d+`,
    replace: String.raw`$1\":0`,
    why: "durations, time to first token and the CLI's pid are 0.",
  },
  { pattern: String.raw`cc-socks/\d+\.sock`, replace: "cc-socks/0.sock", why: "the CLI's socket path (named by its pid) is cc-socks/0.sock." },
  {
    pattern: String.raw`\ba[0-9a-f]{16}\b`,
    replace: "a0000000000000000",
    why: "a subagent's random id (task_id, agent_id, the agentId line of its hand-back) is a0000000000000000.",
  },
  { pattern: String.raw`run_id\\":\\"[0-9a-z]+-[0-9a-f]+`, replace: String.raw`run_id\":\"0-0`, why: "a subagent run's random run_id is 0-0." },
  { pattern: String.raw`(start_time|end_time)\\":\d+`, replace: String.raw`$1\":0`, why: "a subagent's start and end times are 0." },
  { pattern: String.raw`duration_ms: \d+`, replace: "duration_ms: 0", why: "the duration in a subagent hand-back's usage block is 0." },
];
