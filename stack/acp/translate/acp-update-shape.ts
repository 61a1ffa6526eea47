/**
 * A hand-written read of the common shape of a `session/update` `update` and of a chunk's content
 * block, in front of the lenient zod schemas (acp-update-schemas.ts): a bridge reads one per
 * agent line, and a zod parse of each cost the ACP bridge about 130 thousand instructions per
 * update in the real cursor cells (bench/README.md, "The bridge's CPU in the cursor check").
 *
 * Each reader either declines (`undefined`: the schema decides, as before) or returns exactly
 * what the schema's parse returns for that input: a fresh object with the declared keys first, in
 * the schema's order, then every other key in input order, values as they are, an own
 * `__proto__` key left out (zod 4's loose object). It accepts only plain objects (prototype
 * `Object.prototype`, as `JSON.parse` makes them) whose values are all defined, so zod's
 * handling of prototypes, getters and `undefined` never has to be reproduced.
 * `test/acp/acp-update-shape.test.ts` checks the output against the schema's over every committed
 * recording and hand-made bad input.
 */

import { isPlainObject } from "../../protocol/json-value.js";

type PlainObject = Record<string, unknown>;

/** zod's loose-object output for `input` whose declared keys (`declared`, in shape order; those present) are passed through; `undefined` when any value is `undefined`. */
function looseCopy(input: PlainObject, declared: readonly string[]): PlainObject | undefined {
  const out: PlainObject = {};
  for (const key of declared) {
    if (key in input) out[key] = input[key];
  }
  for (const key in input) {
    const value = input[key];
    if (value === undefined) return undefined;
    if (key === "__proto__" || declared.includes(key)) continue;
    out[key] = value;
  }
  return out;
}

const UPDATE_KEYS: readonly string[] = ["sessionUpdate"];
const CONTENT_BLOCK_KEYS: readonly string[] = ["type", "text"];

/**
 * The common-shape readers. An object (not free functions, not frozen) so a test can count the
 * reads (test/acp/session-update-read-once.test.ts); it holds no state.
 */
export const acpUpdateShape = {
  /**
   * `AcpSessionUpdateSchema.safeParse(raw).data` for a plain object with a non-empty string
   * `sessionUpdate`; `undefined` for anything else (then the schema decides).
   */
  update(raw: unknown): (PlainObject & { sessionUpdate: string }) | undefined {
    if (!isPlainObject(raw)) return undefined;
    const kind = raw.sessionUpdate;
    if (typeof kind !== "string" || kind.length === 0) return undefined;
    return looseCopy(raw, UPDATE_KEYS) as (PlainObject & { sessionUpdate: string }) | undefined;
  },

  /**
   * `AcpContentBlockSchema.safeParse(raw).data` (a chunk's `content`) for a plain object with a
   * string `type` and a `text` that is absent or a string; `undefined` for anything else.
   */
  contentBlock(raw: unknown): (PlainObject & { type: string; text?: string }) | undefined {
    if (!isPlainObject(raw)) return undefined;
    if (typeof raw.type !== "string") return undefined;
    if ("text" in raw && typeof raw.text !== "string") return undefined;
    return looseCopy(raw, CONTENT_BLOCK_KEYS) as (PlainObject & { type: string; text?: string }) | undefined;
  },
};
