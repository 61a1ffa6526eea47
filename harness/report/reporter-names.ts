/**
 * The closed set of `--reporter` values (00-product.md, `check`), apart from the reporters
 * themselves (reporters.ts): `parity check` checks the flag before it loads them.
 */

/** Valid `--reporter` names. */
export const REPORTER_NAMES = ["text", "json", "junit", "github", "html", "blob"] as const;
/** One reporter name. */
export type ReporterName = (typeof REPORTER_NAMES)[number];
