/**
 * Dialect selection (spec 30 §1.2): an explicit `providerOptions.acpDialect` wins; otherwise the
 * basename of the launch command through the command table; anything else is generic.
 */
import { genericAcpDialect } from "./acp.js";
import { dialectIdOfCommand } from "./commands.js";
import type { AcpDialectRegistry } from "./registry.js";
import { defaultAcpDialectRegistry } from "./registry.js";
import type { AcpDialect } from "./types.js";

export { ACP_DIALECT_COMMANDS } from "./commands.js";

/** Input of {@link selectAcpDialect}. */
export interface SelectAcpDialectInput {
  /** `providerOptions.acpDialect`; used when a non-empty string. */
  explicit?: string | null | undefined;
  /** The launch spec `command` (a name or a full path). */
  command: string;
}

/**
 * Picks the dialect of a session (spec 30 §1.2): a non-empty `explicit` id is looked up in the
 * registry (unknown → generic; the command is then not consulted); otherwise
 * `basename(command)` must match {@link ACP_DIALECT_COMMANDS} exactly; else generic. Never throws.
 */
export function selectAcpDialect(input: SelectAcpDialectInput, registry: AcpDialectRegistry = defaultAcpDialectRegistry): AcpDialect {
  if (typeof input.explicit === "string" && input.explicit.length > 0) {
    return registry.get(input.explicit) ?? genericAcpDialect;
  }
  const byCommand = dialectIdOfCommand(input.command);
  return (byCommand !== undefined ? registry.get(byCommand) : undefined) ?? genericAcpDialect;
}

/**
 * The reference's spelling of {@link selectAcpDialect} (spec 30 §1.2 `resolveAcpDialect({dialectId?, command})`).
 * Same rule, same result; never throws.
 */
export function resolveAcpDialect(input: { dialectId?: string | null | undefined; command: string }, registry: AcpDialectRegistry = defaultAcpDialectRegistry): AcpDialect {
  return selectAcpDialect({ explicit: input.dialectId, command: input.command }, registry);
}
