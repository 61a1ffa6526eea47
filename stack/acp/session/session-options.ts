/**
 * Per-turn session options (spec 30 §6.2 `options.sessionOptions`): each option the agent offers
 * whose requested value differs from the current one is applied before the prompt, as
 * `session/set_config_option {sessionId, configId, type?:"boolean", value}` (a config option with
 * that id) or `session/set_mode {sessionId, modeId}` (key `mode`, when modes are offered and no
 * config option is called `mode`). A failure becomes the warning "The agent did not apply <name>".
 */
import type { SetSessionConfigOptionRequest } from "@agentclientprotocol/sdk";
import { CONFIG_CALL_TIMEOUT_MS, type AcpBridgeRuntime } from "../state/runtime.js";
import { agentSessionId, emitDeltas, type AcpSession } from "../state/session.js";

export { CONFIG_CALL_TIMEOUT_MS };

/**
 * The `session/set_config_option` params for `value` (spec 30 §6.2): a boolean option sends
 * `{type:"boolean", value: <boolean>}` (a `"true"`/`"false"` string is read as one), a select
 * option sends its value id as a string.
 */
export function configValueRequest(sessionId: string, configId: string, type: string, value: unknown): SetSessionConfigOptionRequest {
  if (type === "boolean") return { sessionId, configId, type: "boolean", value: value === true || value === "true" };
  return { sessionId, configId, value: String(value) };
}

/** Applies `requested` (option id → value) to the live session; never throws (failures warn). */
export async function applySessionOptions(rt: AcpBridgeRuntime, session: AcpSession, requested: Record<string, unknown> | undefined): Promise<void> {
  if (!requested) return;
  const state = session.optionState;
  for (const [id, value] of Object.entries(requested)) {
    const config = state.config.get(id);
    let name: string;
    let call: Promise<unknown>;
    if (config) {
      if (Object.is(config.current, value) || String(config.current) === String(value)) continue;
      name = config.name;
      const params = configValueRequest(agentSessionId(session), id, config.type ?? "select", value);
      call = session.connection.request("session/set_config_option", params, { timeoutMs: CONFIG_CALL_TIMEOUT_MS }).then(() => {
        config.current = value;
      });
    } else if (id === "mode" && state.modes && typeof value === "string" && state.modes.available.some((m) => m.id === value)) {
      if (state.modes.current === value) continue;
      const modes = state.modes;
      name = modes.available.find((m) => m.id === value)?.name ?? value;
      call = session.connection.request("session/set_mode", { sessionId: agentSessionId(session), modeId: value }, { timeoutMs: CONFIG_CALL_TIMEOUT_MS }).then(() => {
        modes.current = value;
      });
    } else {
      continue;
    }
    try {
      await call;
    } catch (error) {
      emitDeltas(rt.ctx.io, session, session.translator.warning({ summary: `The agent did not apply ${name}`, details: error instanceof Error ? error.message : String(error) }));
    }
  }
}
