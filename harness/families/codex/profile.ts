/**
 * The real Codex CLI as a recorded provider: the native binary of `@openai/codex` (pinned in the
 * agents' own lockfile, `agents/`) run as `codex app-server` through the Codex bridge, offline as
 * harness/agents/codex.ts says. The profile is data (agent-profile.ts).
 */
import { CODEX_CONFIG_FILE, CODEX_FAKE_KEY_ENV, CODEX_HOME_ENV, CODEX_NORMALIZE, CODEX_OFFLINE_CONFIG, CODEX_TOOL_SPELLINGS } from "../../agents/codex.js";
import type { ShippedAgentProfile } from "../agent-profile.js";

/** The shipped profile of provider `codex`. */
export const CODEX_PROFILE: ShippedAgentProfile = {
  id: "codex",
  name: "codex",
  packages: ["@openai/codex"],
  // The native binary: the npm wrapper is a Node script that spawns it.
  command: "{{agents}}/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
  args: ["app-server"],
  modelApi: "openai-responses",
  env: { ...CODEX_HOME_ENV, ...CODEX_FAKE_KEY_ENV },
  files: { [CODEX_CONFIG_FILE]: CODEX_OFFLINE_CONFIG },
  version: { args: ["--version"] },
  settle: [],
  tools: CODEX_TOOL_SPELLINGS,
  rejections: [],
  redact: [],
  normalize: CODEX_NORMALIZE,
};
