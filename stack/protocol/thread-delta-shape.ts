/**
 * A hand-written read of the common `thread/delta` delta kinds, in front of the zod schemas of
 * `thread-delta.ts`: the assembler and the conformance collector parse every `thread/delta` a
 * bridge sends, and the per-delta zod parse was about a third of the CLI's own work in the cursor
 * check (bench/README.md).
 *
 * {@link readCommonDeltas} either declines the whole batch (`undefined`: zod decides and writes
 * every error message, as before) or returns exactly what the kind's schema returns for each
 * delta: a fresh object per `z.object` with the declared keys in the schema's order, optional
 * keys only when present, unknown keys (an own `__proto__` too) left out, leaves as they are
 * (a JSON value such as `payload` or `raw.params` passed through, not copied). It accepts only
 * plain objects (prototype `Object.prototype`, as `JSON.parse` makes them) whose declared values
 * are defined, so zod's handling of prototypes, getters and `undefined` never has to be
 * reproduced. The kinds read here are the text and output streams, the turn's open, boundary and
 * input acknowledgement, `session.reset`, `unhandled`, `extension.state` and `contextWindow`: the
 * most common in the recorded bridge→runtime lanes, and `item.open`/`item.close` of the item shapes
 * `item-shape-read.ts` reads; the rest go to zod.
 * `test/protocol/thread-delta-shape.test.ts` checks the output against the schemas over every
 * recorded `thread/delta` and hand-made bad input.
 */
import { isPlainObject as isPlain } from "./json-value.js";
import { isBoolean, isFiniteNumber, isString, optional, readItemShape, readPresentation } from "./item-shape-read.js";
import {
  AttachSchema,
  CLIENT_REQUEST_ID_PATTERN,
  EXTENSION_KIND_PATTERN,
  ItemStatusSchema,
  KEY_PART_SEPARATOR,
  OUTPUT_CHANNELS,
  TEXT_CHANNELS,
  TurnStatusSchema,
  isJsonValue,
} from "./thread-delta-blocks.js";

type Plain = Record<string, unknown>;
/** A delta as the schema outputs it (typed by the caller). */
type DeltaOut = Plain;

/** The reader's "decline": the whole batch goes to zod. */
const DECLINE = Symbol("decline");
type Read<T> = T | typeof DECLINE;

function isKeyPart(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && !value.includes(KEY_PART_SEPARATOR);
}

const TEXT_CHANNEL_SET: ReadonlySet<unknown> = new Set<unknown>(TEXT_CHANNELS);
const OUTPUT_CHANNEL_SET: ReadonlySet<unknown> = new Set<unknown>(OUTPUT_CHANNELS);
const TURN_STATUS_SET: ReadonlySet<unknown> = new Set<unknown>(TurnStatusSchema.options);
const ATTACH_SET: ReadonlySet<unknown> = new Set<unknown>(AttachSchema.options);
const ITEM_STATUS_SET: ReadonlySet<unknown> = new Set<unknown>(ItemStatusSchema.options);

const isFiniteOrNull = (value: unknown): boolean => value === null || isFiniteNumber(value);

/** `ThreadDeltaKeySchema`: `{providerItemId?, channel?, parentRef?}`. */
function readKey(input: unknown): Read<Plain> {
  if (!isPlain(input)) return DECLINE;
  const out: Plain = {};
  if (!optional(input, "providerItemId", isKeyPart, out)) return DECLINE;
  if (!optional(input, "channel", isKeyPart, out)) return DECLINE;
  if (!optional(input, "parentRef", isKeyPart, out)) return DECLINE;
  return out;
}

/** `ProviderRawEventSchema`: `{jsonrpc: "2.0", id?, method, params?}`. */
function readRaw(input: unknown): Read<Plain> {
  if (!isPlain(input) || input.jsonrpc !== "2.0" || typeof input.method !== "string") return DECLINE;
  const out: Plain = { jsonrpc: "2.0" };
  if (!optional(input, "id", (value) => typeof value === "string" || isFiniteNumber(value), out)) return DECLINE;
  out.method = input.method;
  if (!optional(input, "params", isJsonValue, out)) return DECLINE;
  return out;
}

/** `NoTurnFallbackSchema`: `{raw, rawType}`. */
function readFallback(input: unknown): Read<Plain> {
  if (!isPlain(input) || typeof input.rawType !== "string") return DECLINE;
  const raw = readRaw(input.raw);
  if (raw === DECLINE) return DECLINE;
  return { raw, rawType: input.rawType };
}

/** Appends the trailing `providerTurnId?` (and `noTurnFallback?` when `withFallback`) in schema order. */
function readTurnTail(input: Plain, out: Plain, withFallback: boolean): boolean {
  if (!optional(input, "providerTurnId", isKeyPart, out)) return false;
  if (!withFallback || !("noTurnFallback" in input)) return true;
  const fallback = readFallback(input.noTurnFallback);
  if (fallback === DECLINE) return false;
  out.noTurnFallback = fallback;
  return true;
}

/** `item.textDelta` (text required), `item.textClose` (text optional), `item.outputDelta`: kind, key, channel, text, providerTurnId?, noTurnFallback?. */
function readStream(input: Plain, channels: ReadonlySet<unknown>, textRequired: boolean): Read<DeltaOut> {
  const key = readKey(input.key);
  if (key === DECLINE || !channels.has(input.channel)) return DECLINE;
  const out: DeltaOut = { kind: input.kind, key, channel: input.channel };
  if (textRequired) {
    if (typeof input.text !== "string") return DECLINE;
    out.text = input.text;
  } else if (!optional(input, "text", isString, out)) return DECLINE;
  return readTurnTail(input, out, true) ? out : DECLINE;
}

/** One delta of a handled kind as its schema outputs it, or {@link DECLINE}. */
function readDelta(input: unknown): Read<DeltaOut> {
  if (!isPlain(input)) return DECLINE;
  switch (input.kind) {
    case "item.textDelta":
      return readStream(input, TEXT_CHANNEL_SET, true);
    case "item.textClose":
      return readStream(input, TEXT_CHANNEL_SET, false);
    case "item.outputDelta":
      return readStream(input, OUTPUT_CHANNEL_SET, true);
    case "session.reset":
      return { kind: "session.reset" };
    case "input.accepted": {
      if (typeof input.clientRequestId !== "string" || !CLIENT_REQUEST_ID_PATTERN.test(input.clientRequestId)) return DECLINE;
      const out: DeltaOut = { kind: "input.accepted", clientRequestId: input.clientRequestId };
      return readTurnTail(input, out, false) ? out : DECLINE;
    }
    case "turn.open": {
      const out: DeltaOut = { kind: "turn.open" };
      if (!optional(input, "providerTurnId", isKeyPart, out)) return DECLINE;
      return optional(input, "parentRef", isKeyPart, out) ? out : DECLINE;
    }
    case "turn.boundary":
      return readTurnBoundary(input);
    case "item.open":
      return readItemOpen(input);
    case "item.close":
      return readItemClose(input);
    case "unhandled":
      return readUnhandled(input);
    case "extension.state": {
      const { extensionKind, payload } = input;
      if (typeof extensionKind !== "string" || !EXTENSION_KIND_PATTERN.test(extensionKind) || !isJsonValue(payload)) return DECLINE;
      return { kind: "extension.state", extensionKind, payload };
    }
    case "contextWindow":
      return readContextWindow(input);
    default:
      return DECLINE;
  }
}

/** `turn.boundary`: kind, status, error?, providerCheckpointId?, claimIfIdle?, providerTurnId?. */
function readTurnBoundary(input: Plain): Read<DeltaOut> {
  if (!TURN_STATUS_SET.has(input.status)) return DECLINE;
  const out: DeltaOut = { kind: "turn.boundary", status: input.status };
  if ("error" in input) {
    const error = input.error;
    if (!isPlain(error) || typeof error.message !== "string") return DECLINE;
    out.error = { message: error.message };
  }
  if (!optional(input, "providerCheckpointId", isString, out)) return DECLINE;
  if (!optional(input, "claimIfIdle", isBoolean, out)) return DECLINE;
  return readTurnTail(input, out, false) ? out : DECLINE;
}

/** Appends `item` (a shape of `item-shape-read.ts`) and `presentation?`; `false` to decline. */
function readItemAndPresentation(input: Plain, out: Plain): boolean {
  const item = readItemShape(input.item);
  if (item === undefined) return false;
  out.item = item;
  if (!("presentation" in input)) return true;
  const presentation = readPresentation(input.presentation);
  if (presentation === undefined) return false;
  out.presentation = presentation;
  return true;
}

/**
 * `item.open`: kind, key, item, presentation?, attach?, providerTurnId?, noTurnFallback?. The
 * schema's extension rule (presentation required) never applies: the extension shape is declined.
 */
function readItemOpen(input: Plain): Read<DeltaOut> {
  const key = readKey(input.key);
  if (key === DECLINE) return DECLINE;
  const out: DeltaOut = { kind: "item.open", key };
  if (!readItemAndPresentation(input, out)) return DECLINE;
  if (!optional(input, "attach", (value) => ATTACH_SET.has(value), out)) return DECLINE;
  return readTurnTail(input, out, true) ? out : DECLINE;
}

/**
 * `item.close`: kind, key, status, resultText?, exitCode?, aggregatedOutput?, approvalStatus?
 * ("denied" | "approved"), item, presentation?, providerTurnId?, noTurnFallback?.
 */
function readItemClose(input: Plain): Read<DeltaOut> {
  const key = readKey(input.key);
  if (key === DECLINE || !ITEM_STATUS_SET.has(input.status)) return DECLINE;
  const out: DeltaOut = { kind: "item.close", key, status: input.status };
  if (!optional(input, "resultText", isString, out)) return DECLINE;
  if (!optional(input, "exitCode", isFiniteNumber, out)) return DECLINE;
  if (!optional(input, "aggregatedOutput", isString, out)) return DECLINE;
  if (!optional(input, "approvalStatus", (value) => value === "denied" || value === "approved", out)) return DECLINE;
  if (!readItemAndPresentation(input, out)) return DECLINE;
  return readTurnTail(input, out, true) ? out : DECLINE;
}

/** `unhandled`: kind, raw, rawType, vouchedTurn, onlyIfNoTurn?, parentRef?, providerTurnId?. */
function readUnhandled(input: Plain): Read<DeltaOut> {
  const raw = readRaw(input.raw);
  if (raw === DECLINE || typeof input.rawType !== "string" || typeof input.vouchedTurn !== "boolean") return DECLINE;
  const out: DeltaOut = { kind: "unhandled", raw, rawType: input.rawType, vouchedTurn: input.vouchedTurn };
  if (!optional(input, "onlyIfNoTurn", isBoolean, out)) return DECLINE;
  if (!optional(input, "parentRef", isKeyPart, out)) return DECLINE;
  return readTurnTail(input, out, false) ? out : DECLINE;
}

/** `contextWindow`: kind, used, size?, estimated, attach, providerTurnId?. */
function readContextWindow(input: Plain): Read<DeltaOut> {
  if (!isFiniteOrNull(input.used)) return DECLINE;
  const out: DeltaOut = { kind: "contextWindow", used: input.used };
  if (!optional(input, "size", isFiniteOrNull, out)) return DECLINE;
  if (typeof input.estimated !== "boolean" || !ATTACH_SET.has(input.attach)) return DECLINE;
  out.estimated = input.estimated;
  out.attach = input.attach;
  return readTurnTail(input, out, false) ? out : DECLINE;
}

/**
 * The parsed deltas of a `thread/delta` batch when every delta is of a kind and shape read here,
 * each exactly as its zod schema (spec 10 §1.3) would output it; `undefined` when any one is not
 * (then the caller parses the whole batch with zod, which also writes the error messages).
 * Never throws; does not modify or keep `deltas`.
 */
export function readCommonDeltas(deltas: readonly unknown[]): DeltaOut[] | undefined {
  const out: DeltaOut[] = [];
  for (const delta of deltas) {
    const read = readDelta(delta);
    if (read === DECLINE) return undefined;
    out.push(read);
  }
  return out;
}
