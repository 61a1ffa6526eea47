/**
 * The text of a facts file: the facts re-read through the schema (so every object's keys are in
 * the schema's order whatever order they were built in), 2-space JSON, a trailing newline.
 */
import { CellFactsSchema, type CellFacts } from "./schema.js";

/**
 * `facts` as a facts file's text, keys in schema order.
 * @throws Error (a bug of the computation, never the user's input) when `facts` does not fit the schema
 */
export function formatFacts(facts: CellFacts): string {
  const parsed = CellFactsSchema.safeParse(facts);
  if (!parsed.success) throw new Error(`computed facts of ${facts.cell} do not fit the schema: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`);
  return `${JSON.stringify(parsed.data, null, 2)}\n`;
}
