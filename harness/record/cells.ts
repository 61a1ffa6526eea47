/**
 * Cell definitions (00-product.md `cells/`: "scenario definitions: runtime script, workspace
 * fixture, approval answers, model script"). One cell is one directory
 * `cells/<cell>/` holding `cell.json` and, optionally, `workspace/` (files copied into a fresh
 * temp working directory before the cell runs).
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { InputError, UsageError } from "../errors.js";
import { excerpt } from "../recording/lane-entry.js";
import { CellStepSchema, InteractionAnswerSchema } from "../runtime/cell-driver.js";
import { ModelScriptSchema } from "../model-server/script.js";

/** File name of a cell's definition inside `cells/<cell>/`. */
export const CELL_FILE = "cell.json";
/** Directory of a cell's workspace fixture inside `cells/<cell>/`. */
export const CELL_WORKSPACE_DIR = "workspace";
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
  /** `cells/<cell>/cell.json`. */
  file: string;
  /** `cells/<cell>/workspace`, or null when the cell has no fixture. */
  workspace: string | null;
  definition: CellDefinition;
}

/**
 * Parses a cell definition's text. `file` names the file in errors.
 * @throws InputError `file: invalid cell: field \`steps.2.text\`: …` (the first offending field), or not JSON.
 */
export function parseCellDefinition(text: string, file: string): CellDefinition {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`cell definition is not valid JSON: ${excerpt(text)}`, { file });
  }
  const parsed = CellDefinitionSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(cell)";
    throw new InputError(`invalid cell: field \`${field}\`: ${issue?.message ?? "invalid"}`, { file });
  }
  return parsed.data;
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
 * Loads and validates `cells/<name>/cell.json`.
 * @throws UsageError for a bad or unknown cell name (listing the known ones);
 *   InputError naming the file and field for an invalid definition.
 */
export async function loadCell(cellsRoot: string, name: string): Promise<Cell> {
  if (!CELL_NAME_PATTERN.test(name)) throw new UsageError(`--cell "${name}": a cell name is lowercase words joined by dashes`);
  const file = path.join(cellsRoot, name, CELL_FILE);
  if (!existsSync(file)) {
    const known = await listCells(cellsRoot);
    throw new UsageError(`unknown cell "${name}" (no ${path.join(cellsRoot, name, CELL_FILE)}); known: ${known.join(", ") || "none"}`);
  }
  const definition = parseCellDefinition(await readFile(file, "utf8"), file);
  const workspace = path.join(cellsRoot, name, CELL_WORKSPACE_DIR);
  return { name, file, workspace: existsSync(workspace) ? workspace : null, definition };
}
