/**
 * The command table of dialect selection (spec 30 §1.2 step 2), alone in its module so that a
 * reader of recorded launches (harness/families/acp/launch.ts, on `parity check`'s path) learns
 * which dialect a command implies without loading the dialects themselves.
 */
import { basename } from "node:path";

/** Exact command basenames that imply a dialect (spec 30 §1.2 step 2; `.exe` is not stripped). */
export const ACP_DIALECT_COMMANDS: Readonly<Record<string, string>> = Object.freeze({
  "cursor-agent": "cursor",
  grok: "grok",
  omp: "omp",
  opencode: "opencode",
  "pi-acp": "pi",
});

/** The built-in dialect id `command`'s basename implies through {@link ACP_DIALECT_COMMANDS}, or undefined (the generic dialect). */
export function dialectIdOfCommand(command: string): string | undefined {
  return ACP_DIALECT_COMMANDS[basename(command)];
}
