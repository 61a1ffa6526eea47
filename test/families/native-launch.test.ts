import { describe, expect, it } from "vitest";
import { CODEX_LAUNCH_OPTION } from "../../stack/codex/launch-option.js";
import { PI_LAUNCH_SPEC_KEY, piLaunchSpecOf } from "../../stack/pi/launch.js";
import { claudeCodeLaunchSeam } from "../../harness/families/claude-code/launch.js";
import { codexLaunchSeam } from "../../harness/families/codex/launch.js";
import { piLaunchSeam } from "../../harness/families/pi/launch.js";

// The native families' one launch seam (harness/families/native-launch.ts): each family's launch
// is written under the key its bridge reads, its env read back for redaction, and re-pointed at
// the replay child with the recorded key order kept.
const SEAMS = [
  { seam: codexLaunchSeam, key: CODEX_LAUNCH_OPTION },
  { seam: claudeCodeLaunchSeam, key: "claudeCodeLaunch" },
  { seam: piLaunchSeam, key: PI_LAUNCH_SPEC_KEY },
];

describe("the native families' launch seam", () => {
  for (const { seam, key } of SEAMS) {
    it(`${seam.id}: written and read under ${key}, re-pointed with its key order kept and cwd dropped`, () => {
      const options = seam.launchOptions!({ command: "agent", args: ["--x"], env: { K: "v" } });
      expect(options).toEqual({ providerOptions: { [key]: { command: "agent", args: ["--x"], env: { K: "v" } } } });
      expect(seam.launchEnv!(options)).toEqual({ K: "v" });
      expect(seam.launchEnv!({ providerOptions: { other: { env: { K: "v" } } } })).toEqual({});
      expect(seam.launchMarker).toBe(`"${key}"`);
      const params: Record<string, unknown> = { options: { providerOptions: { [key]: { cwd: "/rec", env: { K: "v" }, command: "agent", extra: 1 } } } };
      expect(seam.pointAgentAt!(params, { command: "node", args: ["child.js"] })).toBe(true);
      expect(JSON.stringify(params)).toBe(`{"options":{"providerOptions":{"${key}":{"env":{},"command":"node","extra":1,"args":["child.js"]}}}}`);
      expect(seam.pointAgentAt!({ options: { providerOptions: {} } }, { command: "node", args: [] })).toBe(false);
      expect(seam.handles(seam.id)).toBe(true);
      expect(seam.handles(`acp-${seam.id}`)).toBe(false);
    });
  }

  it("pi's launch carries no cwd: its bridge's spec is strict", () => {
    const options = piLaunchSeam.launchOptions!({ command: "node", args: ["cli.js"], cwd: "/w" });
    expect(() => piLaunchSpecOf(options as never)).not.toThrow();
    expect(codexLaunchSeam.launchOptions!({ command: "codex", args: [], cwd: "/w" })).toEqual({ providerOptions: { [CODEX_LAUNCH_OPTION]: { command: "codex", args: [], cwd: "/w" } } });
  });
});
