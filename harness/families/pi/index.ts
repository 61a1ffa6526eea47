/**
 * The native pi bridge family (stack/pi; spec 60 "pi"; issue 23): provider `pi`, pi 0.73.1 in
 * `--mode rpc` driven by the bridge, its launch in `providerOptions.piLaunchSpec`.
 */
import type { BridgeFamily } from "../family.js";
import { agentsDir } from "../record-provider.js";
import { piConform } from "./conform.js";
import { piLaunchSeam } from "./launch.js";
import { piRecordProvider } from "./record.js";

/** The pi family: the real pi from the agents' install; its fixture agent serves tests and `parity conform`. */
export const piFamily: BridgeFamily = {
  ...piLaunchSeam,
  recordProviders: (options) => ({ agents: { pi: piRecordProvider(options?.agentsDir ?? agentsDir()) } }),
  conform: piConform,
};
