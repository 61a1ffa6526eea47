/**
 * `model/list` discovery against an agent that never answers (spec 30 §6.4): the request fails with
 * "The agent did not answer within 30 seconds while bb asked it for its models". The bridge option
 * `modelListTimeoutMs` shortens the wait; the timeout only detects the stuck agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DISCOVERY_TIMEOUT_MESSAGE } from "../../stack/acp/models/model-list.js";
import { ACP_BRIDGE_DEFAULTS } from "../../stack/acp/bridge-runtime.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";
import { fixtureLaunchSpec, startInProcessBridge, type InProcessBridge } from "./bridge-harness.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe("model/list discovery timeout", () => {
  it("defaults to 30 s, the figure the message names", () => {
    expect(ACP_BRIDGE_DEFAULTS.modelListTimeoutMs).toBe(30_000);
  });

  it("answers the spec 30 §6.4 timeout message when the agent never answers initialize", async () => {
    // The timeout only detects the stuck agent; it runs on a fake clock the test moves past it once
    // the bridge is waiting for initialize.
    const clock = createFakeScheduler();
    bridge = startInProcessBridge({ scheduler: clock });
    const { spec } = fixtureLaunchSpec(bridge.dir, { initialize: "never" });
    const answered = bridge.request("model/list", { providerOptions: { acpLaunchSpec: spec }, cwd: bridge.dir });
    await clock.whenPending((t) => t.delayMs === ACP_BRIDGE_DEFAULTS.modelListTimeoutMs);
    clock.advance(ACP_BRIDGE_DEFAULTS.modelListTimeoutMs);
    const response = await answered;
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({ code: -32000, message: DISCOVERY_TIMEOUT_MESSAGE });
    expect(DISCOVERY_TIMEOUT_MESSAGE).toBe("The agent did not answer within 30 seconds while bb asked it for its models");
  });
});
