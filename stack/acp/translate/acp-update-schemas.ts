/**
 * Lenient zod schemas for the ACP `session/update` payloads the translator reads (ACP protocol
 * v1, spec 20 §3.2). Agents send vendor keys and `null` for absent strings (pi-acp), so every
 * object is loose and `null` reads as "absent".
 */
import * as z from "zod";
import type { AcpToolCallContent, AcpToolCallEvent } from "../dialects/types.js";
import { isAcpToolKind } from "../dialects/types.js";
import { isRecord } from "../../protocol/json-value.js";

/** Any `session/update` `update`: an object with a string `sessionUpdate` discriminator. */
export const AcpSessionUpdateSchema = z.looseObject({ sessionUpdate: z.string().min(1) });
/** A parsed `update` (kind known, rest untyped). */
export type AcpSessionUpdate = z.infer<typeof AcpSessionUpdateSchema>;

/** An ACP content block (`text`, `image`, `resource_link`, …). */
export const AcpContentBlockSchema = z.looseObject({ type: z.string(), text: z.string().optional() });
/** A parsed content block. */
export type AcpContentBlock = z.infer<typeof AcpContentBlockSchema>;

/** `agent_message_chunk` / `agent_thought_chunk` / `user_message_chunk`. */
export const AcpChunkUpdateSchema = z.looseObject({ sessionUpdate: z.string(), content: AcpContentBlockSchema });

// A field of the wrong type reads as absent rather than failing the whole update.
const optionalString = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined)
  .catch(undefined);

const ToolCallContentSchema = z.looseObject({
  type: z.string(),
  content: AcpContentBlockSchema.optional().catch(undefined),
  path: z.string().optional().catch(undefined),
  oldText: z.string().nullish().catch(undefined),
  newText: z.string().optional().catch(undefined),
});

const LocationSchema = z.looseObject({ path: z.string(), line: z.number().nullish() });

/** The tool-call fields shared by `tool_call` and `tool_call_update` (all but the id optional). */
export const AcpToolCallFieldsSchema = z.looseObject({
  toolCallId: z.string().min(1),
  title: optionalString,
  kind: optionalString,
  status: optionalString,
  content: z.array(z.unknown()).nullish().catch(undefined),
  locations: z.array(z.unknown()).nullish().catch(undefined),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).nullish().catch(undefined),
});

function validEntries<T>(schema: z.ZodType<T>, values: unknown[]): T[] {
  const entries: T[] = [];
  for (const value of values) {
    const parsed = schema.safeParse(value);
    if (parsed.success) entries.push(parsed.data);
  }
  return entries;
}

/** One `plan` entry; unknown statuses are kept as absent. */
export const AcpPlanUpdateSchema = z.looseObject({
  entries: z.array(z.looseObject({ content: z.string(), status: z.string().nullish() })),
});

/** `usage_update {used, size}` (tokens); anything else is malformed and yields nothing. */
export const AcpUsageUpdateSchema = z.looseObject({ used: z.number(), size: z.number() });

/**
 * The fields one `tool_call`/`tool_call_update` carries, as a partial {@link AcpToolCallEvent}
 * (absent and `null` fields are left out so a merge only overrides what was sent).
 * Returns `undefined` when the update has no usable `toolCallId`.
 */
export function readToolCallFields(update: unknown): AcpToolCallEvent | undefined {
  const parsed = AcpToolCallFieldsSchema.safeParse(update);
  if (!parsed.success) return undefined;
  const fields = parsed.data;
  const event: AcpToolCallEvent = { toolCallId: fields.toolCallId };
  if (fields.title !== undefined) event.title = fields.title;
  if (fields.kind !== undefined) {
    event.rawKind = fields.kind;
    if (isAcpToolKind(fields.kind)) event.kind = fields.kind;
  }
  if (fields.status !== undefined) event.status = fields.status;
  if (fields.content != null) event.content = validEntries(ToolCallContentSchema, fields.content) as AcpToolCallContent[];
  if (fields.locations != null) {
    event.locations = validEntries(LocationSchema, fields.locations).map((location) => (location.line == null ? { path: location.path } : { path: location.path, line: location.line }));
  }
  if (fields.rawInput !== undefined && fields.rawInput !== null) event.rawInput = fields.rawInput;
  if (fields.rawOutput !== undefined && fields.rawOutput !== null) event.rawOutput = fields.rawOutput;
  if (fields._meta != null) event._meta = fields._meta;
  return event;
}

/** Merges an update into a cached call: fields present in `next` override (spec 20 §3.2). */
export function mergeToolCall(base: AcpToolCallEvent, next: AcpToolCallEvent): AcpToolCallEvent {
  const merged: AcpToolCallEvent = { ...base };
  for (const [key, value] of Object.entries(next) as [keyof AcpToolCallEvent, unknown][]) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  // `_meta` is the agents' side channel, sent in pieces: what one update said there (Claude Code's
  // `claudeCode.toolResponse` with the edit's hunks) stays when a later one says other things
  // (its closing update names only `claudeCode.toolName`). Objects merge key by key; other values replace.
  if (base._meta !== undefined && next._meta !== undefined) merged._meta = mergeMeta(base._meta, next._meta);
  // A kind update that is not a valid ACP kind must not leave the old valid kind behind.
  if (next.rawKind !== undefined && next.kind === undefined) delete merged.kind;
  return merged;
}

function mergeMeta(base: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) {
    const before = merged[key];
    merged[key] = isRecord(before) && isRecord(value) ? mergeMeta(before, value) : value;
  }
  return merged;
}

/** True when a tool status is terminal (`completed` or `failed`). */
export function isTerminalToolStatus(status: string | undefined): status is "completed" | "failed" {
  return status === "completed" || status === "failed";
}
