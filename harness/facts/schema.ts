/**
 * The facts of a cell (issue 37, build point 1): what really happens when a cell's model script
 * runs, computed by the harness (compute.ts), never typed by hand, committed beside the cell as
 * `cells/<cell>/facts.json` (the cell as `cell.json` defines it) and
 * `cells/<cell>/facts/<provider>.json` (a provider variant, `providers/<provider>.json`).
 *
 * One step per tool call of the model script, in script order (`response` is the index of the
 * model response, `call` the index of the call inside it), named by the script's canonical tool
 * name (`bash`, `read`, `edit`, `write`, …; agent profiles spell them for each agent). Paths are
 * relative to the workspace root; the absolute workspace path inside any text is `{{cwd}}`.
 * Text fields hold the exact bytes, decoded as UTF-8 (trailing newlines, `\r` and escapes kept).
 *
 * The shape is shared with the truth judge; a change to it is a new line in the notes the two
 * engineers keep (facts-schema-changes), and a new {@link FACTS_VERSION} when old files no
 * longer read.
 */
import * as z from "zod";
import { FACTS_VERSION } from "./facts-version.js";

export { FACTS_VERSION };

/** The `source` field: `sha256:` and 64 lowercase hex digits (source.ts `factsSource`). */
export const FACTS_SOURCE_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The cell's answer to an approval request, as `cell.json` `answers` spells it. */
export const ApprovalDecisionSchema = z.enum(["allow_once", "allow_for_session", "deny"]);
/** The cell's answer to an approval request. */
export type ApprovalDecision = z.output<typeof ApprovalDecisionSchema>;

/**
 * How a command ended: `{code}` (its exit status, 0–255) or `{signal}` (the signal that ended
 * it, e.g. `SIGTERM`; no code then, as a shell would report 128+n).
 */
export const CommandExitSchema = z.union([z.strictObject({ code: z.number().int().min(0).max(255) }), z.strictObject({ signal: z.string().regex(/^SIG[A-Z0-9]+$/) })]);
/** How a command ended. */
export type CommandExit = z.output<typeof CommandExitSchema>;

/** Where a step sits in the model script: response index and call index inside it (0-based), and the canonical tool name. */
const StepPlace = {
  /** Index of the model response in the script's `responses` (0-based). */
  response: z.number().int().nonnegative(),
  /** Index of the tool call inside that response's `toolCalls` (0-based). */
  call: z.number().int().nonnegative(),
  /** The script's canonical tool name (`bash`, `read`, `edit`, …), before an agent profile spells it. */
  tool: z.string().min(1),
};

/**
 * The cell's answer when the call asks for approval (null when it does not ask), and whether
 * the tool ran (false when denied). Which calls ask: the cell's approval answers in order, one
 * per call that can ask (command, edit, write), as `cell.json` `answers` are given in arrival order.
 */
const Approval = {
  approval: ApprovalDecisionSchema.nullable(),
  ran: z.boolean(),
};

/**
 * A shell command (`bash`): run for real in the cell's workspace copy, in the sandbox agents are
 * recorded in. `stdout`/`stderr`/`exit` are null when it did not run (denied).
 */
export const CommandFactSchema = z.strictObject({
  ...StepPlace,
  kind: z.literal("command"),
  /** The command text as the script gives it (`{{cwd}}` kept as written). */
  command: z.string(),
  /** Its working directory, relative to the workspace root (`.`). */
  cwd: z.string().min(1),
  ...Approval,
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
  exit: CommandExitSchema.nullable(),
});
/** A shell command's fact. */
export type CommandFact = z.output<typeof CommandFactSchema>;

/** A file read: the file's bytes as UTF-8, or `exists: false` (content null). */
export const ReadFactSchema = z.strictObject({
  ...StepPlace,
  kind: z.literal("read"),
  /** Relative to the workspace root. */
  path: z.string().min(1),
  exists: z.boolean(),
  content: z.string().nullable(),
});
/** A file read's fact. */
export type ReadFact = z.output<typeof ReadFactSchema>;

/**
 * An edit (replace a string) or write (whole content) of a file: its content before (null: it
 * did not exist) and after (null: the step did not run or failed), `created` when the step made
 * a new file, and `error` (null when it applied) when the tool cannot apply it (old text not
 * found, or found more than once).
 */
export const FileChangeFactSchema = z.strictObject({
  ...StepPlace,
  kind: z.enum(["edit", "write"]),
  /** Relative to the workspace root (`src/new/file.txt`). */
  path: z.string().min(1),
  ...Approval,
  before: z.string().nullable(),
  after: z.string().nullable(),
  created: z.boolean(),
  error: z.string().nullable(),
});
/** An edit's or write's fact. */
export type FileChangeFact = z.output<typeof FileChangeFactSchema>;

/** A tool with no local truth (web search, subagent task, user question, …): only that it was called. */
export const OtherFactSchema = z.strictObject({
  ...StepPlace,
  kind: z.literal("other"),
});
/** A tool call with no local truth. */
export type OtherFact = z.output<typeof OtherFactSchema>;

/** One step: one tool call of the model script. */
export const FactStepSchema = z.discriminatedUnion("kind", [CommandFactSchema, ReadFactSchema, FileChangeFactSchema, OtherFactSchema]);
/** One step: one tool call of the model script. */
export type FactStep = z.output<typeof FactStepSchema>;
/** The kinds of step. */
export type FactKind = FactStep["kind"];

/**
 * One model response of the script: its error (null for a generation), and what it carries.
 * `error.type` is the API error type the endpoint names (the script's `type`, else the usual one
 * for the status, e.g. `authentication_error` for 401).
 */
export const ModelFactSchema = z.strictObject({
  response: z.number().int().nonnegative(),
  error: z.strictObject({ status: z.number().int().min(400).max(599), type: z.string().min(1), message: z.string() }).nullable(),
  /** Number of tool calls it asks for. */
  toolCalls: z.number().int().nonnegative(),
  /** Its assistant text (`""` for an empty answer), null when it has none. */
  text: z.string().nullable(),
  /** Held open until the agent goes away or a `model/release` step ends it. */
  hold: z.boolean(),
});
/** One model response's fact. */
export type ModelFact = z.output<typeof ModelFactSchema>;

/** How a turn is expected to end. */
export const TurnEndSchema = z.enum(["completed", "interrupted", "failed"]);
/** How a turn is expected to end. */
export type TurnEnd = z.output<typeof TurnEndSchema>;

/**
 * One turn (`turn/start` step) of the runtime script: `prompt` is its place among the run's
 * prompts (`turn/start` and `turn/steer`, 1-based, as `afterPrompt` counts), `responses` the
 * model responses it is expected to take, `end` how it ends: `interrupted` by a
 * `thread/stop {intent: "interrupt"}` while open, `failed` when its last response is a model
 * error, else `completed`.
 */
export const TurnFactSchema = z.strictObject({
  prompt: z.number().int().positive(),
  responses: z.array(z.number().int().nonnegative()),
  end: TurnEndSchema,
});
/** One turn's fact. */
export type TurnFact = z.output<typeof TurnFactSchema>;

/** A whole facts file (version 1). */
export const CellFactsSchema = z.strictObject({
  facts: z.literal(FACTS_VERSION),
  /** The cell's name (its directory under `cells/`). */
  cell: z.string().min(1),
  /** The provider whose variant these facts are of, or null for `cell.json`'s. */
  variant: z.string().min(1).nullable(),
  /** `sha256:<hex>` over the resolved cell definition and its workspace files (source.ts); a mismatch means stale facts. */
  source: z.string().regex(FACTS_SOURCE_PATTERN, "expected sha256: and 64 lowercase hex digits"),
  steps: z.array(FactStepSchema),
  model: z.array(ModelFactSchema),
  turns: z.array(TurnFactSchema),
});
/** A whole facts file. */
export type CellFacts = z.output<typeof CellFactsSchema>;
