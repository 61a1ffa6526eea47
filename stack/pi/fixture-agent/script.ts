/**
 * The pi fixture agent's script (zod): what a scripted stand-in for `pi --mode rpc` answers, so
 * the pi bridge's approvals, steer, abort, errors and resume are tested on any machine (issue 23
 * "A fixture for tests"). A prompt is answered by the first entry whose `when` it starts with
 * (an entry without `when` takes any prompt); the entry's `calls` are its model calls in order.
 */
import * as z from "zod";

/** One tool call of a model call and what pi's tool reports. */
export const FixtureToolSchema = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** The tool result's text. */
  result: z.string().default(""),
  /** The result's `details` (an edit's line-numbered `diff`). */
  details: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().default(false),
  /** Accumulated partial outputs sent as `tool_execution_update` before the end. */
  updates: z.array(z.string()).default([]),
  /** Ask through the gate first (`extension_ui_request confirm`, as the bridge's extension does); a refusal blocks the call. */
  gate: z.boolean().default(false),
});

/** One extension dialog the agent opens before the call's message (select, input, editor, or a confirm not of the gate). */
export const FixtureDialogSchema = z.strictObject({
  method: z.enum(["select", "confirm", "input", "editor", "notify"]),
  title: z.string().default(""),
  message: z.string().optional(),
  options: z.array(z.string()).optional(),
});

/** One model call: thinking, text, tool calls; or a held stream; or a model error. */
export const FixtureCallSchema = z.strictObject({
  thinking: z.string().optional(),
  text: z.string().optional(),
  tools: z.array(FixtureToolSchema).default([]),
  /** Stream the text, then wait: an `abort` ends the call `aborted`, a `steer` ends it `stop` and the steer is the next call's input. */
  hold: z.boolean().default(false),
  /** The call fails: an assistant message with no content, `stopReason:"error"` and this `errorMessage`. */
  error: z.string().optional(),
  /** Retries announced first (`auto_retry_start`/`_end`), as pi does for 429/5xx. */
  retries: z.number().int().nonnegative().default(0),
  dialogs: z.array(FixtureDialogSchema).default([]),
  usage: z.strictObject({ input: z.number(), output: z.number() }).default({ input: 10, output: 5 }),
});

/** A prompt's answer. */
export const FixturePromptSchema = z.strictObject({
  when: z.string().optional(),
  calls: z.array(FixtureCallSchema).default([]),
});

/** The whole script. */
export const FixtureScriptSchema = z.strictObject({
  /** The session id of a fresh session (a resumed one keeps the id `--session` names); absent: a random UUID, as pi mints one per session. */
  sessionId: z.string().min(1).optional(),
  contextWindow: z.number().default(128000),
  /** Refuse every prompt (`success:false`). */
  refusePrompts: z.boolean().default(false),
  prompts: z.array(FixturePromptSchema).default([]),
  /** What `get_available_models` lists; the first is the model a session starts with. */
  models: z
    .array(z.strictObject({ id: z.string().min(1), provider: z.string().min(1), name: z.string().optional(), contextWindow: z.number().optional() }))
    .min(1)
    .default([{ id: "scripted", provider: "fixture", name: "Scripted model" }]),
});

export type FixtureScript = z.output<typeof FixtureScriptSchema>;
export type FixtureScriptInput = z.input<typeof FixtureScriptSchema>;
export type FixtureCall = z.output<typeof FixtureCallSchema>;
export type FixtureTool = z.output<typeof FixtureToolSchema>;
