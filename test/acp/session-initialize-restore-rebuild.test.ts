/**
 * Session construction, restore, rebuild and recovery as spec 30 §6.3 and §4 changed them,
 * beyond bridge-turns.test.ts / bridge-faults.test.ts: the capabilities the bridge offers, the
 * protocol check, restore fallbacks, auth on restore, headless sign-in, `session/replaced` with
 * `contextLost`, instructions only for a fresh `session/new`, failed rebuilds, and the timeouts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, chunk } from "./bridge-harness.js";
import { ACP_BRIDGE_DEFAULTS } from "../../stack/acp/bridge-runtime.js";
import { CONFIG_CALL_TIMEOUT_MS } from "../../stack/acp/session/session-options.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

const crashThenRecover = [
  { when: "crash", steps: [chunk("about to go"), { exit: 9 }] },
  { when: "recover", reuse: true, steps: [chunk("back"), { end: "end_turn" }] },
];

/** Starts a thread, crashes its agent mid-turn and waits for the session error. */
async function startAndCrash(b: InProcessBridge, threadId: string, spec: Record<string, unknown>): Promise<void> {
  const start = await b.request("thread/start", threadStartParams(threadId, spec, b.dir));
  expect(start.error).toBeUndefined();
  await b.request("turn/start", turnStartParams(threadId, "crash", "creq_crash00000"));
  await b.waitFor((m) => m.method === "error" && m.params.threadId === threadId);
}

describe("initialize (spec 30 §6.3)", () => {
  it("offers fs, no terminal, terminal sign-in and form elicitation to a session agent", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {});
    await bridge.request("thread/start", threadStartParams("thr_caps", spec, bridge.dir));
    const init = agentReceived(log).find((m) => m.method === "initialize")!;
    expect(init.params.clientCapabilities).toEqual({ fs: { readTextFile: true, writeTextFile: true }, terminal: false, auth: { terminal: true }, elicitation: { form: {} } });
  });

  it("an agent speaking another ACP protocol version fails the session with a clear -32000", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { protocolVersion: 2 });
    const start = await bridge.request("thread/start", threadStartParams("thr_pv", spec, bridge.dir));
    expect(start.error.code).toBe(-32000);
    expect(start.error.message).toMatch(/speaks ACP protocol version 2; the bridge needs 1$/);
    expect(bridge.out.some((m) => m.method === "thread/identity")).toBe(false);
  });

  it("signs in headlessly: cached_token before session/new with _meta.headless; xai.api_key when XAI_API_KEY is in the agent's env", async () => {
    bridge = startInProcessBridge();
    const cached = fixtureLaunchSpec(
      bridge.dir,
      {
        authMethods: [
          { id: "xai.api_key", name: "Key" },
          { id: "cached_token", name: "Cached" },
        ],
      },
      "cached",
    );
    await bridge.request("thread/start", threadStartParams("thr_auth1", cached.spec, bridge.dir));
    const first = agentReceived(cached.log);
    expect(first.map((m) => m.method)).toEqual(["initialize", "authenticate", "session/new"]);
    expect(first[1]!.params).toEqual({ methodId: "cached_token", _meta: { headless: true } });

    const keyed = fixtureLaunchSpec(
      bridge.dir,
      {
        authMethods: [
          { id: "xai.api_key", name: "Key" },
          { id: "cached_token", name: "Cached" },
        ],
      },
      "keyed",
    );
    const spec = { ...keyed.spec, env: { ...(keyed.spec.env as Record<string, string>), XAI_API_KEY: "fixture-key" } };
    await bridge.request("thread/start", threadStartParams("thr_auth2", spec, bridge.dir));
    expect(agentReceived(keyed.log).find((m) => m.method === "authenticate")!.params.methodId).toBe("xai.api_key");
  });
});

describe("restore (spec 30 §6.3, §4)", () => {
  it("an agent that can neither load nor resume: a fresh session with the warning, sessionRestorable false, no restore call", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { loadSession: false, resumeSession: false });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_nr", spec, bridge.dir), providerThreadId: "old-1" });
    expect(resumed.result).toEqual({ providerThreadId: "fixture-session-1", sessionRestorable: false });
    expect(agentReceived(log).map((m) => m.method)).toEqual(["initialize", "session/new"]);
    expect(bridge.deltas("thr_nr").find((d) => d.kind === "provider.warning")?.summary).toMatch(/could not restore the previous session; continuing in a fresh session without in-agent history\.$/);
    expect(bridge.out.find((m) => m.method === "thread/identity")!.params.sessionRestorable).toBe(false);
  });

  it("an auth failure of session/load is rethrown with authRequired (no fresh-session fallback)", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { load: { replay: [], error: "Authentication required" }, authMethods: [{ id: "login", name: "Fixture login" }] });
    const resumed = await bridge.request("thread/resume", { ...threadStartParams("thr_ar", spec, bridge.dir), providerThreadId: "old-2" });
    expect(resumed.error.code).toBe(-32000);
    expect(resumed.error.data).toEqual({ recovery: { kind: "authRequired", message: resumed.error.message, retryable: false } });
    expect(resumed.error.message).toMatch(/^Authentication required/);
    expect(agentReceived(log).map((m) => m.method)).not.toContain("session/new");
    expect(bridge.out.some((m) => m.method === "thread/identity" || m.method === "provider/recovery")).toBe(false);
  });
});

describe("rebuild (spec 30 §6.3)", () => {
  it("same id restored: contextLost false, and the first prompt after the rebuild carries no instructions", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: crashThenRecover });
    await startAndCrash(bridge, "thr_rb1", spec);
    const from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_rb1", "recover", "creq_rb10000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_rb1", from);
    expect(bridge.out.slice(from).find((m) => m.method === "session/replaced")!.params.contextLost).toBe(false);
    const prompts = agentReceived(log).filter((m) => m.method === "session/prompt");
    expect(prompts[0]!.params.prompt[0].text).toMatch(/^<system_instructions>/);
    expect(prompts.at(-1)!.params.prompt).toEqual([{ type: "text", text: "recover" }]);
  });

  it("restore refused: a fresh session with a new id → session/replaced contextLost true, new identity, instructions again (fresh session/new)", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { sessionIds: "uuid", load: { replay: [], error: "session not found" }, prompts: crashThenRecover });
    await startAndCrash(bridge, "thr_rb2", spec);
    const firstId = bridge.out.find((m) => m.method === "thread/identity")!.params.providerThreadId;
    const from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_rb2", "recover", "creq_rb20000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_rb2", from);
    const replaced = bridge.out.slice(from).find((m) => m.method === "session/replaced")!.params;
    const identity = bridge.out.slice(from).find((m) => m.method === "thread/identity")!.params;
    expect(replaced.providerThreadId).not.toBe(firstId);
    expect(replaced).toEqual({ threadId: "thr_rb2", providerThreadId: identity.providerThreadId, reason: "The agent exited unexpectedly", contextLost: true });
    const last = agentReceived(log)
      .filter((m) => m.method === "session/prompt")
      .at(-1)!;
    expect(last.params.prompt[0].text).toMatch(/^<system_instructions>/);
    expect(bridge.out.some((m) => m.method === "provider/recovery")).toBe(false);
  });

  it("a rebuild uses the turn's launch spec; when it fails the turn/start fails (-32000) and no turn opens", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { prompts: crashThenRecover });
    await startAndCrash(bridge, "thr_rb3", spec);
    const from = bridge.out.length;
    const missing = { displayName: "Gone", command: "definitely-not-an-acp-agent-spec-audit", args: [], env: {} };
    const turn = await bridge.request("turn/start", turnStartParams("thr_rb3", "recover", "creq_rb30000000", { providerOptions: { acpLaunchSpec: missing } }));
    expect(turn.error.code).toBe(-32000);
    expect(turn.error.message).toMatch(/^Failed to launch ACP agent "definitely-not-an-acp-agent-spec-audit"/);
    expect(bridge.out.slice(from).some((m) => m.method === "session/replaced")).toBe(false);
    // Only the crashed turn ever opened.
    expect(bridge.deltas("thr_rb3").filter((d) => d.kind === "turn.open")).toHaveLength(1);
  });

  it("a rebuild refused for auth fails the turn/start with authRequired (spec 30 §4: a turn/start whose rebuild fails)", async () => {
    bridge = startInProcessBridge();
    const { spec } = fixtureLaunchSpec(bridge.dir, { load: { replay: [], error: "Authentication required" }, prompts: crashThenRecover });
    await startAndCrash(bridge, "thr_rb4", spec);
    const turn = await bridge.request("turn/start", turnStartParams("thr_rb4", "recover", "creq_rb40000000"));
    expect(turn.error.code).toBe(-32000);
    expect(turn.error.data?.recovery).toMatchObject({ kind: "authRequired", retryable: false });
    expect(bridge.out.some((m) => m.method === "provider/recovery")).toBe(false);
  });
});

describe("fork (spec 30 §6.3)", () => {
  it("the fork result's config options seed the session's option state: an unchanged value sends nothing, a changed one is set", async () => {
    bridge = startInProcessBridge();
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      fork: true,
      sessionResult: { configOptions: [{ id: "fast", name: "Fast", type: "boolean", currentValue: true }] },
      prompts: [{ reuse: true, steps: [chunk("ok"), { end: "end_turn" }] }],
    });
    const forked = await bridge.request("thread/fork", { ...threadStartParams("thr_fkc", spec, bridge.dir), sourceProviderThreadId: "src-1" });
    expect(forked.error).toBeUndefined();
    const sets = () => agentReceived(log).filter((m) => m.method === "session/set_config_option");
    let from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_fkc", "one", "creq_fkc0000000", { sessionOptions: { fast: true } }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_fkc", from);
    expect(sets()).toEqual([]);
    from = bridge.out.length;
    await bridge.request("turn/start", turnStartParams("thr_fkc", "two", "creq_fkc0000001", { sessionOptions: { fast: false } }));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_fkc", from);
    expect(sets().map((m) => m.params)).toEqual([{ sessionId: forked.result.providerThreadId, configId: "fast", type: "boolean", value: false }]);
  });
});

describe("timeouts (spec 30 §6.3)", () => {
  it("the default timeouts are the figures spec 30 §6.3 names (a constant check: initialize 60 s, authenticate 120 s, session setup 300 s, config calls 60 s)", () => {
    expect(ACP_BRIDGE_DEFAULTS.initializeTimeoutMs).toBe(60_000);
    expect(ACP_BRIDGE_DEFAULTS.authenticateTimeoutMs).toBe(120_000);
    expect(ACP_BRIDGE_DEFAULTS.sessionSetupTimeoutMs).toBe(300_000);
    expect(CONFIG_CALL_TIMEOUT_MS).toBe(60_000);
  });
});
