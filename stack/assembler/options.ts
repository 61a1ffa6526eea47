/**
 * Options of {@link createDeltaAssembler}, resolved once into a complete internal object
 * (spec 10 §2.1). Defaults live in `limits.ts`.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_ID_PREFIX_HEAD, DEFAULT_PROGRESS_THROTTLE_MS, DEFAULT_TEXT_DELTA_FLUSH_MS } from "./limits.js";

/** What a caller may set on a delta assembler (spec 10 §2.1). */
export interface DeltaAssemblerOptions {
  /** Provider id stamped on `provider/unhandled` events (e.g. `acp-cursor`). Non-empty. */
  providerId: string;
  /** Id prefix; ids read `<prefix>-t<N>` / `<prefix>-i<N>`. Default `"da"` + 8 characters of a random UUID. */
  entropyPrefix?: string;
  /** Progress throttle window per key, in ms (default 500; spec 10 §2.10). */
  progressThrottleMs?: number;
  /** Text batching window per stream, in ms (default 100; 0 disables; spec 10 §2.11). */
  textDeltaFlushMs?: number;
  /** The clock, in ms; read once per `assemble` call. Default `Date.now`. */
  now?: () => number;
  /** Entropy for the default prefix only. Default `crypto.randomUUID`. */
  randomUuid?: () => string;
}

/** Options after defaults, as the assembler uses them. */
export interface ResolvedDeltaAssemblerOptions {
  providerId: string;
  idPrefix: string;
  progressThrottleMs: number;
  textDeltaFlushMs: number;
  now: () => number;
}

/** An assembler option is out of range; the message names the option. */
export class DeltaAssemblerOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeltaAssemblerOptionsError";
  }
}

function windowMs(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new DeltaAssemblerOptionsError(`createDeltaAssembler: ${name} must be a finite number of ms >= 0, got ${value}`);
  }
  return value;
}

/**
 * Fills in defaults and checks ranges.
 * @throws DeltaAssemblerOptionsError when `providerId` or `entropyPrefix` is empty or a window is negative or not finite.
 */
export function resolveDeltaAssemblerOptions(options: DeltaAssemblerOptions): ResolvedDeltaAssemblerOptions {
  if (typeof options.providerId !== "string" || options.providerId === "") {
    throw new DeltaAssemblerOptionsError("createDeltaAssembler: providerId must be a non-empty string");
  }
  if (options.entropyPrefix !== undefined && options.entropyPrefix === "") {
    throw new DeltaAssemblerOptionsError("createDeltaAssembler: entropyPrefix must be non-empty when given");
  }
  const idPrefix = options.entropyPrefix ?? `${DEFAULT_ID_PREFIX_HEAD}${(options.randomUuid ?? randomUUID)().slice(0, 8)}`;
  return {
    providerId: options.providerId,
    idPrefix,
    progressThrottleMs: windowMs("progressThrottleMs", options.progressThrottleMs, DEFAULT_PROGRESS_THROTTLE_MS),
    textDeltaFlushMs: windowMs("textDeltaFlushMs", options.textDeltaFlushMs, DEFAULT_TEXT_DELTA_FLUSH_MS),
    now: options.now ?? Date.now,
  };
}
