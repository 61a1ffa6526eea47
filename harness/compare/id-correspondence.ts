/**
 * Id correspondence of two aligned lanes (allowlists/README.md, "How lanes are compared"): ids
 * are interned per lane (spec 10 §6.3 step 4), so the same thread can number them differently
 * on each side. Aligned events must map ids one to one: old `#5` always with new `#6` and
 * nothing else. The first pairing of an id fixes its partner; a later pairing that contradicts
 * it is a broken correspondence, reported once per (old id, new id) pair.
 */
import { idPairs, isIdValue } from "./skeleton.js";

/** Suffix of a new-side id that corresponds to no old-side id (only in the new lane), when shown in old numbering. */
export const NEW_ONLY_ID_MARK = "'";

/** A copy of `event` with each id shown in the old side's numbering (`#4'` when it has no old partner). */
export function inOldNumbering(event: unknown, newToOld: ReadonlyMap<string, string>): unknown {
  const walk = (value: unknown, parentKey: string | undefined): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, undefined));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (isIdValue(key, parentKey, child)) out[key] = newToOld.get(String(child)) ?? `${String(child)}${NEW_ONLY_ID_MARK}`;
      else out[key] = walk(child, key);
    }
    return out;
  };
  return walk(event, undefined);
}

/** A pairing of two ids that contradicts an earlier one, at `segments` inside the new event. */
export interface BrokenCorrespondence {
  segments: string[];
  old: string;
  new: string;
  /** What `old` was paired with before, when it was. */
  oldPairedWith?: string;
  /** What `new` was paired with before, when it was. */
  newPairedWith?: string;
}

/** The id maps of one comparison; feed it aligned events in lane order. */
export class IdCorrespondence {
  private readonly oldToNew = new Map<string, string>();
  private readonly newToOld = new Map<string, string>();
  private readonly reported = new Set<string>();

  /** The new-side id each old-side id corresponds to, as fixed so far (new id → old id). */
  newToOldIds(): ReadonlyMap<string, string> {
    return this.newToOld;
  }

  /**
   * Records the ids two aligned events hold at the same places and returns the pairings that
   * break the correspondence, each (old id, new id) pair at most once per comparison.
   */
  pair(oldEvent: unknown, newEvent: unknown): BrokenCorrespondence[] {
    const broken: BrokenCorrespondence[] = [];
    for (const pair of idPairs(oldEvent, newEvent)) {
      const partnerOfOld = this.oldToNew.get(pair.old);
      const partnerOfNew = this.newToOld.get(pair.new);
      if (partnerOfOld === undefined && partnerOfNew === undefined) {
        this.oldToNew.set(pair.old, pair.new);
        this.newToOld.set(pair.new, pair.old);
        continue;
      }
      if (partnerOfOld === pair.new) continue;
      const key = JSON.stringify([pair.old, pair.new]);
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      broken.push({
        segments: pair.segments,
        old: pair.old,
        new: pair.new,
        ...(partnerOfOld !== undefined ? { oldPairedWith: partnerOfOld } : {}),
        ...(partnerOfNew !== undefined ? { newPairedWith: partnerOfNew } : {}),
      });
    }
    return broken;
  }
}
