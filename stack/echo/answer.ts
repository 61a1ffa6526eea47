import { inputText } from "../bridge-kit/session-bridge.js";
import type { ThreadDelta, ThreadDeltaKey } from "../protocol/thread-delta.js";

/**
 * What the echo bridge answers, as grammar-v3 deltas (spec 10 §1.3; spec 02 §5, the
 * smallest correct turn). Pure functions: no ids, no clock, no I/O.
 */

/** The prompt that does no work (spec 02 §5: it still emits `turn.open` + `turn.boundary`). */
export const ZERO_WORK_PROMPT = "/clear";

/**
 * Prefix of a prompt whose turn stays open after its text streamed, until `thread/stop`
 * (interrupt) or `turn/steer` settles it — the echo's stand-in for a long-running tool, so
 * stop and steer can be exercised deterministically.
 */
export const HOLD_PROMPT_PREFIX = "/hold";

/** The stream key of the echo's agent message: an anonymous `assistant` channel (spec 10 §1.2). */
export const ECHO_MESSAGE_KEY: ThreadDeltaKey = { channel: "assistant" };

/** How a prompt is served. */
export type PromptPlan = { kind: "zeroWork" } | { kind: "echo"; text: string } | { kind: "hold"; text: string };

/** The text of a turn's input: the `text` of every `{type:"text"}` item, joined by a newline (bridge-kit's `inputText`). */
export const promptText = inputText;

/**
 * Classifies a prompt: `/clear` (or a blank prompt) is zero-work; `/hold <text>` streams
 * `<text>` (or the whole prompt when empty) and holds the turn open; anything else is echoed.
 */
export function planPrompt(text: string): PromptPlan {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed === ZERO_WORK_PROMPT) return { kind: "zeroWork" };
  if (trimmed === HOLD_PROMPT_PREFIX || trimmed.startsWith(`${HOLD_PROMPT_PREFIX} `)) {
    const rest = trimmed.slice(HOLD_PROMPT_PREFIX.length).trim();
    return { kind: "hold", text: rest === "" ? trimmed : rest };
  }
  return { kind: "echo", text };
}

/**
 * Splits text into the chunks the echo streams: each word with the whitespace that follows
 * it (leading whitespace is its own chunk), so the chunks concatenate to the exact text.
 */
export function chunkText(text: string): string[] {
  return text.match(/^\s+|\S+\s*/g) ?? [];
}

/** One `item.textDelta` on the echo's message stream. */
export function textDelta(text: string): ThreadDelta {
  return { kind: "item.textDelta", key: { ...ECHO_MESSAGE_KEY }, channel: "agentMessage", text };
}

/** The `item.textClose` that settles the echo's message with its full text. */
export function textClose(text: string): ThreadDelta {
  return { kind: "item.textClose", key: { ...ECHO_MESSAGE_KEY }, channel: "agentMessage", text };
}

/** The `turn.boundary` that ends a turn with `status`. */
export function turnBoundary(status: "completed" | "interrupted" | "failed"): ThreadDelta {
  return { kind: "turn.boundary", status };
}
