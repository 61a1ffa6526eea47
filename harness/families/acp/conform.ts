/**
 * How `parity conform --bridge acp` starts the ACP bridge (spec 10 §7): against the
 * `--launch-spec` agent, or by default the project's fixture ACP agent, whose script answers
 * the ordinary, zero-work and hold prompts.
 */
import { fixtureConformanceSession, fixtureLaunchSpec } from "../../../stack/acp/fixture-agent/conformance.js";
import { spawnOptions, withLaunchSpec } from "../../conformance/target.js";
import { childProcessTransport } from "../../conformance/transport.js";
import { packageDistPath } from "../../runtime/spawn-bridge.js";
import type { FamilyConform } from "../family.js";
import { ACP_BRIDGE_MODULE } from "./launch.js";

/** `--bridge acp`'s agent in words: the `--launch-spec` agent's name and command line, or the default fixture agent. */
function describeAgent(launchSpec: unknown): string {
  if (launchSpec === undefined) {
    return "the fixture ACP agent (node dist/stack/acp/fixture-agent/main.js, the default; --launch-spec <file> runs another)";
  }
  const spec = launchSpec as { displayName?: unknown; command?: unknown; args?: unknown };
  const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
  return `${String(spec.displayName)} (${[String(spec.command), ...args].join(" ")}) from --launch-spec`;
}

/** The ACP family's conform hook (family.ts `conform`). */
export const acpConform: FamilyConform = {
  name: "acp",
  describe: `the ACP bridge shipped with this package (${ACP_BRIDGE_MODULE}); without --launch-spec it runs against the fixture ACP agent (dist/stack/acp/fixture-agent/main.js) with zero-work and hold prompts`,
  passesAgentSessionId: true,
  resolve: (options, modulePath) => {
    // No agent given: the project's fixture agent, whose script answers the ordinary, zero-work and hold prompts.
    const launchSpec = options.launchSpec ?? fixtureLaunchSpec(packageDistPath("stack", "acp", "fixture-agent", "main.js"));
    const session = options.session ?? (options.launchSpec === undefined ? fixtureConformanceSession(options.cwd) : { cwd: options.cwd });
    return {
      modulePath,
      agent: describeAgent(options.launchSpec),
      transport: { ...childProcessTransport(spawnOptions(modulePath, options.providerId ?? "acp", options)), passesAgentSessionId: true },
      session: withLaunchSpec(session, launchSpec),
    };
  },
};
