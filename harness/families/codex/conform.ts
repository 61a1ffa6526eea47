/**
 * How `parity conform --bridge codex` starts the Codex bridge (spec 10 §7): against the
 * project's fixture app-server, whose script answers the ordinary, zero-work and hold prompts.
 */
import { codexConformanceSession, codexFixtureLaunch } from "../../../stack/codex/fixture/conformance.js";
import { spawnOptions } from "../../conformance/target.js";
import { childProcessTransport } from "../../conformance/transport.js";
import { packageDistPath } from "../../runtime/spawn-bridge.js";
import type { FamilyConform } from "../family.js";
import { CODEX_BRIDGE_MODULE } from "./launch.js";

/** The Codex family's conform hook (family.ts `conform`). */
export const codexConform: FamilyConform = {
  name: "codex",
  describe: `the native Codex bridge shipped with this package (${CODEX_BRIDGE_MODULE}), against the fixture app-server (dist/stack/codex/fixture/main.js) with zero-work and hold prompts`,
  resolve: (options, modulePath) => ({
    modulePath,
    agent: "the fixture Codex app-server (node dist/stack/codex/fixture/main.js app-server)",
    transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "codex", options)),
    session: options.session ?? codexConformanceSession(options.cwd, codexFixtureLaunch(packageDistPath("stack", "codex", "fixture", "main.js"))),
  }),
};
