/**
 * The native Codex bridge family (stack/codex; spec 60 "Codex"): provider `codex`, its bridge
 * `dist/stack/codex/bridge.js`, the app-server launch in `providerOptions.codexAppServer`; the real
 * CLI recorded offline from its shipped profile (profile.ts), conformance against the fixture
 * app-server.
 */
import { CODEX_HOST_PROGRAMS } from "../../agents/codex.js";
import { profileRecordProvider } from "../profile-provider.js";
import { agentsDir, bridgeModulePath } from "../record-provider.js";
import type { BridgeFamily } from "../family.js";
import { codexConform } from "./conform.js";
import { codexLaunchOptions, codexLaunchSeam, CODEX_BRIDGE_MODULE } from "./launch.js";
import { CODEX_PROFILE } from "./profile.js";

/** The Codex bridge family. */
export const codexFamily: BridgeFamily = {
  ...codexLaunchSeam,
  recordProviders: (options) => ({
    agents: {
      codex: profileRecordProvider(CODEX_PROFILE, {
        id: CODEX_PROFILE.id,
        name: CODEX_PROFILE.name,
        command: CODEX_PROFILE.command,
        args: CODEX_PROFILE.args,
        agentsDir: options?.agentsDir ?? agentsDir(),
        packages: CODEX_PROFILE.packages,
        source: `npm ${CODEX_PROFILE.packages.join(" + ")}, its native binary`,
        bridge: { modulePath: bridgeModulePath({ modulePath: CODEX_BRIDGE_MODULE }), launchOptions: codexLaunchOptions },
        requires: CODEX_HOST_PROGRAMS,
      }),
    },
  }),
  conform: codexConform,
};
