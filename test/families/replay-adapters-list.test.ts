/**
 * The two lists of harness/families agree: each shipped family (`BRIDGE_FAMILIES`, index.ts) is
 * its replay seam (`REPLAY_ADAPTERS`, replay-adapters.ts) plus its record, conform and probe
 * hooks, in the same order, so a replay through the light list behaves as through the full one.
 */
import { describe, expect, it } from "vitest";
import { BRIDGE_FAMILIES } from "../../harness/families/index.js";
import { REPLAY_ADAPTERS, startsAgentProcess } from "../../harness/families/replay-adapters.js";

const SEAM_KEYS = ["id", "providers", "handles", "modulePath", "launchMarker", "pointAgentAt", "launchOptions", "launchEnv", "startsAgent"] as const;

describe("REPLAY_ADAPTERS and BRIDGE_FAMILIES", () => {
  it("list the same families in the same order", () => {
    expect(REPLAY_ADAPTERS.map((a) => a.id)).toEqual(BRIDGE_FAMILIES.map((f) => f.id));
  });

  it("each family carries its seam's own hooks, value for value", () => {
    for (const [i, family] of BRIDGE_FAMILIES.entries()) {
      const adapter = REPLAY_ADAPTERS[i]!;
      for (const key of SEAM_KEYS) expect([family.id, key, family[key]]).toEqual([family.id, key, adapter[key]]);
    }
  });

  it("startsAgentProcess: initialize, pi's first get_state and Claude Code's initialize control request start a process; other lines do not", () => {
    expect(startsAgentProcess('{"jsonrpc":"2.0","id":0,"method":"initialize"}', true)).toBe(true);
    expect(startsAgentProcess('{"id":"pi-1","type":"get_state"}', false)).toBe(true);
    expect(startsAgentProcess('{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}', false)).toBe(true);
    expect(startsAgentProcess('{"id":"pi-2","type":"get_state"}', false)).toBe(false);
    expect(startsAgentProcess('{"jsonrpc":"2.0","id":3,"method":"session/prompt"}', false)).toBe(false);
  });
});
