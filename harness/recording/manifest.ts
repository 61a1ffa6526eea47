import { readFile, stat } from "node:fs/promises";
import * as z from "zod";
import { InputError } from "../errors.js";
import { LANE_DIRECTIONS, type Direction } from "./lane-entry.js";
import { parseJsonText } from "./json-text.js";
import { schemaProblem } from "./schema-issues.js";

/** File name of a recording's manifest (spec 10 §4, `manifest.json`). */
export const MANIFEST_FILE = "manifest.json";

/** Largest manifest the reader accepts, in bytes; real ones are under 1 KiB. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

const lineCount = z.number().int().nonnegative();

/**
 * The newest manifest version this project reads and writes. Version 1 is spec 10 §4's manifest
 * with this project's optional fields (`modelApi`, `workspace`, `network`, `alternateOf`); it has no
 * `manifestVersion` key, and every manifest written before version 2 is one. Version 2 adds
 * `source`. A writer stamps the lowest version that holds what it writes (a recording `parity
 * record` makes is still version 1, readable by every release), so only an imported recording
 * says `"manifestVersion": 2`. A version above this one is refused, named, before any field is read.
 */
export const MANIFEST_VERSION = 2;

/**
 * Where a recording came from when no cell script made it: `import` — `parity import` of a
 * record-mode folder; `folder` is `<record-mode folder's name>/<provider>/<thread folder>`.
 * Absent: a cell's recording (`parity record` and the tools built on it). Version 2.
 */
const SourceSchema = z.discriminatedUnion("kind", [z.strictObject({ kind: z.literal("import"), folder: z.string().min(1) })]);

/** Per-direction line counts, every direction present (zeros included). */
const LinesSchema = z.object(Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lineCount])) as Record<Direction, typeof lineCount>);

/**
 * `manifest.json` of a recording (spec 10 §4): `provider`, `cell`, `threadId` (null when
 * process-scoped), `scope`, `cliVersion` (the agent CLI's version string), `recordedAt`
 * (YYYY-MM-DD of the first `ts`), `description`, `note`, `bridgeRuns` (number of distinct
 * runs) and `lines` (entries per recorded lane, zeros included; the current lane is not counted).
 * A thread-scoped manifest must name its thread. A key outside these is refused, named (a typo
 * such as `cliversion` would otherwise be silently ignored). `manifestVersion` and `source`: see
 * {@link MANIFEST_VERSION}.
 */
export const ManifestSchema = z
  .strictObject({
    /** The manifest's version ({@link MANIFEST_VERSION}); absent: 1. */
    manifestVersion: z.number().int().min(1).max(MANIFEST_VERSION).optional(),
    provider: z.string().min(1),
    cell: z.string().min(1),
    threadId: z.string().min(1).nullable(),
    scope: z.enum(["thread", "process"]),
    cliVersion: z.string(),
    /** The model API the loopback endpoint spoke to the agent (real agents only). */
    modelApi: z.string().min(1).optional(),
    /** The cell's workspace fixture the recording was made in, by content hash (`sha256:<hex>`); the recording carries it in `workspace/`. */
    workspace: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, "expected sha256:<64 hex digits>")
      .optional(),
    /** How the run was kept on loopback (`netns`: a network namespace with only loopback; `watched`: sockets watched). */
    network: z.string().min(1).optional(),
    recordedAt: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a YYYY-MM-DD date"),
    description: z.string(),
    note: z.string(),
    bridgeRuns: z.number().int().nonnegative(),
    lines: LinesSchema,
    /**
     * Set only on an alternate path of a cell (harness/recording/alternates.ts): the cell it is an
     * alternate of (the same as `cell`), its number (≥ 2; path 1 is the cell's own recording), why
     * it was kept, and the `parity record --repeat` evidence (how many runs, which took which path).
     */
    alternateOf: z
      .strictObject({
        cell: z.string().min(1),
        path: z.number().int().min(2),
        why: z.string(),
        evidence: z.strictObject({ runs: z.number().int().positive(), paths: z.array(z.strictObject({ path: z.number().int().positive(), runs: z.array(z.number().int().positive()) })) }).optional(),
      })
      .optional(),
    /** Where the recording came from when no cell script made it (version 2; see `SourceSchema`). */
    source: SourceSchema.optional(),
  })
  .refine((m) => m.source === undefined || (m.manifestVersion ?? 1) >= 2, {
    message: `source is a version-2 field: the manifest needs "manifestVersion": 2`,
    path: ["source"],
  })
  .refine((m) => m.scope === "process" || m.threadId !== null, {
    message: "a thread-scoped manifest needs a threadId",
    path: ["threadId"],
  })
  .refine((m) => m.alternateOf === undefined || m.alternateOf.cell === m.cell, {
    message: "an alternate's alternateOf.cell must be its cell",
    path: ["alternateOf", "cell"],
  });

/** A validated recording manifest (spec 10 §4). */
export type Manifest = z.output<typeof ManifestSchema>;

/**
 * Parses manifest text (spec 10 §4). `file` is the name printed in errors.
 *
 * @throws InputError `file:line:column: …` when the text is not JSON (where and why, harness/recording/json-text.ts),
 *   of a manifest version newer than {@link MANIFEST_VERSION}, or not a valid manifest (every offending field named in plain words, `; `-separated, on one
 *   line, at the first one's place; an unknown key is named).
 */
export function parseManifest(text: string, file: string): Manifest {
  const value = parseJsonText(text, file, "manifest");
  // A newer version may hold fields this release does not know: its version is what is wrong, not them.
  const version = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { manifestVersion?: unknown }).manifestVersion : undefined;
  if (typeof version === "number" && version > MANIFEST_VERSION) {
    throw new InputError(`manifest version ${version} is newer than this bridge-parity reads (versions 1 to ${MANIFEST_VERSION}): upgrade bridge-parity to read it`, { file });
  }
  const parsed = ManifestSchema.safeParse(value);
  if (!parsed.success) {
    // Every problem at once, so one edit fixes the file; placed at the first one's line and column.
    const { problem, line, column } = schemaProblem(text, value, parsed.error.issues, "manifest");
    throw new InputError(problem, { file, line, column });
  }
  return parsed.data;
}

/**
 * Reads and validates `<file>` as a manifest (spec 10 §4).
 *
 * @throws InputError when the file is missing ("missing manifest"), larger than
 *   {@link MAX_MANIFEST_BYTES}, or invalid (see {@link parseManifest}).
 */
export async function readManifest(file: string): Promise<Manifest> {
  let bytes: Buffer;
  try {
    // Size first, so a huge file is refused without being read.
    const size = (await stat(file)).size;
    if (size > MAX_MANIFEST_BYTES) {
      throw new InputError(`manifest is ${size} bytes; more than the ${MAX_MANIFEST_BYTES}-byte limit`, { file });
    }
    bytes = await readFile(file);
  } catch (thrown) {
    if (thrown instanceof InputError) throw thrown;
    const code = (thrown as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new InputError(`missing ${MANIFEST_FILE}: every recording needs one`, { file });
    throw new InputError(`cannot read manifest (${code ?? String(thrown)})`, { file });
  }
  return parseManifest(bytes.toString("utf8"), file);
}
