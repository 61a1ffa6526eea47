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

/** Per-direction line counts, every direction present (zeros included). */
const LinesSchema = z.object(Object.fromEntries(LANE_DIRECTIONS.map((d) => [d, lineCount])) as Record<Direction, typeof lineCount>);

/**
 * `manifest.json` of a recording (spec 10 §4): `provider`, `cell`, `threadId` (null when
 * process-scoped), `scope`, `cliVersion` (the agent CLI's version string), `recordedAt`
 * (YYYY-MM-DD of the first `ts`), `description`, `note`, `bridgeRuns` (number of distinct
 * runs) and `lines` (entries per recorded lane, zeros included; the current lane is not counted).
 * A thread-scoped manifest must name its thread. A key outside these is refused, named (a typo
 * such as `cliversion` would otherwise be silently ignored).
 */
export const ManifestSchema = z
  .strictObject({
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
 * @throws InputError `file:line:column: …` when the text is not JSON (where and why, harness/recording/json-text.ts)
 *   or not a valid manifest (every offending field named in plain words, `; `-separated, on one
 *   line, at the first one's place; an unknown key is named).
 */
export function parseManifest(text: string, file: string): Manifest {
  const value = parseJsonText(text, file, "manifest");
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
