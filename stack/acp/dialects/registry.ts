/**
 * The ACP dialect registry (spec 30 §1.2): the built-in dialects plus any registered by a host.
 * A registry is an instance; the package's public one is {@link defaultAcpDialectRegistry}.
 */
import { genericAcpDialect } from "./acp.js";
import { cursorAcpDialect } from "./cursor.js";
import { grokAcpDialect } from "./grok.js";
import { ompAcpDialect } from "./omp.js";
import { opencodeAcpDialect } from "./opencode.js";
import { piAcpDialect } from "./pi.js";
import type { AcpDialect } from "./types.js";

/** The built-in dialects, by id (spec 30 §1.3–1.7). */
export const BUILT_IN_ACP_DIALECTS: readonly AcpDialect[] = Object.freeze([genericAcpDialect, cursorAcpDialect, grokAcpDialect, ompAcpDialect, opencodeAcpDialect, piAcpDialect]);

/** A rejected registration; `code` names the rule broken. */
export class AcpDialectError extends Error {
  readonly code: "E_ACP_DIALECT_ID_BLANK" | "E_ACP_DIALECT_ID_RESERVED" | "E_ACP_DIALECT_DUPLICATE";

  constructor(code: AcpDialectError["code"], message: string) {
    super(message);
    this.name = "AcpDialectError";
    this.code = code;
  }
}

/** Options of {@link AcpDialectRegistry.register}. */
export interface RegisterAcpDialectOptions {
  /** Replace an earlier registration with the same id instead of throwing (spec 30 §1.2 behaviour). */
  replace?: boolean;
}

/** A set of dialects by id. */
export interface AcpDialectRegistry {
  /**
   * Adds a dialect.
   * @throws AcpDialectError `An ACP dialect needs a non-empty id.` for a blank id;
   *   `ACP dialect id "<id>" is reserved by a built-in dialect.` for a built-in id (including `acp`);
   *   `ACP dialect id "<id>" is already registered.` for a duplicate unless `replace` is set.
   */
  register(dialect: AcpDialect, options?: RegisterAcpDialectOptions): void;
  /** The dialect with this id, built-in or registered. */
  get(id: string): AcpDialect | undefined;
  /** Every id, built-ins first, then registrations in order. */
  ids(): string[];
}

/** Creates a registry holding the built-in dialects. */
export function createAcpDialectRegistry(): AcpDialectRegistry {
  const builtIns = new Map(BUILT_IN_ACP_DIALECTS.map((dialect) => [dialect.id, dialect]));
  const registered = new Map<string, AcpDialect>();
  return {
    register(dialect, options = {}) {
      const id = typeof dialect?.id === "string" ? dialect.id.trim() : "";
      if (id.length === 0) throw new AcpDialectError("E_ACP_DIALECT_ID_BLANK", "An ACP dialect needs a non-empty id.");
      if (builtIns.has(dialect.id)) {
        throw new AcpDialectError("E_ACP_DIALECT_ID_RESERVED", `ACP dialect id "${dialect.id}" is reserved by a built-in dialect.`);
      }
      if (registered.has(dialect.id) && options.replace !== true) {
        throw new AcpDialectError("E_ACP_DIALECT_DUPLICATE", `ACP dialect id "${dialect.id}" is already registered; pass {replace: true} to replace it.`);
      }
      registered.set(dialect.id, dialect);
    },
    get: (id) => builtIns.get(id) ?? registered.get(id),
    ids: () => [...builtIns.keys(), ...registered.keys()],
  };
}

/**
 * The package's public registry: one per host artifact, filled at module load (spec 30 §1.2).
 * This is the one deliberate module-level instance of the ACP stack; the spec's public
 * `registerAcpDialect` needs a shared target. Tests and bridges that want isolation create
 * their own with {@link createAcpDialectRegistry} and pass it to the selection.
 */
export const defaultAcpDialectRegistry: AcpDialectRegistry = createAcpDialectRegistry();

/**
 * Registers a custom dialect in {@link defaultAcpDialectRegistry} (spec 30 §1.2,
 * `experimental_registerAcpDialect`). Registering an id again replaces the earlier registration,
 * as the reference does; `{replace: false}` makes a duplicate throw instead.
 * @throws AcpDialectError for a blank or built-in id (and a duplicate with `replace: false`).
 */
export function registerAcpDialect(dialect: AcpDialect, options?: RegisterAcpDialectOptions): void {
  defaultAcpDialectRegistry.register(dialect, { replace: options?.replace ?? true });
}
