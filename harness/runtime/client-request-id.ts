/** Alphabet of `clientRequestId`s after `creq_` (spec 10 §1.2). */
export const CREQ_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz";

/** Length of a `clientRequestId` after `creq_` (spec 10 §1.2). */
export const CREQ_BODY_CHARS = 10;

/**
 * The n-th `clientRequestId` of a runtime run (n ≥ 1, an integer): `creq_` + n in base 32
 * over {@link CREQ_ALPHABET}, left-padded with `2` to ten characters (spec 10 §7 Fixed
 * values). The counter belongs to the caller's run, so a run's ids are reproducible.
 * Example: 1 → `creq_2222222223`.
 */
export function clientRequestIdFor(n: number): string {
  let body = "";
  let rest = n;
  do {
    body = CREQ_ALPHABET[rest % 32] + body;
    rest = Math.floor(rest / 32);
  } while (rest > 0);
  return `creq_${body.padStart(CREQ_BODY_CHARS, "2")}`;
}
