import { describe, expect, it } from "vitest";
import { CODEX_LAUNCH_OPTION as BRIDGE_OPTION } from "../../stack/codex/launch-option.js";
import { codexLaunchOptions, codexLaunchSeam } from "../../harness/families/codex/launch.js";

// The Codex family writes, finds and re-points the launch under the key the Codex bridge reads it
// from (stack/codex/launch-option.ts: zod-free, so the check's path to its first spawn can import it).
describe("the Codex family's launch key", () => {
  it("is the key the Codex bridge reads its launch from", () => {
    expect(codexLaunchSeam.launchMarker).toBe(`"${BRIDGE_OPTION}"`);
  });

  it("is the key a launch is written under and re-pointed at", () => {
    const params: Record<string, unknown> = { options: codexLaunchOptions({ command: "codex", args: ["app-server"], cwd: "/w" }) };
    expect(codexLaunchSeam.pointAgentAt!(params, { command: "node", args: ["child.js"] })).toBe(true);
    expect(params).toEqual({ options: { providerOptions: { [BRIDGE_OPTION]: { command: "node", args: ["child.js"], env: {} } } } });
  });
});
