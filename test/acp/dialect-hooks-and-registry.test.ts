/**
 * The dialect interface contract (spec 30 §1.1) for a dialect this project writes itself, driven
 * through the translator and through the bridge, and the recovery / sign-in text rules
 * (spec 30 §4, §6.6) as units.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge, type AnyRecord } from "./bridge-harness.js";
import { createAcpDialectRegistry, cursorAcpDialect, defaultAcpDialectRegistry, genericAcpDialect, grokAcpDialect, registerAcpDialect, selectAcpDialect } from "../../stack/acp/dialects/index.js";
import type { AcpDialect, AcpToolCallEvent } from "../../stack/acp/dialects/index.js";
import { createAcpTranslator } from "../../stack/acp/translate/index.js";
import { AcpAgentRequestError } from "../../stack/acp/connection/connection.js";
import { describeAcpSignIn, isAuthRequiredText, readAuthMethods, toRequestError, withGuidance } from "../../stack/acp/connection/recovery.js";

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** The same project-written tool lines, fed to a translator on `dialect`; returns every delta. */
function drive(dialect: AcpDialect, injectedTools: { name: string }[] = []): AnyRecord[] {
  const t = createAcpTranslator({ threadId: "thr_hooks", dialect, now: () => 0, injectedTools });
  const out: AnyRecord[] = [...t.turnStarted()];
  const lines: AnyRecord[] = [
    { sessionUpdate: "tool_call", toolCallId: "c1", kind: "execute", title: "make", status: "pending", rawInput: { command: "make" } },
    { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", rawOutput: { exitCode: 2, stdout: "out", stderr: "err" } },
    { sessionUpdate: "tool_call", toolCallId: "r1", kind: "read", title: "Read a", status: "pending", locations: [{ path: "/w/a" }] },
    { sessionUpdate: "tool_call_update", toolCallId: "r1", status: "completed", rawOutput: { files: 1 } },
    { sessionUpdate: "tool_call", toolCallId: "t1", kind: "other", title: "Task", status: "pending", rawInput: { _toolName: "task" } },
    { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed" },
  ];
  for (const line of lines) out.push(...t.update(line));
  out.push(...t.turnCompleted("end_turn"));
  return out;
}

describe("hooks are optional (spec 30 §1.1)", () => {
  it("a dialect whose every hook answers undefined translates exactly like the generic one", () => {
    const silent: AcpDialect = {
      id: "silent",
      toolIdentity: () => undefined,
      classifyToolCall: () => undefined,
      commandResult: () => undefined,
      normalizeCommandEvent: () => undefined,
      handleClientRequest: () => undefined,
    };
    expect(drive(silent)).toEqual(drive(genericAcpDialect));
    expect(drive({ id: "bare" })).toEqual(drive(genericAcpDialect));
  });

  it("each hook is asked where the spec says: identity before classification (unset fields only), classify first, normalize then commandResult at command close", () => {
    const asked: string[] = [];
    const custom: AcpDialect = {
      id: "custom-hooks",
      toolIdentity: (event) => (asked.push(`identity:${event.toolCallId}`), event.toolCallId === "r1" ? { kind: "execute", name: "shell" } : undefined),
      classifyToolCall: (event) => (asked.push(`classify:${event.toolCallId}`), undefined),
      normalizeCommandEvent: (event: AcpToolCallEvent) => (asked.push(`normalize:${event.toolCallId}`), { ...event, rawOutput: { exitCode: 5, stdout: "normalized" } }),
      commandResult: (event) => (asked.push(`result:${event.toolCallId}:${JSON.stringify(event.rawOutput)}`), { exitCode: 6, output: "from the hook" }),
    };
    const deltas = drive(custom);
    // The protocol kind `read` wins over the identity's `execute`.
    expect(deltas.find((d) => d.kind === "item.open" && d.key.providerItemId === "r1")!.item).toEqual({ type: "fileRead", path: "/w/a" });
    const close = deltas.find((d) => d.kind === "item.close" && d.key.providerItemId === "c1");
    expect(close).toMatchObject({ exitCode: 6, resultText: "from the hook" });
    // Without commandResult, the shared reader reads the normalized rawOutput.
    const normalizeOnly = drive({ id: "normalize-only", normalizeCommandEvent: custom.normalizeCommandEvent! });
    expect(normalizeOnly.find((d) => d.kind === "item.close" && d.key.providerItemId === "c1")).toMatchObject({ exitCode: 5, resultText: "normalized" });
    const forC1 = asked.filter((entry) => entry.includes("c1"));
    expect(forC1.indexOf("identity:c1")).toBeLessThan(forC1.indexOf("classify:c1"));
    expect(forC1.indexOf("normalize:c1")).toBeLessThan(forC1.findIndex((e) => e.startsWith("result:c1:")));
    expect(forC1.find((e) => e.startsWith("result:c1:"))).toBe(`result:c1:${JSON.stringify({ exitCode: 5, stdout: "normalized" })}`);
  });

  it("a call bound to a bb-injected tool is not asked to classifyToolCall (cursor's Task shape stays the injected tool)", () => {
    const t = createAcpTranslator({ threadId: "thr_inj", dialect: cursorAcpDialect, now: () => 0, injectedTools: [{ name: "spawn_helper" }] });
    const open = t.update({ sessionUpdate: "tool_call", toolCallId: "m1", kind: "other", title: "MCP: spawn_helper", status: "pending", rawInput: { _toolName: "task" } }).at(-1) as AnyRecord;
    expect(open.item).toEqual({ type: "tool", tool: "spawn_helper", server: "bb" });
  });

  it("classifyToolCall also shapes approval payloads: a cursor Task permission carries the sub-agent presentation", () => {
    const t = createAcpTranslator({ threadId: "thr_ap", dialect: cursorAcpDialect, now: () => 0 });
    const subject = t.permissionSubject({ toolCallId: "task9", kind: "other", title: "Run a helper", rawInput: { _toolName: "task" } });
    expect(subject).toMatchObject({ kind: "tool_use", itemId: "task9", presentation: { label: { pending: "Running subagent", completed: "Subagent finished" }, title: "Run a helper" } });
    const plain = createAcpTranslator({ threadId: "thr_ap2", dialect: genericAcpDialect, now: () => 0 }).permissionSubject({
      toolCallId: "task9",
      kind: "other",
      title: "Run a helper",
      rawInput: { _toolName: "task" },
    });
    expect((plain as AnyRecord).presentation.label.pending).not.toBe("Running subagent");
    // grok's identity also reaches the approval: the tool slot is the vendor name.
    const grok = createAcpTranslator({ threadId: "thr_ap3", dialect: grokAcpDialect, now: () => 0 }).permissionSubject({
      toolCallId: "g",
      title: "Deploy",
      _meta: { "x.ai/tool": { name: "deploy_app" } },
    });
    expect(grok).toMatchObject({ kind: "tool_use", tool: "deploy_app" });
  });
});

describe("the public registry (spec 30 §1.2)", () => {
  it("regression: registerAcpDialect with an id registered before replaces it (it used to throw E_ACP_DIALECT_DUPLICATE)", () => {
    const id = `spec-audit-replace-${process.pid}`;
    const first: AcpDialect = { id };
    const second: AcpDialect = { id };
    registerAcpDialect(first);
    expect(() => registerAcpDialect(second)).not.toThrow();
    expect(defaultAcpDialectRegistry.get(id)).toBe(second);
    expect(selectAcpDialect({ explicit: id, command: "grok" })).toBe(second);
    expect(() => registerAcpDialect({ id }, { replace: false })).toThrow(/already registered/);
    expect(() => registerAcpDialect({ id: "cursor" })).toThrow('ACP dialect id "cursor" is reserved by a built-in dialect.');
  });
});

describe("vendor client requests of a registered dialect, through the bridge (spec 30 §1.1, §1.2)", () => {
  it("its clientRequestMethods are accepted; its answer goes back; undefined → -32601; a report re-opens an open delegation", async () => {
    const registry = createAcpDialectRegistry();
    registry.register({
      id: "vendor-x",
      clientRequestMethods: ["vendor/ping", "vendor/none", "vendor/report"],
      classifyToolCall: (event) =>
        event.title === "Helper"
          ? {
              item: { type: "delegation", childRef: event.toolCallId, label: "Helper", background: false },
              presentation: { label: { pending: "Helping", completed: "Helped" }, icon: { glyph: "UserRound" }, title: "Helper" },
            }
          : undefined,
      handleClientRequest: (method, params) => {
        if (method === "vendor/ping") return { result: { pong: params } };
        if (method === "vendor/report") return { result: { noted: true }, delegation: { toolCallId: "h1", childRef: "child-x", label: "Helper (reported)", detail: "via vendor" } };
        return undefined;
      },
    });
    bridge = startInProcessBridge({ dialects: registry });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, {
      prompts: [
        {
          steps: [
            { update: { sessionUpdate: "tool_call", toolCallId: "h1", kind: "other", title: "Helper", status: "pending" } },
            { request: { method: "vendor/ping", params: { n: 1 } } },
            { request: { method: "vendor/none", params: {} } },
            { request: { method: "vendor/report", params: {} } },
            { request: { method: "vendor/unlisted", params: {} } },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "h1", status: "completed" } },
            { end: "end_turn" },
          ],
        },
      ],
    });
    await bridge.request("thread/start", threadStartParams("thr_vx", spec, bridge.dir, { providerOptions: { acpLaunchSpec: spec, acpDialect: "vendor-x" } }));
    await bridge.request("turn/start", turnStartParams("thr_vx", "go", "creq_vx00000000"));
    await bridge.waitFor((m) => isBoundary(m) && m.params.threadId === "thr_vx");
    const replies = agentReceived(log).filter((m) => m.method === undefined);
    expect(replies.map((m) => [m.id, m.result ?? m.error])).toEqual([
      [0, { pong: { n: 1 } }],
      [1, { code: -32601, message: 'Unsupported ACP client method "vendor/none"' }],
      [2, { noted: true }],
      [3, { code: -32601, message: 'Unsupported ACP client method "vendor/unlisted"' }],
    ]);
    const opens = bridge.deltas("thr_vx").filter((d) => d.kind === "item.open" && d.key.providerItemId === "h1");
    expect(opens.map((d) => [d.item.childRef, d.item.label, d.presentation.detail])).toEqual([
      ["h1", "Helper", undefined],
      ["child-x", "Helper (reported)", "via vendor"],
    ]);
  });
});

describe("recovery text rules (spec 30 §4, §6.6)", () => {
  it("sign-in guidance: a terminal method is a shell-quoted command with its env first; else up to 4 names and a count; none → null", () => {
    expect(describeAcpSignIn({ command: "my agent", args: ["acp"], authMethods: [{ id: "t", type: "terminal", args: ["login", "--device"], env: { MODE: "a b" } }] })).toBe(
      "Run `MODE='a b' 'my agent' acp login --device` in a terminal on this machine to sign in",
    );
    const five = ["one", "two", "three", "four", "five"].map((id) => ({ id, type: "agent" }));
    expect(describeAcpSignIn({ command: "x", args: [], authMethods: five })).toBe("Sign in with one of: one, two, three, four and 1 more");
    expect(describeAcpSignIn({ command: "x", args: [], authMethods: [{ id: "k", name: "API key", type: "env_var" }] })).toBe("Sign in with one of: API key");
    expect(describeAcpSignIn({ command: "x", args: [], authMethods: [] })).toBeNull();
  });

  it("auth methods are read leniently: id or methodId, type defaults to agent, junk skipped", () => {
    expect(readAuthMethods([{ methodId: "m" }, { id: "i", type: "terminal", args: ["a", 3] }, null, { name: "no id" }, "x"])).toEqual([
      { id: "m", type: "agent" },
      { id: "i", type: "terminal", args: ["a"] },
    ]);
    expect(readAuthMethods("nope")).toEqual([]);
  });

  it("guidance follows the error text after its trailing punctuation is trimmed", () => {
    expect(withGuidance("Authentication required.", "Sign in with one of: A")).toBe("Authentication required. Sign in with one of: A");
    expect(withGuidance("Authentication required:  ", "G")).toBe("Authentication required. G");
    expect(withGuidance("Plain", null)).toBe("Plain");
  });

  it("authRequired: an agent reply starting 'Authentication required', or the Cursor login sniff; other errors are plain -32000", () => {
    expect(isAuthRequiredText("Authentication required")).toBe(true);
    expect(isAuthRequiredText("Error: Authentication required. Please run `agent login` first")).toBe(true);
    expect(isAuthRequiredText("Error: Authentication required for this model")).toBe(false);
    const agentError = new AcpAgentRequestError("session/new", -32000, "Authentication required", undefined);
    const wrapped = toRequestError(agentError, "Sign in with one of: A");
    expect(wrapped.code).toBe(-32000);
    expect(wrapped.data).toEqual({ recovery: { kind: "authRequired", message: wrapped.message, retryable: false } });
    expect(wrapped.message).toBe("Authentication required. Sign in with one of: A");
    const other = toRequestError(new Error("disk full"));
    expect(other.code).toBe(-32000);
    expect(other.data).toBeUndefined();
  });
});
