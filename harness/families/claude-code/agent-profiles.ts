/**
 * The shipped agent profile of the claude-code family: Claude Code itself, recorded offline
 * against the loopback model endpoint; what it takes to run it offline is harness/agents/claude-code.ts.
 */
import { CLAUDE_CODE_NORMALIZE, CLAUDE_CODE_OFFLINE_ENV, CLAUDE_CODE_SETTINGS_FILE, CLAUDE_CODE_TASK_SPELLING, claudeCodeToolSpellings } from "../../agents/claude-code.js";
import type { ShippedAgentProfile } from "../agent-profile.js";

const pkg = (name: string) => ({ packageJson: `{{agents}}/node_modules/${name}/package.json` });

/**
 * Claude Code itself (spec 60), driven natively over stream-json by `stack/claude-code` rather than
 * through an ACP adapter: the native binary run by path (npm 11 blocks the wrapper's install script,
 * so `.bin/claude` is absent), the same offline env and settings as the adapters' agent.
 */
export const CLAUDE_CODE_PROFILE: ShippedAgentProfile = {
  id: "claude-code",
  name: "claude-code",
  packages: ["@anthropic-ai/claude-code", "@anthropic-ai/claude-code-linux-x64"],
  command: "{{agents}}/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
  args: ["--model", "claude-sonnet-4-5"],
  modelApi: "anthropic-messages",
  env: CLAUDE_CODE_OFFLINE_ENV,
  files: CLAUDE_CODE_SETTINGS_FILE,
  version: pkg("@anthropic-ai/claude-code"),
  settle: [],
  tools: { ...claudeCodeToolSpellings(), task: CLAUDE_CODE_TASK_SPELLING },
  rejections: [],
  redact: [],
  normalize: CLAUDE_CODE_NORMALIZE,
};
