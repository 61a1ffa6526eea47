/**
 * Stable addresses of events in a thread lane (allowlists/README.md, "Stable selectors"): where an
 * event sits in the thread as a runtime shows it — its turn, its item and which of that item's
 * events it is — instead of its position in the lane. An event inserted elsewhere (another item,
 * a thread-state event, an earlier item of another type) leaves the address unchanged, where it
 * would shift every later position.
 *
 * - turn: 1-based, turns numbered by the first appearance of their `scope.turnId`; `thread` for
 *   thread-scoped events; absent for events without a scope;
 * - item: the item's type and its 1-based ordinal among the items of that type in the same turn,
 *   by first appearance of the item id (`item.id`, or `itemId` for deltas); also its ordinal
 *   among all items of the turn, for a change of the item's type itself;
 * - the event's `type` (and its top-level string `kind`, when it has one);
 * - n: 1-based among the events of the lane sharing all of the above, with the count.
 */
import { formatSelector, selectEvents, writableValue, type SelectorPredicate } from "./event-selector.js";
import { isRecord } from "../../stack/protocol/json-value.js";

/** The stable address of one event. */
export interface EventAddress {
  turn?: number | "thread";
  /** `ordinal`: among the turn's items of this type; `index`: among all the turn's items (both 1-based). */
  item?: { type: string; ordinal: number; index: number };
  type: string;
  kind?: string;
  /** 1-based among events with the same turn, item, type and kind. */
  n: number;
  /** How many events share that turn, item, type and kind. */
  of: number;
}

type Fields = Record<string, unknown>;

/** The item id an event is about: `item.id`, else `itemId`. */
function itemIdOf(event: Fields): string | undefined {
  if (isRecord(event.item) && (typeof event.item.id === "string" || typeof event.item.id === "number")) return String(event.item.id);
  if (typeof event.itemId === "string" || typeof event.itemId === "number") return String(event.itemId);
  return undefined;
}

/** The item type: `item.type`, else the type learned from another event of the same item id, else the delta's own (`item/<type>/…`). */
function itemTypeOf(event: Fields, id: string, known: Map<string, string>): string {
  if (isRecord(event.item) && typeof event.item.type === "string") return event.item.type;
  const learned = known.get(id);
  if (learned !== undefined) return learned;
  const fromType = typeof event.type === "string" ? /^item\/([^/]+)\/./.exec(event.type)?.[1] : undefined;
  return fromType ?? "item";
}

/**
 * The address of every event of `lane`, in lane order. Works on raw or normalized lanes; a
 * non-object element gets type `?` and no turn.
 *
 * Memory (issue 25, `parity diff` of two 200k-event lanes): each address is built once with
 * one shape, and the events of one item share one `item` object (addresses are read, never
 * written); an event's `of` is filled from its group's counter at the end, so no per-event key
 * text outlives its lookup. About a fifth of the heap of building each address twice.
 */
export function laneAddresses(lane: readonly unknown[]): EventAddress[] {
  const knownTypes = new Map<string, string>();
  for (const event of lane) {
    if (!isRecord(event) || !isRecord(event.item)) continue;
    const id = itemIdOf(event);
    if (id !== undefined && typeof event.item.type === "string" && !knownTypes.has(id)) knownTypes.set(id, event.item.type);
  }
  const turns = new Map<string, number>();
  // per turn key → item type → item id → ordinal; per turn key → item id → index
  const items = new Map<string, Map<string, Map<string, number>>>();
  const itemIndex = new Map<string, Map<string, number>>();
  // per turn key → item type → item id → the item's one address part
  const itemParts = new Map<string, NonNullable<EventAddress["item"]>>();
  const groups = new Map<string, { count: number }>();
  const groupOf: Array<{ count: number }> = [];
  const addresses = lane.map((event, at): EventAddress => {
    const group = (key: string): number => {
      let counter = groups.get(key);
      if (counter === undefined) groups.set(key, (counter = { count: 0 }));
      counter.count += 1;
      groupOf[at] = counter;
      return counter.count;
    };
    if (!isRecord(event)) {
      groupOf[at] = { count: 1 };
      return { type: "?", n: 1, of: 1 };
    }
    const type = typeof event.type === "string" ? event.type : "?";
    const scope = isRecord(event.scope) ? event.scope : undefined;
    let turn: number | "thread" | undefined;
    if (scope?.kind === "thread") turn = "thread";
    else if (scope !== undefined && (typeof scope.turnId === "string" || typeof scope.turnId === "number")) {
      const turnId = String(scope.turnId);
      turn = turns.get(turnId);
      if (turn === undefined) {
        turn = turns.size + 1;
        turns.set(turnId, turn);
      }
    }
    const turnKey = String(turn ?? "-");
    let item: EventAddress["item"];
    const id = itemIdOf(event);
    if (id !== undefined) {
      const itemType = itemTypeOf(event, id, knownTypes);
      let byType = items.get(turnKey);
      if (byType === undefined) items.set(turnKey, (byType = new Map()));
      let ids = byType.get(itemType);
      if (ids === undefined) byType.set(itemType, (ids = new Map()));
      let ordinal = ids.get(id);
      if (ordinal === undefined) ids.set(id, (ordinal = ids.size + 1));
      let indexes = itemIndex.get(turnKey);
      if (indexes === undefined) itemIndex.set(turnKey, (indexes = new Map()));
      let index = indexes.get(id);
      if (index === undefined) indexes.set(id, (index = indexes.size + 1));
      const partKey = JSON.stringify([turnKey, itemType, id]);
      item = itemParts.get(partKey);
      if (item === undefined || item.ordinal !== ordinal || item.index !== index) itemParts.set(partKey, (item = { type: itemType, ordinal, index }));
    }
    const kind = typeof event.kind === "string" ? event.kind : undefined;
    const n = group(JSON.stringify([turnKey, item?.type ?? null, item?.ordinal ?? null, type, kind ?? null]));
    return { type, ...(turn !== undefined ? { turn } : {}), ...(item !== undefined ? { item } : {}), ...(kind !== undefined ? { kind } : {}), n, of: 1 };
  });
  addresses.forEach((address, at) => (address.of = groupOf[at]!.count));
  return addresses;
}

function fieldText(segments: readonly string[]): string {
  return segments.map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join("");
}

/**
 * The address for people: `turn 2 / commandExecution 1 / item/completed: item.exitCode`;
 * `thread / thread/extensionState/updated [bb/session-options]` for a whole thread event; the event
 * type gets `#n` when the item (or turn) has several events of that type.
 */
export function formatAddress(address: EventAddress, field: readonly string[] = []): string {
  const parts: string[] = [];
  if (address.turn !== undefined) parts.push(address.turn === "thread" ? "thread" : `turn ${address.turn}`);
  if (address.item !== undefined) parts.push(`${address.item.type} ${address.item.ordinal}`);
  let event = address.type;
  if (address.kind !== undefined) event += ` [${address.kind}]`;
  if (address.of > 1) event += ` #${address.n}`;
  parts.push(event);
  const text = parts.join(" / ");
  return field.length === 0 ? text : `${text}: ${fieldText(field)}`;
}

/**
 * The selector (event-selector.ts) that picks event `index` of `lane` by its address, with the
 * decoded `field` path appended: `/*[turn=2][item=commandExecution:1][type=item/completed]/item/exitCode`.
 * `[n=k]` is added only when the other predicates pick more than that one event. With
 * `untypedItem` the item is named by its position in the turn (`[item=3]`) instead of its type
 * and ordinal, for a change of the item's type itself. A `kind` that
 * cannot be written as a predicate value is left out (then `n` disambiguates). `undefined` when
 * the event's type cannot be written (it holds `[` or `]`) or the event is not an object.
 */
export function stableSelector(
  lane: readonly unknown[],
  addresses: readonly EventAddress[],
  index: number,
  field: readonly string[] = [],
  options: { untypedItem?: boolean } = {},
): string | undefined {
  const address = addresses[index];
  if (address === undefined || !isRecord(lane[index]) || address.type === "?" || !writableValue(address.type)) return undefined;
  const predicates: SelectorPredicate[] = [];
  if (address.turn !== undefined) predicates.push({ key: "turn", value: String(address.turn) });
  if (address.item !== undefined && options.untypedItem === true) {
    predicates.push({ key: "item", value: String(address.item.index) });
  } else if (address.item !== undefined && writableValue(address.item.type) && !address.item.type.includes(":")) {
    predicates.push({ key: "item", value: `${address.item.type}:${address.item.ordinal}` });
  }
  predicates.push({ key: "type", value: address.type });
  if (address.kind !== undefined && writableValue(address.kind)) predicates.push({ key: "kind", value: address.kind });
  // A whole-event selector must start with its type (event-selector.ts).
  if (field.length === 0) predicates.sort((a, b) => Number(b.key === "type") - Number(a.key === "type"));
  const picked = selectEvents(lane, { predicates, field: [] }, addresses);
  if (picked.length > 1) predicates.push({ key: "n", value: String(picked.indexOf(index) + 1) });
  return formatSelector(predicates, field);
}
