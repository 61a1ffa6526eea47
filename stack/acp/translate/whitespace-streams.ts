/**
 * Whitespace-only text streams: the assembler settles a stream on `item.textClose` only when its
 * accumulated text has a visible character, or when the close carries the final text (spec 10
 * §2.8 step 5); a stream of only whitespace (pi-acp's `"\n"` after `session/new`, spec 50) would
 * stay started and never complete. This pass follows the translator's two streams and gives such
 * a close the stream's text as its final text, so every started message completes.
 */
import type { ThreadDelta } from "../../protocol/thread-delta.js";

/** The stateful pass of one translator: feed it every delta batch in emission order. */
export interface WhitespaceStreamSettler {
  /** Returns `deltas` with each whitespace-only stream's `item.textClose` carrying the stream's text. */
  settle(deltas: ThreadDelta[]): ThreadDelta[];
}

/** Creates the pass for one translator instance. */
export function createWhitespaceStreamSettler(): WhitespaceStreamSettler {
  const accumulated = new Map<string, string>();
  const keyOf = (delta: { key: { channel?: string | undefined; providerItemId?: string | undefined } }): string => `${delta.key.providerItemId ?? ""}\u001f${delta.key.channel ?? ""}`;
  return {
    settle(deltas) {
      return deltas.map((delta) => {
        if (delta.kind === "item.textDelta") {
          accumulated.set(keyOf(delta), (accumulated.get(keyOf(delta)) ?? "") + delta.text);
          return delta;
        }
        if (delta.kind === "item.textClose") {
          const text = accumulated.get(keyOf(delta));
          accumulated.delete(keyOf(delta));
          if (delta.text === undefined && text !== undefined && text !== "" && text.trim() === "") return { ...delta, text };
          return delta;
        }
        if (delta.kind === "session.reset" || delta.kind === "turn.open") accumulated.clear();
        return delta;
      });
    },
  };
}
