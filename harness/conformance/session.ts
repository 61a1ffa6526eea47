import * as z from "zod";
import { TurnInputItemSchema } from "../../stack/protocol/methods.js";

/** Thread id every conformance run uses (spec 10 §7 Fixed values). */
export const CONFORMANCE_THREAD_ID = "thr_conformance_1";

/** Execution options sent with `thread/start`, `thread/resume` and `turn/start` (spec 10 §7 Fixed values). */
export const CONFORMANCE_OPTIONS = {
  permissionMode: "full",
  permissionScope: "full",
  approvalReviewer: null,
  permissionEscalation: null,
} as const;

/** The default ordinary prompt. */
export const DEFAULT_CONFORMANCE_PROMPT = "Reply with the single word ready.";

/**
 * The fixture a bridge is checked with (spec 10 §7 `session`): where the thread runs and
 * which prompts to send. `zeroWorkPromptInput` enables `turn/settles-without-activity`;
 * `holdPromptInput` (a prompt whose turn stays open until stopped) enables
 * `stop/interrupt-settles-before-answer`. Without them those rules report nothing.
 * `options` is merged over {@link CONFORMANCE_OPTIONS} (e.g. `providerOptions.acpLaunchSpec`).
 */
export const ConformanceSessionSchema = z.strictObject({
  threadId: z.string().min(1).default(CONFORMANCE_THREAD_ID),
  cwd: z.string().min(1),
  input: z
    .array(TurnInputItemSchema)
    .min(1)
    .default([{ type: "text", text: DEFAULT_CONFORMANCE_PROMPT, mentions: [] }]),
  zeroWorkPromptInput: z.array(TurnInputItemSchema).min(1).optional(),
  holdPromptInput: z.array(TurnInputItemSchema).min(1).optional(),
  options: z.record(z.string(), z.unknown()).default({}),
});

/** A resolved conformance fixture. */
export type ConformanceSession = z.output<typeof ConformanceSessionSchema>;
/** A conformance fixture as a caller writes it (defaults optional). */
export type ConformanceSessionInput = z.input<typeof ConformanceSessionSchema>;

/** Text input of one prompt, in the runtime's shape `{type:"text", text, mentions:[]}`. */
export function textInput(text: string): Array<{ type: string; text: string; mentions: unknown[] }> {
  return [{ type: "text", text, mentions: [] }];
}

/** The echo bridge's fixture: an ordinary prompt, `/clear` as zero-work and `/hold` to interrupt. */
export function echoConformanceSession(cwd: string): ConformanceSessionInput {
  return {
    cwd,
    input: textInput("Echo this conformance prompt back."),
    zeroWorkPromptInput: textInput("/clear"),
    holdPromptInput: textInput("/hold waiting for the stop"),
  };
}
