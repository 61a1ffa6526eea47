/**
 * The key of a session or turn request's `options.providerOptions` that carries the Codex
 * app-server launch (`launch.ts`). In a module of its own, with no import, so the harness can name
 * it on `parity check`'s path to its first bridge spawn, which builds no zod schema (issue 25).
 */
export const CODEX_LAUNCH_OPTION = "codexAppServer";
