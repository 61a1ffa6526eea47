/**
 * `bridge-parity/vitest`: the parity gate inside a user's own vitest suite (README "Use it
 * from your tests").
 *
 * ```ts
 * import { expect, test } from "vitest";
 * import { checkCell, parityMatchers } from "bridge-parity/vitest";
 * expect.extend(parityMatchers);
 *
 * test("my bridge keeps parity on turn-tools", async () => {
 *   await expect({ provider: "acp-opencode", cell: "turn-tools", module: "./dist/my-bridge.js" }).toMatchParityOracle();
 *   const result = await checkCell({ provider: "acp-opencode", cell: "turn-tools" });
 *   expect(result).toMatchParityOracle(); // a result passes through, synchronously checked
 * });
 * ```
 */
import type {} from "vitest";
import { checkCell, type CheckCellOptions, type CheckCellResult } from "./check-cell.js";

export { checkCell, type CheckCellOptions, type CheckCellResult } from "./check-cell.js";

/** What vitest hands a matcher back: pass, and the message for a failure (or a `.not` pass). */
interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function isResult(value: unknown): value is CheckCellResult {
  return typeof value === "object" && value !== null && "status" in value && "text" in value;
}

function verdict(result: CheckCellResult): MatcherResult {
  const pass = result.status === "pass";
  const name = `${result.provider}/${result.cell}`;
  return {
    pass,
    message: () =>
      pass
        ? `expected ${name} not to match its parity oracle, but it passed`
        : `expected ${name} to match its parity oracle (status ${result.status}):\n${result.text}`,
  };
}

/**
 * `toMatchParityOracle()`: passes when the cell's status is `pass`. Given a {@link CheckCellResult}
 * it checks it at once; given {@link CheckCellOptions} it runs {@link checkCell} first (then
 * `await` the assertion). The failure message is the text report: summary, diff, what to do.
 */
export function toMatchParityOracle(received: unknown): MatcherResult | Promise<MatcherResult> {
  if (isResult(received)) return verdict(received);
  if (typeof received !== "object" || received === null || !("provider" in received) || !("cell" in received)) {
    return { pass: false, message: () => "toMatchParityOracle expects checkCell options ({provider, cell, …}) or a checkCell result" };
  }
  return checkCell(received as CheckCellOptions).then(verdict);
}

/** The matchers to pass to `expect.extend`. */
export const parityMatchers = { toMatchParityOracle };

declare module "vitest" {
  interface Assertion<T = any> {
    /** See {@link toMatchParityOracle}; `await` it when given options. */
    toMatchParityOracle(): T extends CheckCellResult ? void : Promise<void>;
  }
  interface AsymmetricMatchersContaining {
    toMatchParityOracle(): void;
  }
}
