/**
 * Whether tests that read the real recordings under `../shared/` by path may run.
 *
 * On a developer's machine without `../shared/`, those tests are skipped. Under `CI=true` the real
 * input is part of the contract, so a missing path never turns into a skip: the tests run and fail
 * on the missing file, and the suite cannot go green without the real recordings.
 */
import { existsSync } from "node:fs";

/** True when every path exists, or when `CI=true` (then a missing path fails the tests that need it). */
export function sharedInputPresent(...paths: string[]): boolean {
  return process.env.CI === "true" || paths.every((p) => existsSync(p));
}
