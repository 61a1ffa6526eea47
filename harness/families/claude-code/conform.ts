/**
 * `parity conform --bridge claude-code`: the bridge against the fixture CLI
 * (`stack/claude-code/fixture-agent`), whose script answers the ordinary, zero-work and hold
 * prompts of spec 10 §7; `--launch-spec <file>` (a `{command, args, env?}`) runs another CLI.
 */
import type { FixtureScriptInput } from "../../../stack/claude-code/fixture-agent/script.js";
import { spawnOptions } from "../../conformance/target.js";
import { childProcessTransport } from "../../conformance/transport.js";
import { packageDistPath } from "../../runtime/spawn-bridge.js";
import type { FamilyConform } from "../family.js";
import { CLAUDE_CODE_BRIDGE_MODULE, claudeCodeLaunchOptions } from "./launch.js";

/** The conformance prompts the fixture's script answers. */
export const CLAUDE_CODE_CONFORMANCE_PROMPTS = { ordinary: "Reply with the single word ready.", zeroWork: "/fixture zero-work", hold: "/fixture hold until stopped" } as const;

/** The fixture CLI's conformance script: thinking and text for the ordinary prompt, nothing for zero-work, a held stream for hold. */
export function claudeCodeConformanceScript(): FixtureScriptInput {
  return {
    prompts: [
      { when: CLAUDE_CODE_CONFORMANCE_PROMPTS.zeroWork, steps: [] },
      { when: CLAUDE_CODE_CONFORMANCE_PROMPTS.hold, steps: [{ hold: true }] },
      { steps: [{ thinking: "The user wants one word." }, { text: "ready" }] },
    ],
  };
}

const textInput = (text: string) => [{ type: "text", text, mentions: [] as unknown[] }];

/** The `claude-code` entry of `parity conform --bridge`. */
export const claudeCodeConform: FamilyConform = {
  name: "claude-code",
  describe: `the Claude Code bridge shipped with this package (${CLAUDE_CODE_BRIDGE_MODULE}); without --launch-spec it runs against the fixture CLI (dist/stack/claude-code/fixture-agent/main.js) with zero-work and hold prompts`,
  resolve: (options, modulePath) => {
    const fixture = packageDistPath("stack", "claude-code", "fixture-agent", "main.js");
    const launch = (options.launchSpec as { command: string; args: string[]; env?: Record<string, string> } | undefined) ?? {
      command: process.execPath,
      args: [fixture, "--script-json", JSON.stringify(claudeCodeConformanceScript())],
      env: {},
    };
    const session: { cwd: string; options?: Record<string, unknown> } & Record<string, unknown> = options.session ?? {
      cwd: options.cwd,
      input: textInput(CLAUDE_CODE_CONFORMANCE_PROMPTS.ordinary),
      zeroWorkPromptInput: textInput(CLAUDE_CODE_CONFORMANCE_PROMPTS.zeroWork),
      holdPromptInput: textInput(CLAUDE_CODE_CONFORMANCE_PROMPTS.hold),
    };
    const sessionOptions = { ...(session.options ?? {}), ...claudeCodeLaunchOptions(launch) };
    return {
      modulePath,
      agent: options.launchSpec === undefined ? "the fixture Claude Code CLI (node dist/stack/claude-code/fixture-agent/main.js)" : `${launch.command} from --launch-spec`,
      transport: childProcessTransport(spawnOptions(modulePath, options.providerId ?? "claude-code", options)),
      session: { ...session, options: sessionOptions },
    };
  },
};
