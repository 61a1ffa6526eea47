import path from "node:path";
import { fixtureConformanceSession, fixtureLaunchSpec } from "../../stack/acp/fixture-agent/conformance.js";
import { piConformanceSession } from "../../stack/pi/fixture-agent/conformance.js";
import { packageDistPath, type SpawnBridgeOptions } from "../runtime/spawn-bridge.js";
import { echoConformanceSession, type ConformanceSessionInput } from "./session.js";
import { childProcessTransport, type ConformanceTransport } from "./transport.js";

/** What `parity conform` knows besides the bridge name (resolved once from flags). */
export interface BridgeTargetOptions {
  /** Directory relative paths resolve against. */
  cwd: string;
  /** `--provider-id`, when given. */
  providerId?: string;
  /** Parsed `--launch-spec` JSON file, when given (ACP bridges put it in `options.providerOptions.acpLaunchSpec`). */
  launchSpec?: unknown;
  /** Parsed and validated `--session` file, when given; replaces the bridge's default fixture. */
  session?: ConformanceSessionInput;
  /** Environment of the bridge process. */
  env?: NodeJS.ProcessEnv;
  /** Receives bridge stderr (under `--verbose`). */
  onStderr?: (text: string) => void;
}

/** A bridge ready to be checked: how to reach it and the fixture to use. */
export interface BridgeTarget {
  transport: ConformanceTransport;
  session: ConformanceSessionInput;
  /** The bridge module that will be spawned (absolute, or relative to `cwd`). */
  modulePath: string;
  /** For a bridge that drives an agent: which one it runs against, in words (`parity conform` prints it). */
  agent?: string;
}

/** One named bridge `parity conform --bridge <name>` accepts. */
export interface KnownBridge {
  /** One line for `--help`. */
  describe: string;
  /**
   * Builds the target.
   *
   * @throws UsageError naming the flag to add when a required option is missing.
   */
  resolve(options: BridgeTargetOptions): BridgeTarget;
}

function spawnOptions(modulePath: string, providerId: string, options: BridgeTargetOptions): SpawnBridgeOptions {
  return {
    modulePath,
    providerId,
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
}

/** Adds the launch spec, when one was given, to a fixture's options as `providerOptions.acpLaunchSpec`. */
export function withLaunchSpec(session: ConformanceSessionInput, launchSpec: unknown): ConformanceSessionInput {
  if (launchSpec === undefined) return session;
  const options = { ...(session.options ?? {}) };
  const providerOptions = { ...((options.providerOptions as Record<string, unknown> | undefined) ?? {}), acpLaunchSpec: launchSpec };
  return { ...session, options: { ...options, providerOptions } };
}

/** `--bridge acp`'s agent in words: the `--launch-spec` agent's name and command line, or the default fixture agent. */
function describeAgent(launchSpec: unknown): string {
  if (launchSpec === undefined) {
    return "the fixture ACP agent (node dist/stack/acp/fixture-agent/main.js, the default; --launch-spec <file> runs another)";
  }
  const spec = launchSpec as { displayName?: unknown; command?: unknown; args?: unknown };
  const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
  return `${String(spec.displayName)} (${[String(spec.command), ...args].join(" ")}) from --launch-spec`;
}

/**
 * Bridges known by name (`parity conform --bridge <name>`); anything else is taken as a
 * module path. To add one, add an entry here: a name, a line of help and a resolver.
 * The ACP entry is a first wiring (the module and the launch spec); the ACP bridge's owner
 * may give it a default fixture agent and hold/zero-work prompts.
 */
export const KNOWN_BRIDGES: Readonly<Record<string, KnownBridge>> = {
  echo: {
    describe: "the echo bridge shipped with this package (dist/stack/echo/bridge.js)",
    resolve: (options) => {
      const modulePath = packageDistPath("stack", "echo", "bridge.js");
      return {
        modulePath,
        transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "echo", options)),
        session: withLaunchSpec(options.session ?? echoConformanceSession(options.cwd), options.launchSpec),
      };
    },
  },
  acp: {
    describe:
      "the ACP bridge shipped with this package (dist/stack/acp/bridge.js); without --launch-spec it runs against the fixture ACP agent (dist/stack/acp/fixture-agent/main.js) with zero-work and hold prompts",
    resolve: (options) => {
      const modulePath = packageDistPath("stack", "acp", "bridge.js");
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
  },
  pi: {
    describe:
      "the native pi bridge shipped with this package (dist/stack/pi/bridge.js), against the pi fixture agent (dist/stack/pi/fixture-agent/main.js) with zero-work and hold prompts; --session gives another fixture (its options.providerOptions.piLaunchSpec names the agent)",
    resolve: (options) => {
      const modulePath = packageDistPath("stack", "pi", "bridge.js");
      return {
        modulePath,
        agent: "the pi fixture agent (node dist/stack/pi/fixture-agent/main.js --script-json …)",
        transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "pi", options)),
        session: options.session ?? piConformanceSession(options.cwd, packageDistPath("stack", "pi", "fixture-agent", "main.js")),
      };
    },
  },
};

/**
 * Resolves `--bridge <name | module path>`: a {@link KNOWN_BRIDGES} name, else a path to a
 * module exporting `experimental_providerBridge`, spawned through the bootstrap with
 * provider id `--provider-id` (default: the module's file name without extension) and the
 * `--session` fixture (default: an ordinary prompt only, so the zero-work and interrupt
 * rules report nothing).
 */
export function resolveBridgeTarget(bridge: string, options: BridgeTargetOptions): BridgeTarget {
  const known = Object.prototype.hasOwnProperty.call(KNOWN_BRIDGES, bridge) ? KNOWN_BRIDGES[bridge] : undefined;
  if (known) return known.resolve(options);
  const base = bridge.split(/[\\/]/).pop() ?? bridge;
  const providerId = options.providerId ?? base.replace(/\.[cm]?js$/, "");
  // The shipped ACP bridge named by its path is still the ACP bridge.
  const isAcpBridge = path.resolve(options.cwd, bridge) === packageDistPath("stack", "acp", "bridge.js");
  const transport = childProcessTransport(spawnOptions(bridge, providerId, options));
  return {
    modulePath: bridge,
    transport: isAcpBridge ? { ...transport, passesAgentSessionId: true } : transport,
    session: withLaunchSpec(options.session ?? { cwd: options.cwd }, options.launchSpec),
  };
}
