/**
 * The bridge as an ACP client (spec 20 §2, spec 30 §6.3): who it says it is, what it offers, and
 * the exact params of every agent method it calls, typed by the official ACP TypeScript SDK
 * (`@agentclientprotocol/sdk`, schema v1; `session/fork` from its unstable schema).
 *
 * The wire itself stays this project's own NDJSON JSON-RPC client (connection.ts) because the
 * bridge must see and record every raw line, answer agent requests exactly once and survive
 * agents that break the protocol; the SDK's connection class hides those lines. What the SDK
 * gives here is the contract: `AcpAgentConnection.request` only compiles with params the SDK's
 * types accept, so a field this bridge sends that ACP does not define is a type error.
 */
import type {
  AuthenticateRequest,
  ClientCapabilities,
  Implementation,
  InitializeRequest,
  LoadSessionRequest,
  NewSessionRequest,
  PromptRequest,
  ResumeSessionRequest,
  SetSessionConfigOptionRequest,
  SetSessionModeRequest,
} from "@agentclientprotocol/sdk";
import type { ForkSessionRequest } from "@agentclientprotocol/sdk/unstable";

/** An auth method as agents send it (read leniently: `id` or `methodId`; `type` defaults to `agent`). */
export interface AcpAuthMethodInfo {
  id: string;
  name?: string;
  type: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * Error codes only an ACP agent sends the bridge (spec 30 §6.2). The codes the bridge answers an
 * agent with are the JSON-RPC ones of `BRIDGE_JSON_RPC_ERRORS` (stack/protocol/errors.ts).
 */
export const ACP_AGENT_ERRORS = {
  /** A prompt refused because the session is still busy (with `data.reason: "session_busy"`). */
  sessionBusy: -32003,
} as const;

/** ACP protocol version the bridge speaks to agents (spec 20 §2; the SDK's `PROTOCOL_VERSION`). */
export const ACP_PROTOCOL_VERSION = 1;

/** `clientInfo` sent in `initialize` (spec 20 §2.3). */
export const ACP_CLIENT_INFO = { name: "bb", version: "1.0.0" } as const satisfies Implementation;

/**
 * Client capabilities of a session agent (spec 30 §6.3): file system, no terminal, terminal sign-in,
 * form elicitation; `_meta.parameterizedModelPicker: true` is added when the request enables the
 * picker (cursor-model-catalog.ts).
 */
export const SESSION_CLIENT_CAPABILITIES = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: false,
  auth: { terminal: true },
  elicitation: { form: {} },
} as const satisfies ClientCapabilities;

/** Client capabilities of a throwaway discovery agent (spec 30 §6.3): no fs, no elicitation. */
export const DISCOVERY_CLIENT_CAPABILITIES = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
  auth: { terminal: true },
} as const satisfies ClientCapabilities;

/** Client capabilities of a probe (spec 30 §3.2): fs read/write, no terminal. */
export const PROBE_CLIENT_CAPABILITIES = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: false,
} as const satisfies ClientCapabilities;

/**
 * `session/set_model {sessionId, modelId}`: not in the SDK's schema (ACP dropped it for config
 * options), but Cursor and opencode still take it, and spec 20 §2.3 step 7 falls back to it.
 */
export interface SetSessionModelRequest {
  sessionId: string;
  modelId: string;
}

/** Params of every agent method the bridge calls, by method name. */
export interface AcpAgentMethodParams {
  initialize: InitializeRequest;
  authenticate: AuthenticateRequest;
  "session/new": NewSessionRequest;
  "session/load": LoadSessionRequest;
  "session/resume": ResumeSessionRequest;
  "session/fork": ForkSessionRequest;
  "session/prompt": PromptRequest;
  "session/set_config_option": SetSessionConfigOptionRequest;
  "session/set_mode": SetSessionModeRequest;
  "session/set_model": SetSessionModelRequest;
}

/** An agent method the bridge calls. */
export type AcpAgentMethod = keyof AcpAgentMethodParams;

/** Params of the agent notifications the bridge sends (`session/cancel`). */
export interface AcpAgentNotificationParams {
  "session/cancel": { sessionId: string };
}

/** The auth method to use headlessly, if any (spec 20 §2.3 step 3): `xai.api_key` when `XAI_API_KEY` is set, else `cached_token`. */
export function headlessAuthMethod(methods: AcpAuthMethodInfo[], env: Record<string, string>): string | undefined {
  if (methods.some((m) => m.id === "xai.api_key") && env.XAI_API_KEY) return "xai.api_key";
  if (methods.some((m) => m.id === "cached_token")) return "cached_token";
  return undefined;
}
