/**
 * The echo family's replay seam: provider `echo`, its bridge module, no agent launch (the echo
 * bridge answers every turn itself).
 */
import type { ReplayAdapter } from "../agent-launch.js";

/** The echo bridge module, relative to the repository root: the one place it is written. */
export const ECHO_BRIDGE_MODULE = "dist/stack/echo/bridge.js";

/** The echo family's replay seam: no agent, so no launch hooks. */
export const echoLaunchSeam: ReplayAdapter = {
  id: "echo",
  providers: "echo",
  handles: (provider) => provider === "echo",
  modulePath: ECHO_BRIDGE_MODULE,
};
