/**
 * The native pi bridge family (stack/pi; spec 60 "pi"; issue 23): provider `pi`, pi 0.73.1 in
 * `--mode rpc` driven by the bridge, its launch in `providerOptions.piLaunchSpec`.
 */
import type { BridgeFamily } from "../family.js";
import { agentsDir } from "../record-provider.js";
import { piConform } from "./conform.js";
import { PI_BRIDGE_MODULE, piLaunchEnv, piLaunchOptions, pointPiLaunchSpecAt } from "./launch.js";
import { piRecordProvider } from "./record.js";

/** The pi family: the real pi from the agents' install; its fixture agent serves tests and `parity conform`. */
export const piFamily: BridgeFamily = {
  id: "pi",
  providers: "pi",
  handles: (provider) => provider === "pi",
  modulePath: PI_BRIDGE_MODULE,
  launchMarker: '"piLaunchSpec"',
  pointAgentAt: pointPiLaunchSpecAt,
  launchOptions: (agent) => piLaunchOptions(agent),
  launchEnv: piLaunchEnv,
  // The bridge's first command to every pi process is `get_state` with id `pi-1` (stack/pi/rpc.ts counts ids per process).
  startsAgent: (line) => line.startsWith('{"id":"pi-1","type":"get_state"'),
  recordProviders: () => ({ agents: { pi: piRecordProvider(agentsDir()) } }),
  conform: piConform,
};
