/**
 * The generic ACP dialect (spec 30 §1.7): no hooks, every question gets the shared behaviour.
 * Hermes, custom agents without an explicit dialect, and unknown commands get it.
 */
import type { AcpDialect } from "./types.js";

/** `{id:"acp"}` with no hooks (spec 30 §1.7). */
export const genericAcpDialect: AcpDialect = Object.freeze({ id: "acp" });
