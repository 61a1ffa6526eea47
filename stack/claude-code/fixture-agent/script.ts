/**
 * The fixture CLI's script (zod): what each prompt is answered with, as steps in Claude Code's own
 * terms — streamed text or thinking, a tool call with the result the CLI would report (asking
 * `can_use_tool` first when `ask` is set and the mode is not `bypassPermissions`), a stream held
 * open until `interrupt`, or an API error (a synthetic assistant message and a failed `result`).
 */
import { readFileSync } from "node:fs";
import * as z from "zod";

/** One step of a scripted answer. */
export const FixtureStepSchema = z.union([
  z.strictObject({ text: z.string() }),
  z.strictObject({ thinking: z.string() }),
  z.strictObject({
    tool: z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()) }),
    ask: z.boolean().default(false),
    result: z.strictObject({ content: z.string(), isError: z.boolean().default(false), structured: z.unknown().optional() }),
  }),
  z.strictObject({ hold: z.literal(true) }),
  z.strictObject({ apiError: z.strictObject({ status: z.number().int(), message: z.string() }) }),
]);
/** One step. */
export type FixtureStep = z.output<typeof FixtureStepSchema>;

/** A prompt's answer: `when` (a substring of the prompt; absent matches every prompt) and its steps. */
export const FixturePromptSchema = z.strictObject({ when: z.string().optional(), steps: z.array(FixtureStepSchema) });

/** The script: prompts tried in order; the first whose `when` the prompt contains answers it. */
export const FixtureScriptSchema = z.strictObject({ prompts: z.array(FixturePromptSchema).default([]) });
/** A validated script. */
export type FixtureScript = z.output<typeof FixtureScriptSchema>;
/** A script as written (defaults not yet applied). */
export type FixtureScriptInput = z.input<typeof FixtureScriptSchema>;

/**
 * Validates a script; `source` names it in the error.
 * @throws Error `<source>: <path>: <problem>` for an invalid script.
 */
export function parseFixtureScript(value: unknown, source: string): FixtureScript {
  const parsed = FixtureScriptSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${source}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
}

/** Reads and validates a script file. */
export function readFixtureScript(file: string): FixtureScript {
  return parseFixtureScript(JSON.parse(readFileSync(file, "utf8")) as unknown, file);
}
