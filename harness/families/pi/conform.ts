/**
 * How `parity conform --bridge pi` starts the native pi bridge (spec 10 §7): by default against
 * the pi fixture agent (stack/pi/fixture-agent), whose script answers the ordinary, zero-work and
 * hold prompts; `--session` gives another fixture (its `options.providerOptions.piLaunchSpec`
 * names the agent).
 */
import { piConformanceSession } from "../../../stack/pi/fixture-agent/conformance.js";
import { spawnOptions } from "../../conformance/target.js";
import { childProcessTransport } from "../../conformance/transport.js";
import { packageDistPath } from "../../runtime/spawn-bridge.js";
import type { FamilyConform } from "../family.js";
import { PI_BRIDGE_MODULE } from "./launch.js";

/** The pi family's conform hook (family.ts `conform`). */
export const piConform: FamilyConform = {
  name: "pi",
  describe: `the native pi bridge shipped with this package (${PI_BRIDGE_MODULE}), against the pi fixture agent (dist/stack/pi/fixture-agent/main.js) with zero-work and hold prompts`,
  resolve: (options, modulePath) => ({
    modulePath,
    agent: "the pi fixture agent (node dist/stack/pi/fixture-agent/main.js --script-json …)",
    transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "pi", options)),
    session: options.session ?? piConformanceSession(options.cwd, packageDistPath("stack", "pi", "fixture-agent", "main.js")),
  }),
};
