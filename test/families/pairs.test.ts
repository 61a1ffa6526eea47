import { describe, expect, it } from "vitest";
import { customAgentsByFamily } from "../../harness/families/custom-agents-file.js";
import { customAgentPairs, findPair, PROVIDER_PAIRS, pairName } from "../../harness/families/pairs.js";

describe("pairs of providers that drive the same CLI (issue 39)", () => {
  it("the four shipped pairs, found in either order", () => {
    expect(PROVIDER_PAIRS.map(pairName)).toEqual(["codex/acp-codex", "claude-code/acp-claude", "claude-code/acp-claude-zed", "pi/acp-pi"]);
    expect(findPair("acp-pi", "pi")?.native).toBe("pi");
    expect(findPair("codex", "pi")).toBeUndefined();
  });

  it("a custom agent names its native counterpart; no family reader sees the field", () => {
    const text = JSON.stringify([
      { id: "my-codex", displayName: "Mine", command: "codex-acp", counterpart: "codex" },
      { id: "other", displayName: "O", command: "o" },
    ]);
    expect(customAgentPairs(text, "agents.json")).toEqual([{ native: "codex", adapter: "my-codex", cli: "my-codex (custom agent)" }]);
    const forAcp = JSON.parse(customAgentsByFamily(text, "agents.json", ["acp"]).get("acp")!) as Array<Record<string, unknown>>;
    expect(forAcp.map((entry) => "counterpart" in entry)).toEqual([false, false]);
    expect(() => customAgentPairs(JSON.stringify([{ id: "x", counterpart: "" }]), "agents.json")).toThrow(/entry 0: field `counterpart`/);
  });
});
