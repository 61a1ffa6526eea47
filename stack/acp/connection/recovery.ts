/**
 * Recovery hints of the ACP bridge (spec 30 §4, §6.6).
 *
 * One payload, two carriers: a hint about a rejected request travels in `error.data.recovery`
 * (a thrown {@link BridgeRecoveryError}); an unsolicited one would be a `provider/recovery`
 * notification. The ACP bridge only ever uses the first carrier: `authRequired` on failing
 * session setup / model list requests and `staleTurn` on a steer with no active turn. Never both
 * carriers for one event: everything here builds thrown errors, nothing here notifies.
 */
import { BRIDGE_JSON_RPC_ERRORS, BridgeJsonRpcError } from "../../protocol/errors.js";
import { BridgeRecoveryError } from "../../protocol/recovery.js";
import { AcpAgentRequestError } from "./connection.js";
import type { AcpAuthMethodInfo } from "./acp-client.js";
import { shellQuote } from "../../protocol/text.js";

/** The message and recovery text of a steer with nothing to steer (spec 30 §4). */
export const NO_ACTIVE_TURN_TO_STEER = "No active turn to steer";

const CURSOR_LOGIN_HINTS = ["agent login", "CURSOR_API_KEY", "CURSOR_AUTH_TOKEN", "auth token", "api key", "login"];

/**
 * True when an error text means the agent needs sign-in (spec 30 §4): an agent error starting
 * "Authentication required", or the Cursor sniff ("Authentication required" plus a login hint).
 */
export function isAuthRequiredText(text: string): boolean {
  if (text.trimStart().startsWith("Authentication required")) return true;
  if (!text.includes("Authentication required")) return false;
  const lower = text.toLowerCase();
  return CURSOR_LOGIN_HINTS.some((hint) => lower.includes(hint.toLowerCase()));
}

export type { AcpAuthMethodInfo };

/** Reads `authMethods` leniently (spec 30 §6.6). */
export function readAuthMethods(value: unknown): AcpAuthMethodInfo[] {
  if (!Array.isArray(value)) return [];
  const out: AcpAuthMethodInfo[] = [];
  for (const raw of value) {
    if (!raw || typeof raw !== "object") continue;
    const r = raw as Record<string, unknown>;
    const id = typeof r.id === "string" ? r.id : typeof r.methodId === "string" ? r.methodId : undefined;
    if (!id) continue;
    out.push({
      id,
      ...(typeof r.name === "string" ? { name: r.name } : {}),
      type: typeof r.type === "string" ? r.type : "agent",
      ...(Array.isArray(r.args) ? { args: r.args.filter((a): a is string => typeof a === "string") } : {}),
      ...(r.env && typeof r.env === "object" ? { env: r.env as Record<string, string> } : {}),
    });
  }
  return out;
}

/**
 * Sign-in guidance (spec 30 §6.6): a `terminal` auth method → "run `<env> <command> <args>
 * <method args>` in a terminal on this machine"; otherwise up to 4 method names ("… and N more");
 * `null` when there are none.
 */
export function describeAcpSignIn(input: { command: string; args: string[]; authMethods: AcpAuthMethodInfo[] }): string | null {
  const terminal = input.authMethods.find((m) => m.type === "terminal");
  if (terminal) {
    const envWords = Object.entries(terminal.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const words = [...envWords, input.command, ...input.args, ...(terminal.args ?? [])].map((w, i) => (i < envWords.length ? w : shellQuote(w)));
    return `Run \`${words.join(" ")}\` in a terminal on this machine to sign in`;
  }
  if (input.authMethods.length === 0) return null;
  const names = input.authMethods.map((m) => m.name ?? m.id);
  const shown = names.slice(0, 4).join(", ");
  const more = names.length > 4 ? ` and ${names.length - 4} more` : "";
  return `Sign in with one of: ${shown}${more}`;
}

/** Joins an error text and guidance: trailing punctuation of the text is trimmed before ". ". */
export function withGuidance(message: string, guidance: string | null): string {
  if (!guidance) return message;
  return `${message.replace(/[.!?:;,\s]+$/, "")}. ${guidance}`;
}

/** A -32000 rejection carrying `{kind:"authRequired", message, retryable:false}` (spec 30 §4). */
export function authRequiredError(message: string, cause?: unknown): BridgeRecoveryError {
  return new BridgeRecoveryError({
    code: BRIDGE_JSON_RPC_ERRORS.bridgeError,
    message,
    recovery: { kind: "authRequired", message, retryable: false },
    cause,
  });
}

/** The -32001 `No active turn to steer` rejection with a `staleTurn` hint (spec 30 §4). */
export function staleTurnError(): BridgeRecoveryError {
  return new BridgeRecoveryError({
    code: BRIDGE_JSON_RPC_ERRORS.noActiveTurn,
    message: NO_ACTIVE_TURN_TO_STEER,
    recovery: { kind: "staleTurn", message: NO_ACTIVE_TURN_TO_STEER, retryable: false },
  });
}

/**
 * The wrapper every session-setup / model-list request error passes (spec 30 §4): an auth failure
 * becomes {@link authRequiredError} (with guidance appended when given); a typed bridge error
 * passes through; anything else becomes a plain -32000 with its message.
 */
export function toRequestError(error: unknown, guidance: string | null = null): BridgeJsonRpcError {
  if (error instanceof BridgeJsonRpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const authByCode = error instanceof AcpAgentRequestError && error.agentMessage.startsWith("Authentication required");
  if (authByCode || isAuthRequiredText(message)) return authRequiredError(withGuidance(message, guidance), error);
  return new BridgeJsonRpcError(BRIDGE_JSON_RPC_ERRORS.bridgeError, message, undefined, { cause: error });
}
