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
    message: () => (pass ? `expected ${name} not to match its parity oracle, but it passed` : `expected ${name} to match its parity oracle (status ${result.status}):\n${result.text}`),
  };
}

/** The part of vitest's running test a matcher sees as `this.task` (vitest 4). */
interface TaskLike {
  /** Promises vitest awaits once the test body has returned (it lists un-awaited `resolves` there). */
  promises?: unknown[];
  /** The test's timeout in ms. */
  timeout?: number;
}

/** Share of the test's timeout given to the replay's wall-clock ceiling, so the cell times out (and cleans up) first. */
const CEILING_SHARE_OF_TEST_TIMEOUT = 0.8;

/**
 * Makes an un-awaited matcher fail its test instead of passing silently: a guard is listed in
 * `task.promises`, which vitest awaits after the test body returns, and taken off as soon as the
 * verdict settles. An awaited matcher settles before the body returns, so the guard is gone by
 * then; vitest only ever asks a guard still listed — the verdict is then still running, i.e. not
 * awaited — and that guard rejects once the replay is over (so it never leaks its temp files).
 */
function guardUnawaited(task: TaskLike, running: Promise<unknown>, name: string): void {
  const promises = (task.promises ??= []);
  const notAwaited = new Error(`expect(${name}).toMatchParityOracle() was not awaited: its verdict would be lost when the test ends. Write \`await expect(…).toMatchParityOracle()\``);
  const guard = {
    then(onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) {
      const over = running.then(
        () => Promise.reject(notAwaited),
        () => Promise.reject(notAwaited),
      );
      return over.then(onFulfilled, onRejected);
    },
  };
  promises.push(guard);
  void running
    .finally(() => {
      const at = promises.indexOf(guard);
      if (at !== -1) promises.splice(at, 1);
    })
    .catch(() => undefined);
}

/**
 * `toMatchParityOracle()`: passes when the cell's status is `pass`. Given a {@link CheckCellResult}
 * it checks it at once; given {@link CheckCellOptions} it runs {@link checkCell} first: `await` the
 * assertion — an un-awaited one fails its test (see `guardUnawaited`). Without a `timeoutMs`, the
 * replay's ceiling is 80 % of the test's timeout, so a slow cell ends as status `timeout` (its temp
 * files removed) rather than as vitest's test timeout; give the test a timeout that fits the cell
 * (`test(name, fn, 60_000)`). The failure message is the text report: summary, diff, what to do.
 */
export function toMatchParityOracle(this: { task?: TaskLike } | void, received: unknown): MatcherResult | Promise<MatcherResult> {
  if (isResult(received)) return verdict(received);
  if (typeof received !== "object" || received === null || !("provider" in received) || !("cell" in received)) {
    return { pass: false, message: () => "toMatchParityOracle expects checkCell options ({provider, cell, …}) or a checkCell result" };
  }
  const options = received as CheckCellOptions;
  const task = this instanceof Object ? this.task : undefined;
  const testTimeout = task?.timeout;
  const fitted =
    options.timeoutMs === undefined && typeof testTimeout === "number" && testTimeout > 0 ? { ...options, timeoutMs: Math.max(1, Math.floor(testTimeout * CEILING_SHARE_OF_TEST_TIMEOUT)) } : options;
  const running = checkCell(fitted).then(verdict);
  if (task !== undefined) guardUnawaited(task, running, `{ provider: "${options.provider}", cell: "${options.cell}" }`);
  return running;
}

/** The matchers to pass to `expect.extend`. */
export const parityMatchers = { toMatchParityOracle };

declare module "vitest" {
  // A merged declaration repeats vitest's own type parameters, default included.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Assertion<T = any> {
    /** See {@link toMatchParityOracle}; `await` it when given options. */
    toMatchParityOracle(): T extends CheckCellResult ? void : Promise<void>;
  }
  interface AsymmetricMatchersContaining {
    toMatchParityOracle(): void;
  }
}
