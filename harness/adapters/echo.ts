import type { ReplayAdapter } from "./agent-launch.js";

/** The echo bridge: provider `echo`, the bridge `dist/stack/echo/bridge.js`; it launches no agent. */
export const echoReplayAdapter: ReplayAdapter = {
  id: "echo",
  providers: "echo",
  handles: (provider) => provider === "echo",
  modulePath: "dist/stack/echo/bridge.js",
};
