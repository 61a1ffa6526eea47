/**
 * The closed set of `--reporter` values (docs/design/00-product.md, `check`), apart from the reporters
 * themselves (reporters.ts): `parity check` checks the flag before it loads them.
 */
import { UsageError } from "../errors.js";

/** Valid `--reporter` names. */
export const REPORTER_NAMES = ["text", "json", "junit", "github", "html", "blob"] as const;
/** One reporter name. */
export type ReporterName = (typeof REPORTER_NAMES)[number];

/**
 * `name` as a reporter name.
 * @throws UsageError naming the valid reporters for anything else.
 */
export function reporterNameOf(name: string): ReporterName {
  if (!(REPORTER_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`unknown reporter "${name}": use one of ${REPORTER_NAMES.join(", ")} (--reporter)`);
  }
  return name as ReporterName;
}
