/**
 * The shape every benchmark module exports, so `bench/run.ts` can run them in turn and later
 * benches (replay, check) are sibling modules added to its list.
 */

/** Flags shared by every bench, parsed once by `run.ts`. */
export interface BenchFlags {
  /** `--flag value` pairs as given (e.g. `{"--deltas": "1000000"}`). */
  values: ReadonlyMap<string, string>;
  /** Package root (where `package.json` lives); `../shared/...` resolves against it. */
  packageRoot: string;
  /** Writes progress and the table (stdout). */
  print(text: string): void;
}

/** What a bench reports: its JSON line object and whether its target was met. */
export interface BenchOutcome {
  /** Printed as one JSON line; must contain `bench: <name>`. */
  json: { bench: string } & Record<string, unknown>;
  /** False when a stated target was missed (the process then exits 1). */
  targetMet: boolean;
}

/** One benchmark. */
export interface Bench {
  /** Name used by `--bench <name>` and in the JSON line. */
  name: string;
  /** Flags this bench reads, for the usage error. */
  flags: readonly string[];
  /** Runs the bench, printing its table through `flags.print`. @throws Error on bad flags or input. */
  run(flags: BenchFlags): Promise<BenchOutcome>;
}

/**
 * The value of `--<name> <n>` as a whole number ≥ 1, or `fallback` when the flag is absent.
 * @throws Error naming the flag and value otherwise.
 */
export function positiveInt(flags: BenchFlags, name: string, fallback: number): number {
  const text = flags.values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} ${text}: expected a whole number ≥ 1`);
  return value;
}
