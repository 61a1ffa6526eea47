/**
 * The hand-written read of a `session/update`'s common shape (stack/acp/translate/acp-update-shape.ts)
 * returns exactly what the lenient schema's parse returns, or declines: over every `session/update`
 * of every committed recording (and the real cursor recordings beside the checkout when present)
 * and over hand-made inputs that are not the common shape.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AcpContentBlockSchema, AcpSessionUpdateSchema } from "../../stack/acp/translate/acp-update-schemas.js";
import { acpUpdateShape } from "../../stack/acp/translate/acp-update-shape.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const roots = [path.join(repoRoot, "recordings"), path.resolve(repoRoot, "../shared/recordings")].filter((root) => existsSync(root));

/** Every `session/update` params' `update` the agents sent, as parsed from its recorded line. */
function recordedUpdates(): unknown[] {
  const updates: unknown[] = [];
  for (const root of roots) {
    for (const provider of readdirSync(root)) {
      const providerDir = path.join(root, provider);
      if (!existsSync(providerDir)) continue;
      for (const cell of readdirSync(providerDir, { withFileTypes: true })) {
        const file = path.join(providerDir, cell.name, "provider→bridge.ndjson");
        if (!cell.isDirectory() || !existsSync(file)) continue;
        for (const text of readFileSync(file, "utf8").split("\n")) {
          if (text.trim() === "") continue;
          let message: { method?: unknown; params?: { update?: unknown } };
          try {
            message = JSON.parse((JSON.parse(text) as { line: string }).line) as typeof message;
          } catch {
            continue; // a recorded non-JSON agent line: not a session/update
          }
          if (message?.method === "session/update") updates.push(message.params?.update);
        }
      }
    }
  }
  return updates;
}

/** The reader's answer agrees with the schema's: declined, or the same value down to key order and prototype. */
function expectSameAsSchema(fast: unknown, input: unknown, schema: { safeParse(value: unknown): { success: boolean; data?: unknown } }): void {
  if (fast === undefined) return;
  const parsed = schema.safeParse(input);
  expect(parsed.success).toBe(true);
  expect(fast).not.toBe(input);
  expect(Object.getPrototypeOf(fast)).toBe(Object.getPrototypeOf(parsed.data));
  expect(Object.keys(fast as object)).toEqual(Object.keys(parsed.data as object));
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
  for (const key of Object.keys(fast as object)) expect((fast as Record<string, unknown>)[key]).toBe((parsed.data as Record<string, unknown>)[key]);
}

describe("the common-shape read of a session/update", () => {
  it("reads every recorded update as the schema does, and declines only what the schema rejects", () => {
    const updates = recordedUpdates();
    expect(updates.length).toBeGreaterThan(100);
    let contentBlocks = 0;
    for (const update of updates) {
      const fast = acpUpdateShape.update(update);
      // Recorded lines are JSON: the reader declines exactly what the schema rejects.
      expect(fast !== undefined).toBe(AcpSessionUpdateSchema.safeParse(update).success);
      expectSameAsSchema(fast, update, AcpSessionUpdateSchema);
      const content = (update as { content?: unknown } | null)?.content;
      if (content === undefined) continue;
      contentBlocks += 1;
      const block = acpUpdateShape.contentBlock(content);
      expect(block !== undefined).toBe(AcpContentBlockSchema.safeParse(content).success);
      expectSameAsSchema(block, content, AcpContentBlockSchema);
    }
    expect(contentBlocks).toBeGreaterThan(50);
  });

  it("declines what the schema rejects and what is not a plain object, and keeps zod's key order otherwise", () => {
    class Update {
      sessionUpdate = "agent_message_chunk";
    }
    const nullPrototype = Object.assign(Object.create(null) as object, { sessionUpdate: "plan" });
    const inputs: unknown[] = [
      null,
      undefined,
      1,
      "agent_message_chunk",
      [],
      [{ sessionUpdate: "plan" }],
      {},
      { sessionUpdate: "" },
      { sessionUpdate: 1 },
      { sessionUpdate: null },
      { sessionUpdate: "plan", extra: undefined },
      new Update(),
      nullPrototype,
      { b: 1, sessionUpdate: "plan", a: { deep: [1] } },
      JSON.parse('{"__proto__":{"polluted":true},"sessionUpdate":"plan","x":1}'),
      JSON.parse('{"sessionUpdate":"plan","__proto__":null}'),
      JSON.parse('{"1":"numeric keys come first","sessionUpdate":"plan","a":2}'),
    ];
    const accepted: unknown[] = [];
    for (const input of inputs) {
      const fast = acpUpdateShape.update(input);
      if (fast !== undefined) accepted.push(input);
      expectSameAsSchema(fast, input, AcpSessionUpdateSchema);
    }
    expect(accepted).toHaveLength(4);
    expect(Object.keys(acpUpdateShape.update({ b: 1, sessionUpdate: "plan" }) ?? {})).toEqual(["sessionUpdate", "b"]);
    expect(Object.keys(acpUpdateShape.update(JSON.parse('{"__proto__":{"polluted":true},"sessionUpdate":"plan"}')) ?? {})).toEqual(["sessionUpdate"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("reads a content block as the schema does or declines it", () => {
    const blocks: unknown[] = [
      null,
      "text",
      [],
      {},
      { text: "no type" },
      { type: 1, text: "a" },
      { type: "text", text: null },
      { type: "text", text: 1 },
      { type: "text", text: undefined },
      { type: "text" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { text: "before", type: "text", after: { x: 1 } },
      JSON.parse('{"type":"text","__proto__":{"text":"x"},"text":"a"}'),
    ];
    const accepted: unknown[] = [];
    for (const block of blocks) {
      const fast = acpUpdateShape.contentBlock(block);
      if (fast !== undefined) accepted.push(block);
      expectSameAsSchema(fast, block, AcpContentBlockSchema);
    }
    expect(accepted).toHaveLength(4);
    expect(Object.keys(acpUpdateShape.contentBlock({ text: "before", type: "text", after: 1 }) ?? {})).toEqual(["type", "text", "after"]);
  });
});
