/**
 * Wire drift (issue 41): what changed on an agent's own wire between two sets of recordings of
 * the same provider — two CLI versions, or two days. Read from the agent-side lanes
 * (`provider→bridge`, `bridge→provider`), never from what the bridge made of them, so a new field
 * the bridge ignores still shows. Each message is filed under its **kind**: its method, a
 * `session/update` by its `sessionUpdate`, a response by the method it answers; for each kind the
 * set of JSON paths it carries (array positions folded to `[]`) with each path's value shape.
 * Values themselves are not compared (ids, times and texts vary from run to run): what is
 * reported is a kind, a field or a shape that one side has and the other has not, once per change,
 * with the cells it appears in, and the bridge's answers to requests the agent made of it.
 */
import type { Direction } from "../recording/lane-entry.js";

/** One agent-side message: its lane, the cell it was recorded in, and the parsed JSON-RPC message. */
export interface WireMessage {
  cell: string;
  dir: Extract<Direction, "provider→bridge" | "bridge→provider">;
  message: unknown;
}

/** The shape of a value: its JSON type (`string`, `number`, `boolean`, `null`, `object`, `array`). */
export type ValueShape = "string" | "number" | "boolean" | "null" | "object" | "array";

/** What one side's wire holds, per kind. */
export interface WireProfile {
  /** Kind → cells it appears in. */
  kinds: Map<string, Set<string>>;
  /** `kind\0path` → { shapes seen, cells, one example value }. */
  fields: Map<string, { kind: string; path: string; shapes: Set<ValueShape>; cells: Set<string>; example: unknown }>;
  /** Requests the agent made of the client (`provider→bridge` with an id and a method) → how the bridge answered, per cell. */
  answers: Map<string, Map<string, string>>;
}

/** One reported change. */
export interface WireChange {
  change: "kind added" | "kind removed" | "field added" | "field removed" | "shape changed" | "answer changed";
  kind: string;
  /** The JSON path (`params.update.rawOutput.metadata.exit`), for field and shape changes. */
  path?: string;
  /** An example value from the side that has it (field changes), or the shapes `from → to`. */
  detail?: string;
  /** The cells it appears in (sorted). */
  cells: string[];
}

function shapeOf(value: unknown): ValueShape {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : (typeof value as "string" | "number" | "boolean");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Each `[path, value]` under `value` (depth-first; array positions folded to `[]`), the root excluded. */
function* paths(value: unknown, prefix: string): Generator<[string, unknown]> {
  if (Array.isArray(value)) {
    for (const item of value) {
      const at = `${prefix}[]`;
      yield [at, item];
      yield* paths(item, at);
    }
  } else if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      const at = prefix === "" ? key : `${prefix}.${key}`;
      yield [at, child];
      yield* paths(child, at);
    }
  }
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * Builds the wire profile of a set of agent-side messages (in lane order per cell). A response is
 * filed as `response to <method>` by the request of the other direction with the same id, earlier
 * in the same cell; one with no such request as `response`.
 */
export function wireProfile(messages: readonly WireMessage[]): WireProfile {
  const profile: WireProfile = { kinds: new Map(), fields: new Map(), answers: new Map() };
  const pending = new Map<string, string>();
  for (const { cell, dir, message } of messages) {
    if (!isRecord(message)) continue;
    const id = "id" in message ? `${cell}\0${dir}\0${JSON.stringify(message.id)}` : undefined;
    let kind: string;
    if (typeof message.method === "string") {
      const update = isRecord(message.params) && isRecord(message.params.update) ? message.params.update.sessionUpdate : undefined;
      kind = typeof update === "string" ? `${message.method}:${update}` : message.method;
      if (id !== undefined) pending.set(`${cell}\0${dir === "provider→bridge" ? "bridge→provider" : "provider→bridge"}\0${JSON.stringify(message.id)}`, kind);
    } else {
      const asked = id !== undefined ? pending.get(id) : undefined;
      if (id !== undefined) pending.delete(id);
      kind = asked !== undefined ? `response to ${asked}` : "response";
      if (asked !== undefined && dir === "bridge→provider") {
        const how = "error" in message ? `error ${isRecord(message.error) ? String(message.error.code) : "?"}` : "result";
        const byCell = profile.answers.get(asked) ?? new Map<string, string>();
        byCell.set(cell, how);
        profile.answers.set(asked, byCell);
      }
    }
    kind = `${dir} ${kind}`;
    const cells = profile.kinds.get(kind) ?? new Set<string>();
    cells.add(cell);
    profile.kinds.set(kind, cells);
    for (const [path, value] of paths(message, "")) {
      if (path === "jsonrpc" || path === "id") continue;
      const key = `${kind}\0${path}`;
      const field = profile.fields.get(key) ?? { kind, path, shapes: new Set<ValueShape>(), cells: new Set<string>(), example: value };
      field.shapes.add(shapeOf(value));
      field.cells.add(cell);
      profile.fields.set(key, field);
    }
  }
  return profile;
}

const sorted = (cells: Iterable<string>) => [...cells].sort();

/**
 * The changes from `from` to `to` (see the module comment), only over the cells both sides
 * recorded (`common`), so a cell one side lacks adds nothing. Fields of a kind only one side has
 * are not listed again (the kind's change says it). Sorted by kind, then change, then path.
 */
export function wireChanges(from: WireProfile, to: WireProfile, common: ReadonlySet<string>): WireChange[] {
  const within = (cells: Iterable<string>) => sorted([...cells].filter((c) => common.has(c)));
  const changes: WireChange[] = [];
  for (const [kind, cells] of to.kinds) {
    const at = within(cells);
    if (at.length > 0 && within(from.kinds.get(kind) ?? []).length === 0) changes.push({ change: "kind added", kind, cells: at });
  }
  for (const [kind, cells] of from.kinds) {
    const at = within(cells);
    if (at.length > 0 && within(to.kinds.get(kind) ?? []).length === 0) changes.push({ change: "kind removed", kind, cells: at });
  }
  const bothHave = (kind: string) => within(from.kinds.get(kind) ?? []).length > 0 && within(to.kinds.get(kind) ?? []).length > 0;
  for (const [key, field] of to.fields) {
    if (!bothHave(field.kind)) continue;
    const before = from.fields.get(key);
    const at = within(field.cells);
    if (at.length === 0) continue;
    if (before === undefined || within(before.cells).length === 0) {
      changes.push({ change: "field added", kind: field.kind, path: field.path, detail: `e.g. ${short(field.example)}`, cells: at });
    } else {
      const a = [...before.shapes].sort().join("|");
      const b = [...field.shapes].sort().join("|");
      if (a !== b) changes.push({ change: "shape changed", kind: field.kind, path: field.path, detail: `${a} → ${b}`, cells: at });
    }
  }
  for (const [key, field] of from.fields) {
    if (!bothHave(field.kind)) continue;
    const after = to.fields.get(key);
    const at = within(field.cells);
    if (at.length > 0 && (after === undefined || within(after.cells).length === 0)) {
      changes.push({ change: "field removed", kind: field.kind, path: field.path, detail: `was e.g. ${short(field.example)}`, cells: at });
    }
  }
  for (const [method, byCell] of to.answers) {
    const before = from.answers.get(method);
    const differing = sorted([...byCell].filter(([cell, how]) => common.has(cell) && before?.get(cell) !== undefined && before.get(cell) !== how).map(([cell]) => cell));
    if (differing.length > 0) {
      const first = differing[0]!;
      changes.push({ change: "answer changed", kind: `provider→bridge ${method}`, detail: `the bridge answered ${before!.get(first)} → ${byCell.get(first)}`, cells: differing });
    }
  }
  const order = ["kind added", "kind removed", "field added", "field removed", "shape changed", "answer changed"];
  return changes.sort((x, y) => x.kind.localeCompare(y.kind) || order.indexOf(x.change) - order.indexOf(y.change) || (x.path ?? "").localeCompare(y.path ?? ""));
}
