/**
 * The shipped agent profile of the claude-code family: Claude Code itself, recorded offline
 * against the loopback model endpoint (spec 60 "Offline configuration").
 */
import type { ShippedAgentProfile } from "../agent-profile.js";

/** Spec 60's offline env (as the ACP adapters of Claude Code get it in the acp family). */
const CLAUDE_ENV = {
  ANTHROPIC_BASE_URL: "{{origin}}",
  ANTHROPIC_API_KEY: "parity-fake-anthropic-key-0001",
  CLAUDE_CONFIG_DIR: "{{home}}/.claude",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  // As root, Claude Code refuses bypassPermissions (the runtime's `full` mode) without it.
  IS_SANDBOX: "1",
  // Claude Code retries a failed model request ten times by default with backoff growing to
  // 35 s and more (measured on 2.1.332: a 401 takes minutes); two retries still show its retry
  // path (`system` `api_retry` lines, each retry answered by the script's repeating error) and
  // end a model-error turn within seconds.
  CLAUDE_CODE_MAX_RETRIES: "2",
};

const pkg = (name: string) => ({ packageJson: `{{agents}}/node_modules/${name}/package.json` });

/**
 * Claude Code itself (spec 60), driven natively over stream-json by `stack/claude-code` rather than
 * through an ACP adapter: the native binary run by path (npm 11 blocks the wrapper's install script,
 * so `.bin/claude` is absent), the same offline env as the adapters, the settings file spec 60 names
 * (no auto-update, permission mode `default` so `set_permission_mode` decides per turn).
 */
export const CLAUDE_CODE_PROFILE: ShippedAgentProfile = {
  id: "claude-code",
  name: "claude-code",
  packages: ["@anthropic-ai/claude-code", "@anthropic-ai/claude-code-linux-x64"],
  command: "{{agents}}/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
  args: ["--model", "claude-sonnet-4-5"],
  modelApi: "anthropic-messages",
  env: CLAUDE_ENV,
  files: { "{{home}}/.claude/settings.json": { autoUpdates: false, permissions: { defaultMode: "default" } } },
  version: pkg("@anthropic-ai/claude-code"),
  settle: [],
  tools: {
    read: { name: "Read", arguments: { file_path: "{{args.filePath}}" } },
    edit: { name: "Edit", arguments: { file_path: "{{args.filePath}}", old_string: "{{args.oldString}}", new_string: "{{args.newString}}" } },
    write: { name: "Write", arguments: { file_path: "{{args.filePath}}", content: "{{args.content}}" } },
    bash: { name: "Bash", arguments: { command: "{{args.command}}", description: "{{args.description}}" } },
    // Claude Code 2.1.332 runs an agent in the background unless told otherwise, and its parent
    // then asks the model again while the subagent asks too: two requests racing for the script's
    // next response. In the foreground the parent waits for the subagent's report.
    task: { name: "Task", arguments: { description: "{{args.description}}", prompt: "{{args.prompt}}", subagent_type: "general-purpose", run_in_background: false } },
  },
  rejections: [],
  redact: [],
  // Patterns run over the recorded lane entries, where each line is a JSON string (quotes as \").
  normalize: [
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
  ],
};
