/**
 * The echo bridge family (stack/echo): provider `echo`, a bridge that launches no agent and
 * answers every turn itself, so both provider lanes of its recordings are empty. The smallest
 * family, and the worked example of harness/families/README.md.
 */
import { echoConformanceSession } from "../../conformance/session.js";
import { spawnOptions, withLaunchSpec } from "../../conformance/target.js";
import { childProcessTransport } from "../../conformance/transport.js";
import type { BridgeFamily } from "../family.js";
import { baseEnv, bridgeModulePath, isolatedHomeEnv, type RecordProvider } from "../record-provider.js";
import { ECHO_BRIDGE_MODULE, echoLaunchSeam } from "./launch.js";
import { packageVersion } from "../../recording/package-root.js";

/** `parity record --provider echo`: the bridge alone, in an isolated home. */
const echoRecordProvider: RecordProvider = {
  id: "echo",
  modulePath: bridgeModulePath({ modulePath: ECHO_BRIDGE_MODULE }),
  takesModelEndpoint: false,
  async prepare(dirs) {
    return {
      env: { ...baseEnv(), ...(await isolatedHomeEnv(dirs.home)) },
      options: {},
      cliVersion: `bridge-parity echo ${packageVersion()}`,
      note: "The echo bridge has no provider child, so both provider lanes are empty.",
    };
  },
};

/** The echo bridge family: no agent, so no launch hooks. */
export const echoFamily: BridgeFamily = {
  ...echoLaunchSeam,
  recordProviders: () => ({ bridges: { echo: echoRecordProvider } }),
  conform: {
    name: "echo",
    describe: `the echo bridge shipped with this package (${ECHO_BRIDGE_MODULE})`,
    resolve: (options, modulePath) => ({
      modulePath,
      transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "echo", options)),
      session: withLaunchSpec(options.session ?? echoConformanceSession(options.cwd), options.launchSpec),
    }),
  },
};
