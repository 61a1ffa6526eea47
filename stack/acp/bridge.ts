/**
 * The ACP provider bridge module (spec 20, spec 30): `experimental_providerBridge` for the
 * bootstrap (`node dist/stack/bridge-kit/bootstrap.js dist/stack/acp/bridge.js <providerId> <dataDir>`),
 * `acpProviderBridge` for the package API, and {@link createAcpProviderBridge} for tests that need
 * their own options (short timeouts, an injected clock).
 *
 * State lives per bridge context (one per process under the bootstrap), never at module level.
 */
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../bridge-kit/define.js";
import { runBridgeRequest } from "../bridge-kit/run-request.js";
import { createRealScheduler } from "../bridge-kit/scheduler.js";
import { createAcpBridgeRuntime, resolveAcpBridgeOptions, runtimeLinePlace, type AcpBridgeOptions, type AcpBridgeRuntime } from "./bridge-runtime.js";
import { acpRequestHandlers } from "./runtime-methods.js";
import { stopAllSessions } from "./session/stop.js";

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * Creates an ACP bridge with resolved options (see {@link AcpBridgeOptions}).
 * @throws TypeError when an option is invalid (names the option).
 */
export function createAcpProviderBridge(options: AcpBridgeOptions = {}): ProviderBridge {
  const resolved = resolveAcpBridgeOptions(options);
  const runtimes = new WeakMap<BridgeContext, { rt: AcpBridgeRuntime; handlers: ReturnType<typeof acpRequestHandlers> }>();
  const runtimeFor = (ctx: BridgeContext) => {
    let entry = runtimes.get(ctx);
    if (!entry) {
      const rt = createAcpBridgeRuntime(ctx, resolved);
      entry = { rt, handlers: acpRequestHandlers(rt) };
      runtimes.set(ctx, entry);
    }
    return entry;
  };
  return defineProviderBridge({
    start(ctx) {
      runtimeFor(ctx);
    },
    async handleLine(line, ctx, message) {
      const parsed = message === undefined ? parseLine(line) : message;
      if (parsed === undefined) return;
      if (ctx.io.acceptResponse(parsed)) return;
      const { rt, handlers } = runtimeFor(ctx);
      // Acted on in read order: after the agent lines read before it (connection/read-order.ts).
      await runtimeLinePlace(rt);
      await runBridgeRequest(ctx.io, parsed, handlers);
    },
    async onClose(ctx) {
      const { rt } = runtimeFor(ctx);
      // The end of stdin comes after every runtime line: it stops the sessions at its own place,
      // so agent lines read before it are handled (not dropped by a stopping session) first.
      await runtimeLinePlace(rt);
      await stopAllSessions(rt);
    },
  });
}

/** The ACP bridge with default options (package export `acpProviderBridge`). */
export const acpProviderBridge: ProviderBridge = createAcpProviderBridge({ scheduler: createRealScheduler() });
/** Seed-compatible alias (spec 30 §1.2 `experimental_acpProviderBridge`). */
export const experimental_acpProviderBridge: ProviderBridge = acpProviderBridge;
/** The export the bootstrap loads (`PROVIDER_BRIDGE_EXPORT_NAME`). */
export const experimental_providerBridge: ProviderBridge = acpProviderBridge;
