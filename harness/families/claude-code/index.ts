/**
 * The claude-code family (spec 60 "Claude Code: stream-json"): the native Claude Code bridge
 * `stack/claude-code`, its launch in `providerOptions.claudeCodeLaunch`, the real CLI as a shipped
 * agent profile (provider `claude-code`), and `parity conform --bridge claude-code` against its
 * fixture CLI.
 */
import { profileRecordProvider } from "../profile-provider.js";
import { agentsDir, bridgeModulePath } from "../record-provider.js";
import type { BridgeFamily } from "../family.js";
import { CLAUDE_CODE_PROFILE } from "./agent-profiles.js";
import { claudeCodeConform } from "./conform.js";
import { CLAUDE_CODE_BRIDGE_MODULE, claudeCodeLaunchOptions, claudeCodeLaunchSeam } from "./launch.js";

/** The claude-code family. */
export const claudeCodeFamily: BridgeFamily = {
  ...claudeCodeLaunchSeam,
  recordProviders: (options) => ({
    agents: {
      "claude-code": profileRecordProvider(CLAUDE_CODE_PROFILE, {
        id: CLAUDE_CODE_PROFILE.id,
        name: CLAUDE_CODE_PROFILE.name,
        command: CLAUDE_CODE_PROFILE.command,
        args: CLAUDE_CODE_PROFILE.args,
        agentsDir: options?.agentsDir ?? agentsDir(),
        packages: CLAUDE_CODE_PROFILE.packages,
        source: `npm ${CLAUDE_CODE_PROFILE.packages.join(" + ")}`,
        bridge: { modulePath: bridgeModulePath({ modulePath: CLAUDE_CODE_BRIDGE_MODULE }), launchOptions: (agent) => claudeCodeLaunchOptions(agent) },
      }),
    },
  }),
  conform: claudeCodeConform,
};
