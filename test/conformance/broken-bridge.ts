import { randomBytes } from "node:crypto";
import { defineProviderBridge, type BridgeContext, type ProviderBridge } from "../../stack/bridge-kit/define.js";
import { runBridgeRequest, type BridgeRequestHandlers } from "../../stack/bridge-kit/run-request.js";
import { echoRequestHandlers } from "../../stack/echo/bridge.js";
import { createEchoSessions, type Entropy } from "../../stack/echo/sessions.js";

/** The ways the test bridge can be broken; each breaks exactly one conformance rule. */
export type Defect = "dropsUnknownMethods" | "answersStopBeforeSettling" | "counterProviderThreadId" | "grammarV2" | "invalidDelta";

/** Every defect. */
export const DEFECTS: readonly Defect[] = ["dropsUnknownMethods", "answersStopBeforeSettling", "counterProviderThreadId", "grammarV2", "invalidDelta"];

/** A process counter dressed as entropy: `echo-0000000000000001`, `…02`, … restarting with every instance. */
function counterEntropy(): Entropy {
  let counter = 0;
  return (bytes) => {
    counter += 1;
    const out = new Uint8Array(bytes);
    let rest = counter;
    for (let i = bytes - 1; i >= 0 && rest > 0; i -= 1) {
      out[i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
    return out;
  };
}

/**
 * The echo bridge with deliberate defects: drops unknown methods instead of answering
 * -32601, answers an interrupt stop before it settles the turn, mints providerThreadId
 * from a per-process counter, reports grammarVersions [2,2], or sends a grammar-v3-invalid
 * delta (an unknown text channel) in its own `thread/delta` at each `turn/start`.
 */
export function createBrokenBridge(defects: ReadonlySet<Defect>): ProviderBridge {
  const states = new WeakMap<BridgeContext, BridgeRequestHandlers>();
  const handlersOf = (ctx: BridgeContext): BridgeRequestHandlers => {
    const known = states.get(ctx);
    if (known) return known;
    const entropy: Entropy = defects.has("counterProviderThreadId") ? counterEntropy() : (n) => randomBytes(n);
    const sessions = createEchoSessions(ctx.io, entropy);
    const base = echoRequestHandlers(ctx, sessions);
    const handlers: BridgeRequestHandlers = {
      ...base,
      ...(defects.has("grammarV2") ? { initialize: () => ({ protocolVersion: 2, capabilities: { grammarVersions: [2, 2], sessionRestore: true } }) } : {}),
      ...(defects.has("answersStopBeforeSettling")
        ? {
            "thread/stop": (id: number | string, params: Parameters<typeof sessions.stop>[0]) => {
              ctx.io.sendResult(id, { ok: true });
              sessions.stop(params, () => undefined);
            },
          }
        : {}),
      ...(defects.has("invalidDelta")
        ? {
            "turn/start": (id: number | string, params: Parameters<typeof sessions.startTurn>[0]) => {
              ctx.io.notify("thread/delta", {
                threadId: params.threadId,
                deltas: [{ kind: "item.textDelta", key: {}, channel: "telepathy", text: "?" }],
              });
              sessions.startTurn(params, (result) => ctx.io.sendResult(id, result));
            },
          }
        : {}),
    };
    states.set(ctx, handlers);
    return handlers;
  };
  return defineProviderBridge({
    async handleLine(_line, ctx, message) {
      const handlers = handlersOf(ctx);
      const method = (message as { method?: unknown }).method;
      if (defects.has("dropsUnknownMethods") && typeof method === "string" && !(method in handlers)) return;
      await runBridgeRequest(ctx.io, message, handlers);
    },
  });
}
