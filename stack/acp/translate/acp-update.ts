/**
 * One ACP `session/update` read once, where it enters the bridge (spec 20 §2.5): the
 * notification's `sessionId`, and its `update` through the lenient schemas
 * (acp-update-schemas.ts) with what the bridge asks of every update worked out at that one read:
 * its kind, a tool call's fields, a chunk's content block, whether it is turn output. The
 * session's handling (`stack/acp/session/session-events.ts`), the native-settings tracker and the
 * translator read this value; none of them parses the update again.
 */
import type { AcpToolCallEvent } from "../dialects/types.js";
import { AcpChunkUpdateSchema, AcpSessionUpdateSchema, readToolCallFields, type AcpContentBlock, type AcpSessionUpdate } from "./acp-update-schemas.js";
import { acpUpdateShape } from "./acp-update-shape.js";

/** Update kinds that count as turn output (spec 30 §6.2, zero-output turns and pre-prompt drops). */
export const TURN_OUTPUT_UPDATE_KINDS: readonly string[] = Object.freeze(["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]);

/** One `session/update`'s `update`, read once ({@link AcpUpdate.read}). */
export class AcpUpdate {
  private constructor(
    /** The update as the lenient schema read it (a loose object with a string `sessionUpdate`): what raw envelopes carry. */
    readonly value: AcpSessionUpdate,
    /** `tool_call` / `tool_call_update`: the call's fields; `undefined` for other kinds and for a call without a usable `toolCallId`. */
    readonly toolCall: AcpToolCallEvent | undefined,
    /** A `*_chunk` update's content block; `undefined` for other kinds and for a chunk without a well-formed one. */
    readonly chunk: AcpContentBlock | undefined,
  ) {}

  /**
   * Reads `raw` once (an {@link AcpUpdate} is returned as it is). `undefined` when it is not an
   * object with a non-empty string `sessionUpdate`: an unparseable update, dropped (spec 20 §2.5).
   */
  static read(raw: unknown): AcpUpdate | undefined {
    if (raw instanceof AcpUpdate) return raw;
    // The common shape is read by hand, else by the schema: the same value either way (acp-update-shape.ts).
    const value = acpUpdateShape.update(raw) ?? AcpSessionUpdateSchema.safeParse(raw).data;
    if (value === undefined) return undefined;
    const kind = value.sessionUpdate;
    const toolCall = kind === "tool_call" || kind === "tool_call_update" ? readToolCallFields(value) : undefined;
    const chunk = kind.endsWith("_chunk") ? (acpUpdateShape.contentBlock(value.content) ?? AcpChunkUpdateSchema.safeParse(value).data?.content) : undefined;
    return new AcpUpdate(value, toolCall, chunk);
  }

  /** The update's `sessionUpdate`. */
  get kind(): string {
    return this.value.sessionUpdate;
  }

  /**
   * True when the update counts as turn output (spec 30 §6.2): chunks, tool calls, plans. An empty
   * text chunk (a usage-only chunk) is not output: it adds nothing to the timeline.
   */
  get turnOutput(): boolean {
    if (!TURN_OUTPUT_UPDATE_KINDS.includes(this.kind)) return false;
    return !(this.kind.endsWith("_chunk") && this.chunk?.type === "text" && this.chunk.text === "");
  }
}

/** A `session/update` notification as the session reads it. */
export interface AcpSessionNotification {
  /** The agent's session id; `undefined` when the notification carries no string one. */
  sessionId: string | undefined;
  update: AcpUpdate;
}

/**
 * Reads a `session/update` notification's params once. `undefined` when they are not an object or
 * their `update` is unparseable ({@link AcpUpdate.read}): such a notification changes nothing.
 */
export function readSessionNotification(params: unknown): AcpSessionNotification | undefined {
  if (!params || typeof params !== "object") return undefined;
  const { sessionId, update } = params as { sessionId?: unknown; update?: unknown };
  const read = AcpUpdate.read(update);
  if (read === undefined) return undefined;
  return { sessionId: typeof sessionId === "string" ? sessionId : undefined, update: read };
}
