/**
 * Insertion-ordered containers with a size cap that forget their oldest entry first
 * (spec 10 §2.1, §2.4). Updating an existing entry does not refresh its position.
 */

/** A map holding at most `capacity` entries; inserting past it evicts the oldest inserted entry. */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  /** @param capacity maximum number of entries (>= 1). */
  constructor(private readonly capacity: number) {}

  /** The value stored under `key`, if any. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Whether `key` is present. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Stores `value` under `key`. A new key may evict the oldest one, which is returned so callers
   * can keep a reverse index in step; an existing key keeps its position.
   */
  set(key: K, value: V): [K, V] | undefined {
    if (this.entries.has(key)) {
      this.entries.set(key, value);
      return undefined;
    }
    this.entries.set(key, value);
    if (this.entries.size <= this.capacity) return undefined;
    const oldest = this.entries.entries().next().value as [K, V];
    this.entries.delete(oldest[0]);
    return oldest;
  }

  /** Removes `key`; returns whether it was present. */
  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.size;
  }
}

/** A set holding at most `capacity` members; adding past it forgets the oldest added member. */
export class BoundedSet<T> {
  private readonly members = new Set<T>();

  /** @param capacity maximum number of members (>= 1). */
  constructor(private readonly capacity: number) {}

  /** Whether `value` is a member. */
  has(value: T): boolean {
    return this.members.has(value);
  }

  /** Adds `value`; an existing member keeps its position. */
  add(value: T): void {
    if (this.members.has(value)) return;
    this.members.add(value);
    if (this.members.size > this.capacity) {
      const oldest = this.members.values().next().value as T;
      this.members.delete(oldest);
    }
  }

  /** Removes `value`; returns whether it was a member. */
  delete(value: T): boolean {
    return this.members.delete(value);
  }

  /** Number of members. */
  get size(): number {
    return this.members.size;
  }
}
