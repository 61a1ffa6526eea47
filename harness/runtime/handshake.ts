import {
  ASSEMBLER_GRAMMAR_VERSIONS,
  InitializeResultSchema,
  PROVIDER_BRIDGE_PROTOCOL_VERSION,
  negotiateGrammar,
  resolveBridgeCapabilities,
  type InitializeParams,
  type ResolvedBridgeCapabilities,
} from "../../stack/protocol/handshake.js";
import { BridgeRefusedError } from "./errors.js";
import type { JsonRpcClient } from "./json-rpc-client.js";
import { findWidenedFacts, type ProviderDeclaration, type ProviderRegistry } from "./provider-registry.js";

/** `client` this runtime names itself with in `initialize` (spec 10 §1.1). */
export const RUNTIME_CLIENT = { name: "bridge-parity", version: "0.1.0" } as const;

/** Default wait for the `initialize` answer, in ms (detects a hung bridge only). */
export const INITIALIZE_TIMEOUT_MS = 10_000;

/** What the runtime learned from a bridge that passed the handshake. */
export interface InitializedBridge {
  /** The bridge's `protocolVersion` (always {@link PROVIDER_BRIDGE_PROTOCOL_VERSION}). */
  protocolVersion: number;
  /** Capabilities with the spec 10 §1.1 defaults applied. */
  capabilities: ResolvedBridgeCapabilities;
  /** The negotiated grammar version (always 3 today). */
  grammarVersion: number;
  /** The provider declaration the handshake was checked against, when one is registered. */
  declaration: ProviderDeclaration | undefined;
}

/** Options of {@link initializeBridge}. */
export interface InitializeBridgeOptions {
  /** Provider id to look up in `registry`; defaults to the client's `providerId` when it has one. */
  providerId?: string;
  /** Declarations to check the handshake against; without one only the grammar gate applies. */
  registry?: ProviderRegistry;
  /** `client` sent in `initialize`; defaults to {@link RUNTIME_CLIENT}. */
  client?: { name: string; version: string };
  /** Wait for the answer, in ms; defaults to {@link INITIALIZE_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** The `initialize` params this runtime sends: protocol 2, grammar range `[3,3]` (spec 10 §1.1). */
export function runtimeInitializeParams(client: { name: string; version: string } = RUNTIME_CLIENT): InitializeParams {
  return {
    protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION,
    client: { ...client },
    grammarVersions: [...ASSEMBLER_GRAMMAR_VERSIONS],
  };
}

/**
 * Checks an `initialize` result the way the runtime does at spawn (spec 02 §3;
 * spec 10 §1.1 Negotiation): it must parse, speak protocol 2, offer a grammar range that
 * includes 3 (a missing `grammarVersions` reads `[2,2]` and is refused), and — when a
 * declaration is given — widen none of the declared facts.
 *
 * @param bridge name used in the error, e.g. `echo (echo.js, pid 42)`.
 * @throws BridgeRefusedError naming the bridge and the offending value (the range it
 *   reported, or the widened facts).
 */
export function checkInitializeResult(bridge: string, result: unknown, declaration?: ProviderDeclaration): Omit<InitializedBridge, "declaration"> {
  const parsed = InitializeResultSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(result)";
    throw new BridgeRefusedError(bridge, `initialize result does not parse: ${field}: ${issue?.message ?? "invalid"}`);
  }
  const { protocolVersion } = parsed.data;
  if (protocolVersion !== PROVIDER_BRIDGE_PROTOCOL_VERSION) {
    throw new BridgeRefusedError(bridge, `it speaks protocol version ${protocolVersion}; this runtime speaks ${PROVIDER_BRIDGE_PROTOCOL_VERSION}`);
  }
  const capabilities = resolveBridgeCapabilities(parsed.data.capabilities);
  const range = capabilities.grammarVersions;
  const grammarVersion = negotiateGrammar(ASSEMBLER_GRAMMAR_VERSIONS, range);
  if (grammarVersion === null) {
    const absent = parsed.data.capabilities.grammarVersions === undefined ? " (no grammarVersions field, which reads [2,2])" : "";
    throw new BridgeRefusedError(
      bridge,
      `it reported grammarVersions [${range[0]},${range[1]}]${absent}; the assembler speaks only grammar ${ASSEMBLER_GRAMMAR_VERSIONS[1]} ([${ASSEMBLER_GRAMMAR_VERSIONS[0]},${ASSEMBLER_GRAMMAR_VERSIONS[1]}])`,
    );
  }
  if (declaration) {
    const widened = findWidenedFacts(declaration, capabilities);
    if (widened.length > 0) {
      throw new BridgeRefusedError(bridge, `its handshake widens the declaration of provider "${declaration.id}": ${widened.join(", ")}; a handshake may only narrow it`);
    }
  }
  return { protocolVersion, capabilities, grammarVersion };
}

/**
 * Runs the handshake with a freshly spawned bridge (harness/runtime/README.md): sends
 * `initialize` ({@link runtimeInitializeParams}) and applies {@link checkInitializeResult}
 * (the grammar gate and declaration narrowing). On refusal the bridge is left running;
 * the caller decides whether to close it.
 *
 * @throws BridgeRefusedError when the bridge is refused (see {@link checkInitializeResult}).
 * @throws BridgeRpcError when the bridge answers `initialize` with an error.
 * @throws BridgeClosedError / BridgeTimeoutError when it exits or hangs first.
 */
export async function initializeBridge(client: JsonRpcClient & { providerId?: string }, options: InitializeBridgeOptions = {}): Promise<InitializedBridge> {
  const result = await client.request("initialize", runtimeInitializeParams(options.client), {
    timeoutMs: options.timeoutMs ?? INITIALIZE_TIMEOUT_MS,
  });
  const providerId = options.providerId ?? client.providerId;
  const declaration = providerId !== undefined ? options.registry?.get(providerId) : undefined;
  return { ...checkInitializeResult(client.name, result, declaration), declaration };
}
