import { describe, expect, it } from "vitest";
import { CODEX_LAUNCH_OPTION as BRIDGE_OPTION } from "../../stack/codex/launch.js";
import { CODEX_LAUNCH_OPTION, codexLaunchOptions, codexLaunchSeam, pointCodexLaunchAt } from "../../harness/families/codex/launch.js";

// harness/families/codex/launch.ts names the launch's key itself (the bridge's module builds a zod
// schema on import, and the check's path to its first spawn loads no zod): the two must agree, or
// a replay would re-point a key the Codex bridge never reads.
describe("the Codex family's launch key", () => {
  it("is the key the Codex bridge reads its launch from", () => {
    expect(CODEX_LAUNCH_OPTION).toBe(BRIDGE_OPTION);
    expect(codexLaunchSeam.launchMarker).toBe(`"${BRIDGE_OPTION}"`);
  });

  it("is the key a launch is written under and re-pointed at", () => {
    const params: Record<string, unknown> = { options: codexLaunchOptions({ command: "codex", args: ["app-server"], cwd: "/w" }) };
    expect(pointCodexLaunchAt(params, { command: "node", args: ["child.js"] })).toBe(true);
    expect(params).toEqual({ options: { providerOptions: { [BRIDGE_OPTION]: { command: "node", args: ["child.js"], env: {} } } } });
  });
});
