/**
 * The facts of a cell that need no sandbox: each model response (error or not, what it
 * carries) and each turn's expected end, from the runtime script and the model script.
 */
import type { CellDefinition } from "../runtime/cells.js";
import { errorTypeOf } from "../model-server/dialect.js";
import type { ModelResponse } from "../model-server/script.js";
import type { ModelFact, TurnFact } from "./schema.js";

/** One model response's fact: its error (the script's type, else the usual one for its status), tool calls, text, hold. */
export function modelFact(response: ModelResponse, index: number): ModelFact {
  return {
    response: index,
    error: response.error ? { status: response.error.status, type: response.error.type ?? errorTypeOf(response.error.status), message: response.error.message } : null,
    toolCalls: response.toolCalls?.length ?? 0,
    text: response.text ?? null,
    hold: response.hold,
  };
}

/**
 * The turns of the runtime script (each `turn/start`), with the model responses each takes and
 * how each ends:
 * - a turn takes responses in order until one ends it: a text answer (no tool calls, not held),
 *   an error, or a held answer the turn is interrupted in; a steer or `model/release` in the
 *   turn lets it go on after a held answer (the agent asks again); the last turn takes every
 *   response left (an agent's retries of an empty answer, a subagent's own requests);
 * - `interrupted` when a `thread/stop {intent: "interrupt"}` comes before the next `turn/start`,
 *   `failed` when a response it takes is a model error, else `completed`.
 * Prompts are counted as `afterPrompt` counts them: `turn/start` and `turn/steer`, 1-based.
 */
export function turnFacts(definition: CellDefinition): TurnFact[] {
  const responses = definition.model?.responses ?? [];
  const starts: { prompt: number; stepIndex: number }[] = [];
  let prompts = 0;
  definition.steps.forEach((step, stepIndex) => {
    if (step.op === "turn/start" || step.op === "turn/steer") prompts += 1;
    if (step.op === "turn/start") starts.push({ prompt: prompts, stepIndex });
  });
  let next = 0;
  return starts.map((start, t) => {
    const until = starts[t + 1]?.stepIndex ?? definition.steps.length;
    const within = definition.steps.slice(start.stepIndex + 1, until);
    const interrupted = within.some((s) => s.op === "thread/stop" && s.intent === "interrupt");
    const last = t === starts.length - 1;
    const taken: number[] = [];
    while (next < responses.length) {
      const response = responses[next]!;
      taken.push(next);
      next += 1;
      if (last) continue;
      if (response.error) break;
      if (response.hold && interrupted) break;
      if (!response.hold && !response.toolCalls) break;
    }
    const failed = taken.some((i) => responses[i]!.error !== undefined);
    return { prompt: start.prompt, responses: taken, end: interrupted ? "interrupted" : failed ? "failed" : "completed" };
  });
}
