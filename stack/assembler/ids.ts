/**
 * Id minting and provider↔bb id maps (spec 10 §2.1).
 *
 * Ids look like `<prefix>-t<N>` (turns) and `<prefix>-i<N>` (items). The counters belong to one
 * assembler instance, are shared by all its threads and are never reset.
 */
import { BoundedMap } from "./bounded.js";

/** Mints the assembler's turn and item ids. */
export interface IdMinter {
  /** Next turn id, `<prefix>-t<N>`. */
  nextTurnId(): string;
  /** Next item id, `<prefix>-i<N>`. */
  nextItemId(): string;
}

/** Creates an id minter with its own counters, both starting at 1 (spec 10 §2.1). */
export function createIdMinter(prefix: string): IdMinter {
  let turns = 0;
  let items = 0;
  return {
    nextTurnId: () => `${prefix}-t${++turns}`,
    nextItemId: () => `${prefix}-i${++items}`,
  };
}

/**
 * A provider id ↔ bb id map of one thread, capped at `capacity` entries with the oldest inserted
 * evicted first; re-registering a provider id does not refresh it (spec 10 §2.1).
 */
export class IdMap {
  private readonly byProvider: BoundedMap<string, string>;
  private readonly byBb = new Map<string, string>();

  /** @param capacity maximum number of pairs. */
  constructor(capacity: number) {
    this.byProvider = new BoundedMap(capacity);
  }

  /** The bb id mapped from `providerId`. */
  bbId(providerId: string): string | undefined {
    return this.byProvider.get(providerId);
  }

  /** The provider id mapped to `bbId`. */
  providerId(bbId: string): string | undefined {
    return this.byBb.get(bbId);
  }

  /** Registers `providerId` → `bbId`, replacing an older mapping of the same provider id. */
  register(providerId: string, bbId: string): void {
    const previous = this.byProvider.get(providerId);
    if (previous !== undefined && previous !== bbId && this.byBb.get(previous) === providerId) this.byBb.delete(previous);
    const evicted = this.byProvider.set(providerId, bbId);
    if (evicted && this.byBb.get(evicted[1]) === evicted[0]) this.byBb.delete(evicted[1]);
    this.byBb.set(bbId, providerId);
  }
}
