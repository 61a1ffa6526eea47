/**
 * A provider bridge as a value: the hooks the bootstrap calls (spec 02 §1,
 * §7: a bridge does not start itself; argv, the data and temp directories, the stdin framing and
 * the signals are the bootstrap's).
 */
import type { BridgeIo } from "./io.js";

/** The export name the bootstrap looks for in a bridge module. */
export const PROVIDER_BRIDGE_EXPORT_NAME = "experimental_providerBridge";

/** What every hook of a bridge receives; one per bridge process (stack/bridge-kit/README.md). */
export interface BridgeContext {
  /** The provider id the runtime launched this bridge for (argv 2). */
  readonly providerId: string;
  /** A directory the bridge may keep state in across processes (argv 3; created if missing). */
  readonly dataDir: string;
  /** A private temp directory for this process, removed when the process ends. */
  readonly tempDir: string;
  /** The JSON-RPC io to the runtime. */
  readonly io: BridgeIo;
  /**
   * The bridge process's environment (without the record variable). Children must not get
   * it as is: pass it through `sanitizeInheritedChildProcessEnv` first (spec 30 §6.5).
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Writes one diagnostic line to stderr (never to the protocol stream). */
  log(text: string): void;
}

/** The hooks of a bridge. */
export interface ProviderBridgeHooks {
  /** Called once before the first line is read; may be async. */
  start?(ctx: BridgeContext): void | Promise<void>;
  /**
   * Called with each runtime line that is JSON and not the answer to one of the bridge's own
   * pending requests (those go to `ctx.io` first). `message` is that line parsed. Not awaited
   * before the next line: a long `turn/start` must not block `turn/steer` or `thread/stop`.
   */
  handleLine(line: string, ctx: BridgeContext, message: unknown): void | Promise<void>;
  /** Called once when stdin closes or on SIGTERM/SIGINT, before the process exits 0. */
  onClose?(ctx: BridgeContext): void | Promise<void>;
}

/** A validated bridge, as exported under {@link PROVIDER_BRIDGE_EXPORT_NAME}. */
export interface ProviderBridge extends ProviderBridgeHooks {
  /** Always 2: the protocol version the bridge speaks. */
  readonly protocolVersion: 2;
}

/**
 * Validates a bridge's hooks and returns the bridge (stack/bridge-kit/README.md
 * `defineProviderBridge`). Throws a TypeError naming the hook when `handleLine` is not a
 * function, or `start`/`onClose` are present but not functions.
 */
export function defineProviderBridge(hooks: ProviderBridgeHooks): ProviderBridge {
  if (typeof hooks !== "object" || hooks === null) {
    throw new TypeError("defineProviderBridge: expected an object of hooks { start?, handleLine, onClose? }");
  }
  if (typeof hooks.handleLine !== "function") {
    throw new TypeError("defineProviderBridge: handleLine must be a function (line, ctx, message) => void");
  }
  for (const name of ["start", "onClose"] as const) {
    if (hooks[name] !== undefined && typeof hooks[name] !== "function") {
      throw new TypeError(`defineProviderBridge: ${name} must be a function when given`);
    }
  }
  return Object.freeze({
    protocolVersion: 2 as const,
    handleLine: hooks.handleLine.bind(hooks),
    ...(hooks.start ? { start: hooks.start.bind(hooks) } : {}),
    ...(hooks.onClose ? { onClose: hooks.onClose.bind(hooks) } : {}),
  });
}

/** True when `value` has the shape of a bridge (a `handleLine` function, optional hooks). */
export function isProviderBridge(value: unknown): value is ProviderBridge {
  if (typeof value !== "object" || value === null) return false;
  const hooks = value as Record<string, unknown>;
  return typeof hooks.handleLine === "function" && (hooks.start === undefined || typeof hooks.start === "function") && (hooks.onClose === undefined || typeof hooks.onClose === "function");
}

/**
 * The bridge a loaded module exports, the way the bootstrap takes it: `experimental_providerBridge`
 * ({@link PROVIDER_BRIDGE_EXPORT_NAME}), else the default export; `null` when neither is a bridge.
 */
export function providerBridgeOf(loaded: Record<string, unknown>): ProviderBridge | null {
  const candidate = loaded[PROVIDER_BRIDGE_EXPORT_NAME] ?? loaded.default;
  return isProviderBridge(candidate) ? candidate : null;
}
