/**
 * The part of a cell's facts the truth judge reads (issue 37, build point 1): what really happened
 * in a cell — each tool call of its model script with its real effect, each model answer that is
 * an error, each turn's expected end. The facts files and their schema belong to `harness/facts`
 * (`cells/<cell>/facts.json`, `cells/<cell>/facts/<provider>.json`); this is the shape the judge
 * needs (`harness/facts/schema.ts` is the file's whole shape), written structurally so
 * `harness/compare` imports nothing above it: the gate passes the schema's parsed `CellFacts`, which
 * the compiler holds to this shape.
 */

/** How a command ended: its exit code, or the signal that ended it (`"SIGTERM"`). */
export type FactExit = { code: number } | { signal: string };

/** The cell's answer to an approval request for this step, when the agent asks. */
export type FactApproval = "allow_once" | "allow_for_session" | "deny";

/** Fields every step has: which model answer (`response`, 0-based) and which call in it (`call`, 0-based), and the script's tool name. */
interface FactStepHead {
  response: number;
  call: number;
  tool: string;
}

/** A shell command: what it printed on each pipe (UTF-8 text; `{{cwd}}` for the workspace path) and how it ended; nothing when it did not run (denied). */
export interface CommandFact extends FactStepHead {
  kind: "command";
  command: string;
  cwd?: string;
  approval?: FactApproval | null;
  ran: boolean;
  stdout?: string | null;
  stderr?: string | null;
  exit?: FactExit | null;
}

/** A file read: the file's path (relative to the workspace) and its bytes as UTF-8. */
export interface ReadFact extends FactStepHead {
  kind: "read";
  path: string;
  exists?: boolean;
  content?: string | null;
}

/** An edit or a write: the file before (null: it did not exist) and after (null: it did not run or failed), and whether it was created. */
export interface EditFact extends FactStepHead {
  kind: "edit" | "write";
  path: string;
  before: string | null;
  after: string | null;
  created: boolean;
  approval?: FactApproval | null;
  ran?: boolean;
  error?: string | null;
}

/** A tool call with no local truth (web search, a subagent, …): not judged. */
export interface OtherFact extends FactStepHead {
  kind: "other";
}

/** One step of a cell's facts, in script order. */
export type FactStep = CommandFact | ReadFact | EditFact | OtherFact;

/** One model answer of the script: its error (null for a generation) with its HTTP status and API error type. */
export interface ModelFact {
  response: number;
  error: { status: number; type?: string | null; message?: string } | null;
  /** Its assistant text, null when it has none. */
  text?: string | null;
}

/** How a turn ends, by prompt (1-based over `turn/start` and `turn/steer`), and the model answers it takes. */
export interface TurnFact {
  prompt: number;
  responses?: readonly number[];
  end: "completed" | "interrupted" | "failed";
}

/** The facts of one cell (or one provider variant of it). */
export interface TruthFacts {
  cell: string;
  variant?: string | null;
  steps: readonly FactStep[];
  model?: readonly ModelFact[];
  turns?: readonly TurnFact[];
}
