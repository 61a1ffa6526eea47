/**
 * What the truth judge reads from a thread lane (issue 37, build point 1): the completed items
 * that stand for the script's tool calls, each classed as a command, a file change or a read as
 * the lanes of every provider show them, and each turn's end with its errors. Works on the
 * normalized lane (`harness/lanes/normalize.ts`): ids interned, the workspace at its recorded path.
 */
import { isRecord } from "../../../stack/protocol/json-value.js";
import { formatAddress, laneAddresses } from "../address.js";

/** The class of a lane item, matched in order with the facts' steps of that class. */
export type ItemClass = "command" | "file" | "read";

/** One completed item of the lane with its class, its address for people, and its lane position. */
export interface LaneItem {
  cls: ItemClass;
  item: Record<string, unknown>;
  /** `turn 1 / commandExecution 1 / item/completed` */
  address: string;
  /** Position of its `item/completed` event in the lane. */
  index: number;
}

/** One turn of the lane: its 1-based number, how it ended (absent: no `turn/completed`), its error, and the typed errors reported in it. */
export interface LaneTurn {
  n: number;
  status?: string;
  error?: unknown;
  /** `provider/error` events of the turn, in order. */
  errors: Array<Record<string, unknown>>;
  /** The text of each `agentMessage` the turn completed, in order. */
  texts: string[];
  address: string;
}

/** The items and turns of a lane, in lane order. */
export interface LaneView {
  items: LaneItem[];
  turns: LaneTurn[];
}

const READ_TOOL = /^(read|read_?file|view|view_?file|cat)$/i;
const EDIT_TOOL = /^(edit|write|edit_?file|write_?file|multi_?edit|str_replace\w*|apply_?patch|create_?file|replace)$/i;

/**
 * The class of an item, or undefined for items that stand for no tool call of the script
 * (messages, reasoning, plans, …): `commandExecution` is a command; `fileChange` a file change;
 * `fileRead` a read; a `toolCall` by its tool's name (`read`, `edit`, …) or, carrying a
 * `command` argument, a command (an adapter that names every shell call `other`).
 */
export function itemClass(item: Record<string, unknown>): ItemClass | undefined {
  switch (item.type) {
    case "commandExecution":
      return "command";
    case "fileChange":
      return "file";
    case "fileRead":
      return "read";
    case "toolCall": {
      const tool = typeof item.tool === "string" ? item.tool : "";
      const args = isRecord(item.arguments) ? item.arguments : {};
      if (typeof args.command === "string") return "command";
      if (READ_TOOL.test(tool)) return "read";
      if (EDIT_TOOL.test(tool)) return "file";
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The items and turns of `lane` (normalized thread events). */
export function laneView(lane: readonly unknown[]): LaneView {
  const addresses = laneAddresses(lane);
  const items: LaneItem[] = [];
  const turns: LaneTurn[] = [];
  const turnOf = new Map<string, LaneTurn>();
  const turnFor = (event: Record<string, unknown>, index: number): LaneTurn | undefined => {
    const scope = isRecord(event.scope) ? event.scope : undefined;
    if (scope?.kind !== "turn" || typeof scope.turnId !== "string") return undefined;
    let turn = turnOf.get(scope.turnId);
    if (turn === undefined) {
      const address = addresses[index]!;
      turn = { n: turns.length + 1, errors: [], texts: [], address: typeof address.turn === "number" ? `turn ${address.turn}` : `turn ${turns.length + 1}` };
      turnOf.set(scope.turnId, turn);
      turns.push(turn);
    }
    return turn;
  };
  lane.forEach((event, index) => {
    if (!isRecord(event)) return;
    const turn = turnFor(event, index);
    if (event.type === "item/completed" && isRecord(event.item)) {
      if (event.item.type === "agentMessage" && typeof event.item.text === "string") turn?.texts.push(event.item.text);
      const cls = itemClass(event.item);
      if (cls !== undefined) items.push({ cls, item: event.item, address: formatAddress(addresses[index]!), index });
    } else if (event.type === "turn/completed" && turn !== undefined) {
      if (typeof event.status === "string") turn.status = event.status;
      if (event.error !== undefined) turn.error = event.error;
    } else if (event.type === "provider/error" && turn !== undefined) {
      turn.errors.push(event);
    }
  });
  return { items, turns };
}

/** The text of a read item or a tool call's result: `resultText` (the fileRead item), `content`, `text`, `result` (a string, `{content}` or content blocks' text). */
export function resultText(item: Record<string, unknown>): string | undefined {
  for (const key of ["resultText", "content", "text", "output"]) if (typeof item[key] === "string") return item[key];
  return blockText(item.result);
}

function blockText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const texts = value.map((block) => (isRecord(block) && typeof block.text === "string" ? block.text : undefined));
    return texts.every((t) => t !== undefined) && texts.length > 0 ? texts.join("") : undefined;
  }
  if (isRecord(value)) {
    if (value.content !== undefined) return blockText(value.content);
    if (typeof value.output === "string") return value.output;
    if (typeof value.text === "string") return value.text;
  }
  return undefined;
}
