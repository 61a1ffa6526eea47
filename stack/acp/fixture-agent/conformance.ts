/**
 * The fixture agent as the default agent of `parity conform --bridge acp`: a self-contained
 * launch spec (the script rides in argv) plus the conformance prompts it answers — an ordinary
 * prompt, a zero-work prompt and a prompt that holds its turn open until stopped (spec 10 §7).
 */
import type { FixtureScriptInput } from "./script.js";

/** The ordinary conformance prompt (spec 10 §7 default) and the two optional ones. */
export const FIXTURE_CONFORMANCE_PROMPTS = {
  ordinary: "Reply with the single word ready.",
  zeroWork: "/fixture zero-work",
  hold: "/fixture hold until stopped",
} as const;

/** The script the conformance agent runs: every prompt entry is reusable across turns. */
export function fixtureConformanceScript(): FixtureScriptInput {
  return {
    loadSession: true,
    sessionIds: "uuid",
    // Issue 4: stop/interrupt-settles-before-answer must hold against an agent that never
    // answers session/cancel, so the bridge has to settle the interrupted turn itself.
    cancel: "ignore",
    prompts: [
      { when: FIXTURE_CONFORMANCE_PROMPTS.zeroWork, reuse: true, steps: [{ end: "end_turn" }] },
      {
        when: FIXTURE_CONFORMANCE_PROMPTS.hold,
        reuse: true,
        steps: [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "holding" } } }, { waitForCancel: true }],
      },
      {
        reuse: true,
        steps: [
          { update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "The user wants one word." } } },
          { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ready" } } },
          { end: "end_turn" },
        ],
      },
    ],
  };
}

/**
 * A launch spec running the fixture agent at `fixtureMainPath` (the compiled
 * `stack/acp/fixture-agent/main.js`) with `script` inline, under `nodePath` (default: this node).
 */
export function fixtureLaunchSpec(
  fixtureMainPath: string,
  script: FixtureScriptInput = fixtureConformanceScript(),
  nodePath = process.execPath,
): {
  displayName: string;
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return { displayName: "Fixture ACP agent", command: nodePath, args: [fixtureMainPath, "--script-json", JSON.stringify(script)], env: {} };
}

/** The conformance fixture `{cwd, input, zeroWorkPromptInput, holdPromptInput}` matching {@link fixtureConformanceScript}. */
export function fixtureConformanceSession(cwd: string): {
  cwd: string;
  input: Array<{ type: string; text: string; mentions: unknown[] }>;
  zeroWorkPromptInput: Array<{ type: string; text: string; mentions: unknown[] }>;
  holdPromptInput: Array<{ type: string; text: string; mentions: unknown[] }>;
} {
  const text = (value: string) => [{ type: "text", text: value, mentions: [] as unknown[] }];
  return {
    cwd,
    input: text(FIXTURE_CONFORMANCE_PROMPTS.ordinary),
    zeroWorkPromptInput: text(FIXTURE_CONFORMANCE_PROMPTS.zeroWork),
    holdPromptInput: text(FIXTURE_CONFORMANCE_PROMPTS.hold),
  };
}
