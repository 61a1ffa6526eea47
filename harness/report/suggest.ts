/**
 * "What to do" lines (spec 40 point 9): the `parity allow …` command that would accept a
 * difference and the `parity rerecord …` command that would refresh a cell.
 */
import path from "node:path";
import { allowlistPathProblem } from "../compare/pointer.js";
import { ORACLES_DIR, RECORDINGS_ROOT } from "../defaults.js";
import { formatPointer, parsePointer } from "../compare/pointer.js";
import { shellQuote } from "../../stack/protocol/text.js";
import { recordingsRootOf } from "../recording/alternates.js";

/**
 * The event selector (allowlists/README.md, "Event selectors") that names a whole added or
 * removed event: `/*[type=<type>]`, plus `[kind=<kind>]` when the event has a string `kind` and
 * `[item.type=<item type>]` when it carries an item (the narrower forms; each dropped when its
 * value cannot be written in a selector). `undefined` when the event has no string `type` or its
 * type cannot be written in a selector (holds `[` or `]`).
 */
export function eventSelectorFor(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null || Array.isArray(event)) return undefined;
  const { type, kind, item } = event as Record<string, unknown>;
  if (typeof type !== "string") return undefined;
  let selector = `/*[type=${type}]`;
  if (allowlistPathProblem(selector) !== undefined) return undefined;
  const itemType = typeof item === "object" && item !== null ? (item as Record<string, unknown>).type : undefined;
  for (const [key, value] of [
    ["kind", kind],
    ["item.type", itemType],
  ] as const) {
    if (typeof value !== "string") continue;
    const narrower = `${selector}[${key}=${value}]`;
    if (allowlistPathProblem(narrower) === undefined) selector = narrower;
  }
  return selector;
}

/**
 * The allowlist path to suggest for a lane difference, or `undefined` when no entry can mask it
 * (a counter, a whole event without a usable `type`, a broken id correspondence). A whole event
 * added (`op` `add`, value in `new`) or removed (`remove`, value in `old`) gets its event selector
 * ({@link eventSelectorFor}). A changed field gets its stable selector (`diff.selector`, which
 * survives events added elsewhere) when the diff found one that names the event on both sides;
 * otherwise its positional path, with the position as `*` when the two sides put the event at
 * different positions (a positional path masks the same position on both sides).
 */
export function suggestedAllowPath(diff: { path: string; op?: string; oldIndex?: number; newIndex?: number; old?: unknown; new?: unknown; selector?: string; ids?: unknown }): string | undefined {
  const segments = parsePointer(diff.path);
  if (segments.length === 1 && (diff.op === "add" || diff.op === "remove")) {
    return eventSelectorFor(diff.op === "add" ? diff.new : diff.old);
  }
  if (diff.ids !== undefined) return undefined;
  if (diff.selector !== undefined && allowlistPathProblem(diff.selector) === undefined) return diff.selector;
  if (allowlistPathProblem(diff.path) !== undefined) return undefined;
  if (diff.oldIndex !== undefined && diff.newIndex !== undefined && diff.oldIndex !== diff.newIndex) {
    return formatPointer(["*", ...segments.slice(1)]);
  }
  return diff.path;
}

/**
 * The `recordings` root to scope a suggested entry to (allowlists/README.md, "Entries for one
 * recordings root"): the root holding `recordingDir` (`<root>/<provider>/<cell>`, absolute),
 * relative to `projectDir` (where `parity check` runs) with `/` separators, e.g.
 * `../shared/recordings`. `undefined` for the project's own `recordings/`, where an unscoped
 * entry is the usual one.
 */
export function suggestedRecordingsRoot(recordingDir: string, projectDir: string): string | undefined {
  const root = recordingsRootOf(recordingDir);
  const relative = path.relative(path.resolve(projectDir), root).split(path.sep).join("/");
  if (relative === RECORDINGS_ROOT) return undefined;
  return relative === "" ? "." : relative;
}

/**
 * `parity allow --provider P --cell C [--recordings R] --path X --pr '#<PR>' --reason '<why>'`;
 * `--recordings` only when `recordings` is given.
 */
export function allowCommand(provider: string, cell: string, path: string, recordings?: string): string {
  return [
    "parity allow",
    `--provider ${shellQuote(provider)}`,
    `--cell ${shellQuote(cell)}`,
    ...(recordings !== undefined ? [`--recordings ${shellQuote(recordings)}`] : []),
    `--path ${shellQuote(path)}`,
    "--pr '#<PR>'",
    "--reason '<why this is intended>'",
  ].join(" ");
}

/**
 * `parity rerecord --provider P --cell C [--recordings R] [--lanes L] [--module M]`. `recordings` and
 * `lanes` are given for a cell whose recording or oracle is not the project's own
 * (`recordings/`, `lanes/`), so that running the hint refreshes the lanes the check compared
 * and never the project's.
 */
export function rerecordCommand(provider: string, cell: string, where: { recordings?: string; lanes?: string } = {}, module?: string): string {
  return [
    "parity rerecord",
    `--provider ${shellQuote(provider)}`,
    `--cell ${shellQuote(cell)}`,
    ...(where.recordings !== undefined ? [`--recordings ${shellQuote(where.recordings)}`] : []),
    ...(where.lanes !== undefined ? [`--lanes ${shellQuote(where.lanes)}`] : []),
    ...(module !== undefined ? [`--module ${shellQuote(module)}`] : []),
  ].join(" ");
}

/**
 * Spells a directory for a command-line hint run from `projectDir`: relative (with `/`) when
 * it lies inside the project, else absolute.
 */
export function hintPath(dir: string, projectDir: string): string {
  const relative = path.relative(path.resolve(projectDir), path.resolve(dir));
  if (relative === "") return ".";
  if (relative.startsWith("..") || path.isAbsolute(relative)) return path.resolve(dir);
  return relative.split(path.sep).join("/");
}

/**
 * The `--recordings`/`--lanes` of the refresh hint for a cell checked from `projectDir`
 * (spec 10 §6.6): `recordings` is the cell's root (`<root>/<provider>/<cell>` → `<root>`) when it
 * is not the project's `recordings/`; `lanes` is the oracles directory when `--lanes` was given
 * explicitly, else `<root>/lanes` for a root outside the project (whose oracle the check did not
 * read, and which rerecord would otherwise write into the project's `lanes/`).
 */
export function rerecordHintTargets(input: { recordingDir: string; projectDir: string; explicitLanesDir?: string }): { recordings?: string; lanes?: string } {
  const root = path.dirname(path.dirname(path.resolve(input.recordingDir)));
  const projectRecordings = path.resolve(input.projectDir, RECORDINGS_ROOT);
  const recordings = root === projectRecordings ? undefined : hintPath(root, input.projectDir);
  const insideProject = !path.isAbsolute(hintPath(root, input.projectDir));
  const lanes = input.explicitLanesDir !== undefined ? hintPath(input.explicitLanesDir, input.projectDir) : insideProject ? undefined : hintPath(path.join(root, ORACLES_DIR), input.projectDir);
  return { ...(recordings !== undefined ? { recordings } : {}), ...(lanes !== undefined ? { lanes } : {}) };
}

/** A difference as {@link cellAllowPaths} reads it (a reported diff, or the verdict's with values). */
interface SuggestableDiff {
  path: string;
  op?: string;
  oldIndex?: number;
  newIndex?: number;
  old?: unknown;
  new?: unknown;
  layer?: string;
}

/**
 * The allowlist paths that would accept a cell's event differences (one per distinct path, in
 * order), and whether some difference cannot be allowlisted at all (a counter, key order, an
 * event without a selectable type): then only a refresh of the oracle accepts it.
 */
export function cellAllowPaths(diffs: readonly SuggestableDiff[]): { paths: string[]; unmaskable: boolean } {
  const paths = [
    ...new Set(
      diffs
        .filter((d) => d.layer === undefined || d.layer === "events")
        .map((d) => suggestedAllowPath(d))
        .filter((p): p is string => p !== undefined),
    ),
  ];
  const unmaskable = diffs.some((d) => (d.layer !== undefined && d.layer !== "events") || suggestedAllowPath(d) === undefined);
  return { paths, unmaskable };
}
