/**
 * The pi family's launch (stack/pi/launch.ts): the bridge module, and the execution options'
 * `providerOptions.piLaunchSpec {command, args, env?}` written for a recording, read for
 * redaction and re-pointed at the replay child, through the native families' one seam
 * (../native-launch.ts). The bridge appends pi's RPC flags, which the replay child ignores.
 */
import type { AgentLaunch } from "../agent-launch.js";
import { nativeLaunchOptions, nativeLaunchSeam } from "../native-launch.js";

/** The pi bridge module, relative to the repository root: the one place it is written. */
export const PI_BRIDGE_MODULE = "dist/stack/pi/bridge.js";

/** Where the pi bridge reads its launch (stack/pi/launch.ts `PI_LAUNCH_SPEC_KEY`, whose module builds a zod schema on import). */
const LAUNCH_OPTION = "piLaunchSpec";

/** The execution options that make the pi bridge start `agent`: `providerOptions.piLaunchSpec {command, args, env?}` (pi's spec has no `cwd`). */
export function piLaunchOptions(agent: AgentLaunch): Record<string, unknown> {
  return nativeLaunchOptions(agent, LAUNCH_OPTION, false);
}

/** The pi family's replay and launch seam: provider `pi`, its bridge, its launch spec re-pointed, `get_state` starting each pi process. */
export const piLaunchSeam = nativeLaunchSeam({
  id: "pi",
  modulePath: PI_BRIDGE_MODULE,
  key: LAUNCH_OPTION,
  carriesCwd: false,
  // The bridge's first command to every pi process is `get_state` with id `pi-1` (stack/pi/rpc.ts counts ids per process).
  startsAgent: (line) => line.startsWith('{"id":"pi-1","type":"get_state"'),
});
