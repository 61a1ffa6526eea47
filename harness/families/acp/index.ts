/**
 * The ACP bridge family (spec 30): providers `acp-*`, the bridge `stack/acp`, its agents' launch
 * spec (`providerOptions.acpLaunchSpec`); real agents from the shipped agent profiles, scripted
 * fixture agents where the real CLI cannot run here, and a user's `customAgents`.
 */
import type { BridgeFamily } from "../family.js";
import { acpConform } from "./conform.js";
import { acpCustomAgents } from "./custom-agents.js";
import { FIXTURE_RECORD_PROVIDERS } from "./fixture-agents.js";
import { acpLaunchSeam } from "./launch.js";
import { acpProbe } from "./probe.js";
import { shippedProfileProviders } from "./profiles.js";

/** The ACP bridge family. */
export const acpFamily: BridgeFamily = {
  ...acpLaunchSeam,
  recordProviders: (options) => ({ agents: shippedProfileProviders(options?.agentsDir), fixtures: FIXTURE_RECORD_PROVIDERS }),
  customAgents: acpCustomAgents,
  conform: acpConform,
  probe: acpProbe,
};
