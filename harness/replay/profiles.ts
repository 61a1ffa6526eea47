import { UsageError } from "../errors.js";

/**
 * How the harness replays one provider's recordings (spec 10 §5.1 Profiles): the bridge
 * module the bootstrap loads (relative to the repository's `dist/`) and whether the
 * runtime lines carry an ACP launch spec to point at the replay child.
 */
export interface ReplayProfile {
  /** Bridge module path relative to the repository root. */
  modulePath: string;
  /** True for ACP providers: `acpLaunchSpec` is rewritten (spec 10 §5.1 g). */
  acpLaunchSpec: boolean;
}

/**
 * The profile of a provider id: `acp-*` → the ACP bridge `dist/stack/acp/bridge.js`;
 * `echo` → `dist/stack/echo/bridge.js`.
 *
 * @throws UsageError for a provider with no replay profile (exit 2)
 */
export function replayProfileFor(provider: string): ReplayProfile {
  if (provider.startsWith("acp-")) return { modulePath: "dist/stack/acp/bridge.js", acpLaunchSpec: true };
  if (provider === "echo") return { modulePath: "dist/stack/echo/bridge.js", acpLaunchSpec: false };
  throw new UsageError(`no replay profile for provider "${provider}" (replayable: acp-*, echo)`);
}
