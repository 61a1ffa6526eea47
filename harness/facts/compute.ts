/**
 * Computing a cell's facts (issue 37, build point 1): every tool call of the cell's model script
 * (or a provider variant's), in script order, done for real in a copy of the cell's workspace:
 *
 * - `bash` (command): run in the sandbox agents are recorded in (sandbox.ts), earlier steps'
 *   file effects applied; stdout, stderr, exit code or signal; not run when the cell denies it;
 * - `read`: the file's bytes; `edit` (`oldString` → `newString`, `replaceAll`) and `write`
 *   (`content`): the file before and after, applied to the copy as the tool would (a new file
 *   in a new folder: before null, created true);
 * - every other tool (web search, subagent task, user question, …): `kind: "other"`, no local truth.
 *
 * Tool names and arguments are the script's canonical ones (opencode's: `filePath`,
 * `oldString`, …); agent profiles spell them per agent (families/agent-profile.ts), so facts are
 * per canonical call. Which calls ask for approval: the cell's approval answers, in order, one
 * per call that can ask (command, edit, write) — the cell gives them in arrival order.
 * The absolute workspace, home and TMPDIR paths in any text become `{{cwd}}`, `{{home}}`, `{{tmp}}`.
 */
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Scheduler } from "../../stack/bridge-kit/scheduler.js";
import { InputError } from "../errors.js";
import { fillTemplate, type ModelToolCall } from "../model-server/script.js";
import type { NetworkIsolation } from "../record/network.js";
import { loadCell, type Cell } from "../runtime/cells.js";
import { makeSandboxDirs, runSandboxed, type SandboxDirs } from "./sandbox.js";
import type { ApprovalDecision, CellFacts, FactStep, FileChangeFact } from "./schema.js";
import { factsSource } from "./source.js";
import { modelFact, turnFacts } from "./turns.js";

/** Which kind of fact each canonical tool gives; every other tool is `other`. */
const KIND_OF_TOOL: Readonly<Record<string, "command" | "read" | "edit" | "write">> = { bash: "command", read: "read", edit: "edit", write: "write" };

/** Names a script may give a tool's path argument besides opencode's `filePath` (a custom agent's own spelling). */
const PATH_ALIASES = ["filePath", "file_path", "path"] as const;

/** The arguments with the path under its canonical name `filePath`. */
function canonicalArguments(args: Record<string, unknown>): Record<string, unknown> {
  const alias = PATH_ALIASES.find((name) => typeof args[name] === "string");
  return alias === undefined ? args : { ...args, filePath: args[alias] };
}

/**
 * Whether a call of a canonical tool name carries what its fact needs (a command; a path); a
 * cell written for one agent's own tools (a custom agent's `read` with other arguments) gives
 * an `other` fact rather than a wrong one.
 */
function takesCanonicalArguments(kind: "command" | "read" | "edit" | "write", args: Record<string, unknown>): boolean {
  if (kind === "command") return typeof args.command === "string";
  return PATH_ALIASES.some((name) => typeof args[name] === "string");
}

/** What {@link computeCellFacts} needs. */
export interface ComputeFactsRequest {
  cellsRoot: string;
  cell: string;
  /** A provider with a variant `cells/<cell>/providers/<variant>.json`, or null for `cell.json`. */
  variant: string | null;
  /** How commands are kept on loopback (record/network.ts `detectNetworkIsolation`). */
  isolation: NetworkIsolation;
  /** Where the run's temp root goes (default the OS temp dir); removed afterwards. */
  tempParent?: string;
  /** Longest a command may run, ms (sandbox.ts default). */
  timeoutMs?: number;
  scheduler?: Scheduler;
}

/** A problem of the cell's script for facts: `<cell file>: facts: response N call M (tool): <problem>`. */
function stepError(cell: Cell, response: number, call: number, tool: string, problem: string): InputError {
  return new InputError(`facts: model.responses.${response}.toolCalls.${call} (${tool}): ${problem}`, { file: cell.variantFile ?? cell.file });
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The rewrites of a run's absolute paths to placeholders, longest first (a real path too, where it differs). */
function placeholdersOf(dirs: SandboxDirs): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [dir, name] of [
    [dirs.workspace, "{{cwd}}"],
    [dirs.home, "{{home}}"],
    [dirs.tmp, "{{tmp}}"],
  ] as const) {
    pairs.push([dir, name]);
    try {
      const real = realpathSync(dir);
      if (real !== dir) pairs.push([real, name]);
    } catch {
      // Not created (no home when no command ran).
    }
  }
  return pairs.sort((a, b) => b[0].length - a[0].length);
}

/** The context of one computation: the cell, the sandbox and what is decoded how. */
interface Run {
  cell: Cell;
  dirs: SandboxDirs;
  req: ComputeFactsRequest;
  approvals: ApprovalDecision[];
}

/** Bytes as UTF-8 text with the run's paths as placeholders. */
function textOf(run: Run, bytes: Uint8Array, what: () => InputError): string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw what();
  }
  for (const [from, to] of placeholdersOf(run.dirs)) text = text.split(from).join(to);
  return text;
}

/** A tool call's path argument resolved inside the workspace copy: absolute and relative (`/`-separated). */
function workspacePath(run: Run, value: unknown, place: [number, number, string]): { abs: string; rel: string } {
  if (typeof value !== "string" || value === "") throw stepError(run.cell, ...place, "needs a filePath");
  const abs = path.resolve(run.dirs.workspace, value);
  const rel = path.relative(run.dirs.workspace, abs);
  if (rel.startsWith("..") || path.isAbsolute(rel)) throw stepError(run.cell, ...place, `${value} lies outside the workspace`);
  return { abs, rel: rel === "" ? "." : rel.split(path.sep).join("/") };
}

async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The fact of one canonical tool call, its effects applied to the workspace copy. */
async function stepFact(run: Run, call: ModelToolCall, response: number, index: number): Promise<FactStep> {
  const place: [number, number, string] = [response, index, call.name];
  const base = { response, call: index, tool: call.name };
  const kind = KIND_OF_TOOL[call.name];
  if (kind === undefined || call.arguments === undefined || !takesCanonicalArguments(kind, call.arguments)) return { ...base, kind: "other" };
  const args = canonicalArguments(fillTemplate(call.arguments, { cwd: run.dirs.workspace }));
  const notUtf8 = (what: string) => () => stepError(run.cell, ...place, `${what} is not UTF-8 text; facts hold text only`);
  if (kind === "read") {
    const file = workspacePath(run, args.filePath, place);
    const bytes = await readIfExists(file.abs);
    return { ...base, kind, path: file.rel, exists: bytes !== null, content: bytes === null ? null : textOf(run, bytes, notUtf8(file.rel)) };
  }
  const approval = run.approvals.shift() ?? null;
  const ran = approval !== "deny";
  if (kind === "command") {
    const command = call.arguments.command;
    if (typeof command !== "string" || command === "") throw stepError(run.cell, ...place, "needs a command");
    const workdir = typeof args.workdir === "string" ? workspacePath(run, args.workdir, place) : { abs: run.dirs.workspace, rel: "." };
    const fact = { ...base, kind, command, cwd: workdir.rel, approval, ran };
    if (!ran) return { ...fact, stdout: null, stderr: null, exit: null };
    const outcome = await runSandboxed({
      command: args.command as string,
      cwd: workdir.abs,
      dirs: run.dirs,
      isolation: run.req.isolation,
      ...(run.req.timeoutMs !== undefined ? { timeoutMs: run.req.timeoutMs } : {}),
      ...(run.req.scheduler ? { scheduler: run.req.scheduler } : {}),
    });
    return { ...fact, stdout: textOf(run, outcome.stdout, notUtf8("its stdout")), stderr: textOf(run, outcome.stderr, notUtf8("its stderr")), exit: outcome.exit };
  }
  return fileChange(run, kind, args, { ...base, approval, ran }, place);
}

/** An edit or write: before, after, created, or why the tool cannot apply it; applied to the copy when it ran. */
async function fileChange(
  run: Run,
  kind: "edit" | "write",
  args: Record<string, unknown>,
  base: Pick<FileChangeFact, "response" | "call" | "tool" | "approval" | "ran">,
  place: [number, number, string],
): Promise<FileChangeFact> {
  const file = workspacePath(run, args.filePath, place);
  const bytes = await readIfExists(file.abs);
  const before = bytes === null ? null : textOf(run, bytes, () => stepError(run.cell, ...place, `${file.rel} is not UTF-8 text; facts hold text only`));
  const fact = { ...base, kind, path: file.rel, before };
  let after: string;
  if (kind === "write") {
    if (typeof args.content !== "string") throw stepError(run.cell, ...place, "needs a content");
    after = args.content;
  } else {
    const [oldString, newString] = [args.oldString, args.newString];
    if (typeof oldString !== "string" || typeof newString !== "string") throw stepError(run.cell, ...place, "needs oldString and newString");
    if (oldString === "") after = newString;
    else if (before === null) return { ...fact, after: null, created: false, error: "file not found" };
    else {
      const count = before.split(oldString).length - 1;
      if (count === 0) return { ...fact, after: null, created: false, error: "old text not found" };
      if (count > 1 && args.replaceAll !== true) return { ...fact, after: null, created: false, error: `old text found ${count} times` };
      after = args.replaceAll === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    }
  }
  if (!base.ran) return { ...fact, after: null, created: false, error: null };
  await mkdir(path.dirname(file.abs), { recursive: true });
  await writeFile(file.abs, after);
  return { ...fact, after, created: before === null, error: null };
}

/**
 * The facts of one cell (or one provider variant), computed in a fresh temp copy of its
 * workspace (see the module doc); the temp root is removed afterwards.
 * @throws UsageError for an unknown cell; InputError naming the cell (or variant) file for an
 *   invalid definition, a missing variant, or a tool call the facts cannot take (a path outside
 *   the workspace, bytes that are not UTF-8); FactsCommandError (exit 4) for a command that does not end.
 */
export async function computeCellFacts(req: ComputeFactsRequest): Promise<CellFacts> {
  const cell = await loadCell(req.cellsRoot, req.cell, req.variant ?? undefined);
  if (req.variant !== null && cell.variantFile === null)
    throw new InputError(`no variant of cell ${req.cell} for ${req.variant}`, { file: path.join(req.cellsRoot, req.cell, "providers", `${req.variant}.json`) });
  const source = await factsSource(req.cellsRoot, req.cell, req.variant);
  const def = cell.definition;
  const responses = def.model?.responses ?? [];
  const dirs = await makeSandboxDirs(req.tempParent ?? os.tmpdir());
  try {
    if (cell.workspace) await cp(cell.workspace, dirs.workspace, { recursive: true });
    const approvals = def.answers.flatMap((a) => (a.kind === "approval" ? [a.decision] : []));
    const run: Run = { cell, dirs, req, approvals };
    const steps: FactStep[] = [];
    for (const [r, response] of responses.entries()) {
      for (const [c, call] of (response.toolCalls ?? []).entries()) steps.push(await stepFact(run, call, r, c));
    }
    return {
      facts: 1,
      cell: req.cell,
      variant: req.variant,
      source,
      steps,
      model: responses.map(modelFact),
      turns: turnFacts(def),
    };
  } finally {
    await rm(dirs.root, { recursive: true, force: true });
  }
}
