import { describe, expect, it } from "vitest";
import { announceSession, inputText, moveSessionPhase, nativeCapabilities, SessionTable, type SessionPhase } from "../../stack/bridge-kit/session-bridge.js";
import { BRIDGE_JSON_RPC_ERRORS } from "../../stack/protocol/errors.js";

describe("session bridge", () => {
  it("native capabilities keep the key order every native bridge sent (a replay matches the initialize answer byte for byte)", () => {
    const caps = nativeCapabilities({ fork: "none", approvalEnforcedBy: "runtime", steerMode: "queue" });
    expect(JSON.stringify(caps)).toBe(
      '{"grammarVersions":[3,3],"sessionRestore":true,"threadArchive":false,"threadRename":false,"threadGoalClear":false,"fork":"none","approvalEnforcedBy":"runtime","steerMode":"queue"}',
    );
  });

  it("announces identity, then a session reset, and returns the session result", () => {
    const sent: Array<[string, unknown]> = [];
    const result = announceSession({ notify: (method: string, params: unknown) => sent.push([method, params]) } as never, "t1", "p1");
    expect(sent).toEqual([
      ["thread/identity", { threadId: "t1", providerThreadId: "p1", sessionRestorable: true }],
      ["thread/delta", { threadId: "t1", deltas: [{ kind: "session.reset" }] }],
    ]);
    expect(result).toEqual({ providerThreadId: "p1", sessionRestorable: true });
  });

  it("the session table names the agent in its −32000 error and gives sessions back in opening order", () => {
    const table = new SessionTable<string>("pi");
    table.set("a", "A");
    table.set("b", "B");
    expect(table.sessionOf("a")).toBe("A");
    expect(() => table.sessionOf("c")).toThrow(expect.objectContaining({ code: BRIDGE_JSON_RPC_ERRORS.bridgeError, message: 'No active pi session for thread "c"' }));
    expect(table.take("a")).toBe("A");
    expect(table.get("a")).toBeUndefined();
    expect(table.takeAll()).toEqual(["B"]);
    expect(table.entries()).toEqual([]);
  });

  it("a session phase only moves forward", () => {
    const session: { phase: SessionPhase } = { phase: "starting" };
    expect(moveSessionPhase(session, "open")).toBe(true);
    expect(moveSessionPhase(session, "starting")).toBe(false);
    expect(moveSessionPhase(session, "stopping")).toBe(true);
    expect(moveSessionPhase(session, "open")).toBe(false);
    expect(moveSessionPhase(session, "exited")).toBe(true);
    expect(session.phase).toBe("exited");
  });

  it("a turn's input text is its text items joined by newlines", () => {
    expect(inputText([{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }])).toBe("a\nb");
  });
});
