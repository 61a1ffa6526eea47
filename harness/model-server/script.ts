/**
 * A cell's model script (docs/design/00-product.md `cells/`: "model script"): the answers the loopback
 * model endpoint plays, in order, to an agent that takes an OpenAI-compatible model endpoint
 * (opencode). Requests without tools (opencode's session-title request) get `title`; every
 * other request takes the next response.
 */
import * as z from "zod";

/**
 * One tool call the model asks for: a function call whose `arguments` are sent JSON-encoded, or
 * (OpenAI Responses only) a freeform custom tool call whose `input` is sent as raw text (codex's
 * `apply_patch`). Exactly one of the two.
 */
export const ModelToolCallSchema = z
  .strictObject({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
    input: z.string().optional(),
  })
  .refine((c) => (c.arguments === undefined) !== (c.input === undefined), { message: "a tool call needs exactly one of arguments and input" });

/** One scripted tool call. */
export type ModelToolCall = z.output<typeof ModelToolCallSchema>;

/** One scripted model response. */
export const ModelResponseSchema = z
  .strictObject({
    /** Assistant text, streamed word by word (`""`: an empty answer, for zero-work turns). */
    text: z.string().optional(),
    /** Tool calls after the text (finish reason `tool_calls`). */
    toolCalls: z.array(ModelToolCallSchema).min(1).optional(),
    /**
     * Keep the stream open after the text until the agent goes away (it cancels the turn) or
     * the cell's `model/release` step ends it as a text answer, so a cell can stop or steer a
     * turn that is provably still running.
     */
    hold: z.boolean().default(false),
    /** Token usage reported in the final usage chunk. */
    usage: z.strictObject({ prompt: z.number().int().nonnegative(), completion: z.number().int().nonnegative() }).optional(),
    /**
     * Answer with an HTTP error instead of a generation (a model-error cell): `status` 400–599
     * with the API's own error body (`message`; `type` overrides the API's error type for the
     * status).
     */
    error: z.strictObject({ status: z.number().int().min(400).max(599), message: z.string().min(1), type: z.string().min(1).optional() }).optional(),
    /**
     * With `error`: answer every further request of the same prompt with it too (an agent's
     * retries, also retries with a changed body); the next response is taken only by a request
     * whose latest user prompt differs.
     */
    repeat: z.boolean().default(false),
  })
  .refine((r) => r.text !== undefined || r.toolCalls !== undefined || r.error !== undefined, { message: "a response needs text, toolCalls or error" })
  .refine((r) => !(r.error && (r.text !== undefined || r.toolCalls || r.hold || r.usage)), { message: "an error response carries nothing else", path: ["error"] })
  .refine((r) => !r.repeat || r.error !== undefined, { message: "only an error response repeats", path: ["repeat"] })
  .refine((r) => !(r.hold && r.toolCalls), { message: "a held response cannot carry toolCalls", path: ["hold"] });

/** One scripted model response. */
export type ModelResponse = z.output<typeof ModelResponseSchema>;

/** A cell's model script. */
export const ModelScriptSchema = z.strictObject({
  /** The answer to every request without tools (session titles). */
  title: z.string().min(1).default("Parity cell session"),
  /** Answers to the requests with tools, in arrival order (none for cells that never prompt, e.g. model-list). */
  responses: z.array(ModelResponseSchema).default([]),
});

/** A validated model script. */
export type ModelScript = z.output<typeof ModelScriptSchema>;

/**
 * Replaces `{{name}}` placeholders in every string of `value` (e.g. `{{cwd}}` → the temp
 * workspace), so scripts can name absolute paths the agent's tools require.
 * @throws Error naming the placeholder when a variable is unknown.
 */
export function fillTemplate<T>(value: T, vars: Readonly<Record<string, string>>): T {
  const fill = (v: unknown): unknown => {
    if (typeof v === "string") {
      return v.replace(/\{\{([A-Za-z]+)\}\}/g, (_m, name: string) => {
        const known = vars[name];
        if (known === undefined) throw new Error(`unknown placeholder {{${name}}}`);
        return known;
      });
    }
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(value) as T;
}
