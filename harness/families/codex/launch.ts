/**
 * The Codex family's app-server launch (stack/codex/launch.ts): the request field that carries
 * it (`options.providerOptions.codexAppServer = {command, args, env?, cwd?}`), written for a
 * recording, read for redaction, re-pointed at the replay child for a replay (spec 10 §5.1 g),
 * all through the native families' one seam (../native-launch.ts).
 */
import { CODEX_LAUNCH_OPTION } from "../../../stack/codex/launch-option.js";
import type { AgentLaunch } from "../agent-launch.js";
import { nativeLaunchOptions, nativeLaunchSeam } from "../native-launch.js";

/** The Codex bridge module, relative to the repository root: the one place it is written. */
export const CODEX_BRIDGE_MODULE = "dist/stack/codex/bridge.js";

/** The execution options that make the Codex bridge start `agent` as its app-server. */
export function codexLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  return nativeLaunchOptions(agent, CODEX_LAUNCH_OPTION);
}

/** The replay and launch seam of the Codex family: provider `codex`, its bridge, its launch re-pointed. */
export const codexLaunchSeam = nativeLaunchSeam({ id: "codex", modulePath: CODEX_BRIDGE_MODULE, key: CODEX_LAUNCH_OPTION });
