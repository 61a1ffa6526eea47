/**
 * Cell definitions (docs/design/00-product.md `cells/`: "scenario definitions: runtime script, workspace
 * fixture, approval answers, model script"). One cell is one directory
 * `cells/<cell>/` holding `cell.json` and, optionally, `workspace/` (files copied into a fresh
 * temp working directory before the cell runs) and `providers/<provider>.json` (a provider's
 * variant of the cell, see {@link loadCell}).
 *
 * Why variants: a bridge that is not an agent (the echo) cannot be asked in words to do no
 * work or to hold a turn open; it has its own prompts for that (`/clear`, `/hold …`). Its
 * variant says what it is sent, so `parity record --provider echo --cell <cell>` reproduces
 * the committed echo recording, while every other provider still runs `cell.json` unchanged.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { InputError, UsageError } from "../errors.js";
import { parseJsonText } from "../recording/json-text.js";
import { schemaProblem } from "../recording/schema-issues.js";
import { CellStepSchema, InteractionAnswerSchema } from "./cell-driver.js";
import { ModelScriptSchema } from "../model-server/script.js";

/** File name of a cell's definition inside `cells/<cell>/`. */
export const CELL_FILE = "cell.json";
/** Directory of a cell's workspace fixture inside `cells/<cell>/`. */
export const CELL_WORKSPACE_DIR = "workspace";
/** Directory of a cell's per-provider variants inside `cells/<cell>/` (`<provider>.json`). */
export const CELL_VARIANT_DIR = "providers";
/** Cell names: lowercase words joined by dashes (they become directory and file names). */
export const CELL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * `cells/<cell>/cell.json`: `description` (the manifest's), `threadId` (the recorded thread),
 * `scope` (`process` for cells of no thread, e.g. model-list), `recordThread` (the thread
 * packaged when the script forks; default `threadId`), `options` (execution options of every
 * request; a provider's launch options go under them), `steps` (the runtime script),
 * `answers` (approval and question answers, in order), `model` (the model script for agents
 * that take a model endpoint), `note` (added to the manifest note).
 */
export const CellDefinitionSchema = z
  .strictObject({
    description: z.string().min(1),
    threadId: z.string().min(1),
    scope: z.enum(["thread", "process"]).default("thread"),
    recordThread: z.string().min(1).optional(),
    options: z.record(z.string(), z.unknown()).default({}),
    steps: z.array(CellStepSchema).min(1),
    answers: z.array(InteractionAnswerSchema).default([]),
    model: ModelScriptSchema.optional(),
    note: z.string().default(""),
  })
  .refine((c) => c.steps[0]?.op === "initialize", { message: "the first step must be initialize", path: ["steps", 0, "op"] });

/** A validated cell definition. */
export type CellDefinition = z.output<typeof CellDefinitionSchema>;

/** A loaded cell: its name, files and definition. */
export interface Cell {
  name: string;
  /** `cells/<cell>/cell.json`, or the provider's variant file when the cell has no `cell.json`. */
  file: string;
  /** `cells/<cell>/providers/<provider>.json` when the definition came from (or over) that variant, else null. */
  variantFile: string | null;
  /** `cells/<cell>/workspace`, or null when the cell has no fixture. */
  workspace: string | null;
  definition: CellDefinition;
}

/**
 * Parses a cell definition's text. `file` names the file in errors.
 * @throws InputError `file: invalid cell: field \`steps.2.text\`: …` (the first offending field), or not JSON.
 */
export function parseCellDefinition(text: string, file: string): CellDefinition {
  return validateCellDefinition(parseCellJson(text, file, "cell definition"), file, text);
}

/** JSON of a cell file, or InputError naming `file` (`what` is the kind of file, for the message). */
function parseCellJson(text: string, file: string, what: string): unknown {
  return parseJsonText(text, file, what);
}

/**
 * `value` validated as a cell definition. `text`: the file's text, when the value is that file
 * as it is (then the message has the line and column of the first bad field).
 */
function validateCellDefinition(value: unknown, file: string, text?: string): CellDefinition {
  const parsed = CellDefinitionSchema.safeParse(value);
  if (!parsed.success) {
    const { problem, line, column } = schemaProblem(text ?? "", value, parsed.error.issues, "cell");
    throw new InputError(problem, text !== undefined ? { file, line, column } : { file });
  }
  return parsed.data;
}

/** The variant file of (cell, provider): `<cellsRoot>/<cell>/providers/<provider>.json`. */
export function cellVariantPath(cellsRoot: string, cell: string, providerId: string): string {
  return path.join(cellsRoot, cell, CELL_VARIANT_DIR, `${providerId}.json`);
}

/**
 * A provider's variant of a cell: a JSON object whose top-level fields replace `cell.json`'s
 * (each field whole: a variant's `steps` is the complete script). With no `cell.json` the
 * variant is the whole definition, a cell only that provider records. The result is validated
 * as a cell definition; errors name the variant file.
 * @throws InputError when the variant is not a JSON object or the merged definition is invalid.
 */
export function mergeCellVariant(base: Record<string, unknown>, variantText: string, variantFile: string): CellDefinition {
  const variant = parseCellJson(variantText, variantFile, "cell variant");
  if (typeof variant !== "object" || variant === null || Array.isArray(variant)) {
    throw new InputError("invalid cell variant: expected a JSON object of cell.json fields to replace", { file: variantFile });
  }
  return validateCellDefinition({ ...base, ...(variant as Record<string, unknown>) }, variantFile);
}

/**
 * `cell` with `variant` (cell.json fields to replace, as a variant file holds) applied over its
 * definition: an agent profile's `cells` entry (harness/families/agent-profile.ts).
 * @throws InputError naming `source` when the result is no valid cell definition
 */
export function applyCellVariant(cell: Cell, variant: Readonly<Record<string, unknown>>, source: string): Cell {
  return { ...cell, definition: validateCellDefinition({ ...(cell.definition as unknown as Record<string, unknown>), ...variant }, source) };
}

/** The cell names under `cellsRoot` (directories holding a `cell.json`), sorted. */
export async function listCells(cellsRoot: string): Promise<string[]> {
  if (!existsSync(cellsRoot)) return [];
  const entries = await readdir(cellsRoot, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(path.join(cellsRoot, e.name, CELL_FILE)))
    .map((e) => e.name)
    .sort();
}

/**
 * Loads and validates `cells/<name>/cell.json`; with `providerId`, that provider's variant
 * `cells/<name>/providers/<providerId>.json` replaces the fields it names (see
 * {@link mergeCellVariant}); a cell with only a variant exists for that provider alone.
 * Without a variant (or without `providerId`) the result is `cell.json`'s, as before.
 * @throws UsageError for a bad or unknown cell name (listing the known ones);
 *   InputError naming the file and field for an invalid definition or variant.
 */
export async function loadCell(cellsRoot: string, name: string, providerId?: string): Promise<Cell> {
  if (!CELL_NAME_PATTERN.test(name)) throw new UsageError(`--cell "${name}": a cell name is lowercase words joined by dashes`);
  const file = path.join(cellsRoot, name, CELL_FILE);
  const variantFile = providerId === undefined ? null : cellVariantPath(cellsRoot, name, providerId);
  const hasVariant = variantFile !== null && existsSync(variantFile);
  if (!existsSync(file) && !hasVariant) {
    const known = await listCells(cellsRoot);
    const only = await variantsOf(cellsRoot, name);
    const hint = only.length > 0 ? `; cells/${name} has a variant only for ${only.join(", ")}` : "";
    throw new UsageError(`unknown cell "${name}" (no ${file})${hint}; known: ${known.join(", ") || "none"}`);
  }
  const workspace = path.join(cellsRoot, name, CELL_WORKSPACE_DIR);
  const workspaceDir = existsSync(workspace) ? workspace : null;
  if (!hasVariant) {
    const definition = parseCellDefinition(await readFile(file, "utf8"), file);
    return { name, file, variantFile: null, workspace: workspaceDir, definition };
  }
  const baseText = existsSync(file) ? await readFile(file, "utf8") : undefined;
  const base = baseText !== undefined ? parseCellJson(baseText, file, "cell definition") : {};
  // cell.json is validated on its own first, so its own mistakes are reported against it, at their place.
  if (baseText !== undefined) validateCellDefinition(base, file, baseText);
  const definition = mergeCellVariant(base as Record<string, unknown>, await readFile(variantFile, "utf8"), variantFile);
  return { name, file: existsSync(file) ? file : variantFile, variantFile, workspace: workspaceDir, definition };
}

/** Providers with a variant of `name` (`providers/*.json` file stems), sorted; [] when none. */
async function variantsOf(cellsRoot: string, name: string): Promise<string[]> {
  const dir = path.join(cellsRoot, name, CELL_VARIANT_DIR);
  if (!existsSync(dir)) return [];
  return (await readdir(dir))
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}
