/**
 * The pi fixture agent as the default agent of `parity conform --bridge pi`: its script answers an
 * ordinary prompt (thinking and one word), a zero-work prompt (no model output at all) and a
 * prompt that holds its turn open until aborted (spec 10 §7 `session`).
 */
import type { FixtureScriptInput } from "./script.js";

/** The three conformance prompts. */
export const PI_CONFORMANCE_PROMPTS = {
  ordinary: "Reply with the single word ready.",
  zeroWork: "/fixture zero-work",
  hold: "/fixture hold until stopped",
} as const;

/** The script of the conformance agent. */
export function piConformanceScript(): FixtureScriptInput {
  return {
    prompts: [
      { when: PI_CONFORMANCE_PROMPTS.zeroWork, calls: [] },
      { when: PI_CONFORMANCE_PROMPTS.hold, calls: [{ text: "holding", hold: true }] },
      { calls: [{ thinking: "The user wants one word.", text: "ready" }] },
    ],
  };
}

/** `providerOptions.piLaunchSpec` running the fixture at `fixtureMainPath` with `script` inline, under `nodePath`. */
export function piFixtureLaunchSpec(fixtureMainPath: string, script: FixtureScriptInput = piConformanceScript(), nodePath = process.execPath) {
  return { command: nodePath, args: [fixtureMainPath, "--script-json", JSON.stringify(script)], env: {} };
}

/** The conformance fixture (prompts as runtime input, the launch spec in the options) for a thread in `cwd`. */
export function piConformanceSession(cwd: string, fixtureMainPath: string) {
  const input = (text: string) => [{ type: "text", text, mentions: [] as unknown[] }];
  return {
    cwd,
    input: input(PI_CONFORMANCE_PROMPTS.ordinary),
    zeroWorkPromptInput: input(PI_CONFORMANCE_PROMPTS.zeroWork),
    holdPromptInput: input(PI_CONFORMANCE_PROMPTS.hold),
    options: { providerOptions: { piLaunchSpec: piFixtureLaunchSpec(fixtureMainPath) } },
  };
}
