/**
 * `model/list` ACP-native discovery failures (spec 30 §6.4, §6.6): a failing or stuck agent fails
 * the request instead of answering the synthetic model (the stuck agent: model-list-timeout.test.ts); auth failures carry `authRequired` and
 * sign-in guidance; only an agent that advertises no models still yields the synthetic entry.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const list = (b: InProcessBridge, spec: Record<string, unknown>) => b.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: b.dir });

describe("model/list discovery failures", () => {
  it("fails with the agent's error when initialize is refused, instead of the synthetic model", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "error" });
    const response = await list(bridge, spec);
    expect(response.result).toBeUndefined();
    expect(response.error.code).toBe(-32000);
    expect(response.error.message).toContain("fixture agent refuses to initialize");
    expect(response.error.data?.recovery).toBeUndefined();
  });

  it("fails when the agent exits before answering", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "exit" });
    const response = await list(bridge, spec);
    expect(response.result).toBeUndefined();
    expect(response.error.code).toBe(-32000);
  });

  it("rethrows an auth failure of session/new with authRequired and the advertised sign-in methods", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      authMethods: [
        { id: "browser", name: "Browser login" },
        { methodId: "key", name: "API key" },
      ],
      newSessionError: "Authentication required.",
    });
    const response = await list(bridge, spec);
    const message = "Authentication required. Sign in with one of: Browser login, API key";
    expect(response.error).toEqual({ code: -32000, message, data: { recovery: { kind: "authRequired", message, retryable: false } } });
  });

  it("tells the user the terminal command when the agent offers a terminal sign-in", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {
      authMethods: [{ id: "term", name: "Terminal", type: "terminal", args: ["login"], env: { FIXTURE_MODE: "1" } }],
      newSessionError: "Authentication required",
    });
    const response = await list(bridge, spec);
    const command = ["FIXTURE_MODE=1", spec.command as string, ...(spec.args as string[]), "login"].join(" ");
    expect(response.error.message).toBe(`Authentication required. Run \`${command}\` in a terminal on this machine to sign in`);
    expect(response.error.data.recovery.kind).toBe("authRequired");
  });

  it("still answers the synthetic model when the agent advertises no models", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, {});
    const response = await list(bridge, spec);
    expect(response.result.models.map((m: any) => m.id)).toEqual(["acp-default"]);
    expect(response.result.selectedOnlyModels).toEqual([]);
  });
});
