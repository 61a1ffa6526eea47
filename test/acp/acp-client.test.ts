/**
 * The bridge as an ACP client (stack/acp/connection/acp-client.ts): its facts agree with the official ACP
 * SDK, and the params it builds for typed calls are the SDK's shapes.
 */
import { PROTOCOL_VERSION, AGENT_METHODS } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { ACP_PROTOCOL_VERSION, headlessAuthMethod, type AcpAgentMethod } from "../../stack/acp/connection/acp-client.js";
import { configValueRequest } from "../../stack/acp/session/session-options.js";

describe("acp-client", () => {
  it("speaks the SDK's protocol version and calls only methods ACP defines, plus session/set_model and the unstable session/fork", () => {
    expect(ACP_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
    const called: AcpAgentMethod[] = [
      "initialize",
      "authenticate",
      "session/new",
      "session/load",
      "session/resume",
      "session/fork",
      "session/prompt",
      "session/set_config_option",
      "session/set_mode",
      "session/set_model",
    ];
    const defined = new Set<string>(Object.values(AGENT_METHODS));
    expect(called.filter((m) => !defined.has(m))).toEqual(["session/fork", "session/set_model"]);
  });

  it("sends a boolean config option as {type: boolean, value: boolean} and a select option's value as a string", () => {
    expect(configValueRequest("s1", "fast", "boolean", "true")).toEqual({ sessionId: "s1", configId: "fast", type: "boolean", value: true });
    expect(configValueRequest("s1", "fast", "boolean", false)).toEqual({ sessionId: "s1", configId: "fast", type: "boolean", value: false });
    expect(configValueRequest("s1", "mode", "select", "plan")).toEqual({ sessionId: "s1", configId: "mode", value: "plan" });
  });

  it("authenticates headlessly with xai.api_key only when XAI_API_KEY is set, else cached_token", () => {
    const methods = [
      { id: "xai.api_key", name: "xai.api_key", type: "agent" },
      { id: "cached_token", name: "cached_token", type: "agent" },
    ];
    expect(headlessAuthMethod(methods, { XAI_API_KEY: "k" })).toBe("xai.api_key");
    expect(headlessAuthMethod(methods, {})).toBe("cached_token");
    expect(headlessAuthMethod([{ id: "cursor_login", name: "cursor_login", type: "agent" }], {})).toBeUndefined();
  });
});
