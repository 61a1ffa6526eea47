/**
 * The script format of the fixture ACP agent: a JSON file that says how the agent answers
 * `initialize`, `session/new|load|fork`, each `session/prompt`, and `session/cancel`.
 *
 * It is deliberately generic: a prompt is a list of steps, and a step can send any
 * `session/update` (so dialect side channels such as `_meta` or vendor `rawInput` keys are plain
 * data), any agent→client request, or misbehave on purpose (exit, non-JSON stdout, a huge line,
 * answer twice, never answer).
 */
import { readFileSync } from "node:fs";
import * as z from "zod";

/** A JSON object. */
const jsonObject = z.record(z.string(), z.json());

/** One step of a scripted prompt (or of a permission outcome branch). */
export type FixtureStep =
  | { update: Record<string, unknown> }
  | { notify: { method: string; params?: unknown } }
  | { permission: { toolCall?: Record<string, unknown>; options: Record<string, unknown>[] }; outcomes?: Record<string, FixtureStep[]> }
  | { request: { method: string; params?: unknown } }
  | { waitForCancel: true }
  | { raw: string }
  | { bigLine: number }
  | { stderr: string }
  | { echoEnv: string[] }
  | { mcpCall: { server?: string; tool: string; arguments?: Record<string, unknown> } }
  | { exit: number }
  | { end: string; answerTwice?: boolean; meta?: Record<string, unknown>; usage?: Record<string, unknown>; after?: Record<string, unknown>[] }
  | { fail: { code: number; message: string; data?: unknown } };

/** Schema of {@link FixtureStep} (recursive through permission outcomes). */
export const fixtureStepSchema: z.ZodType<FixtureStep> = z.lazy(() =>
  z.union([
    z.strictObject({ update: jsonObject }),
    z.strictObject({ notify: z.strictObject({ method: z.string().min(1), params: z.json().optional() }) }),
    z.strictObject({
      permission: z.strictObject({ toolCall: jsonObject.optional(), options: z.array(jsonObject) }),
      /** Steps to run after the client picked an option id, keyed by option id or `cancelled`. */
      outcomes: z.record(z.string(), z.array(fixtureStepSchema)).optional(),
    }),
    z.strictObject({ request: z.strictObject({ method: z.string().min(1), params: z.json().optional() }) }),
    z.strictObject({ waitForCancel: z.literal(true) }),
    z.strictObject({ raw: z.string() }),
    z.strictObject({ bigLine: z.number().int().positive() }),
    z.strictObject({ stderr: z.string() }),
    /** Sends an agent_message_chunk whose text is the JSON of these env vars (null when unset). */
    z.strictObject({ echoEnv: z.array(z.string().min(1)) }),
    /** Calls a tool of an MCP server the client passed in `mcpServers`; the result comes back as a message chunk (JSON). */
    z.strictObject({ mcpCall: z.strictObject({ server: z.string().optional(), tool: z.string().min(1), arguments: jsonObject.optional() }) }),
    z.strictObject({ exit: z.number().int() }),
    /**
     * Answers the prompt; `usage` is the answer's token counts (omp's `{inputTokens, outputTokens, totalTokens}`), `after`
     * updates follow the answer (agent-initiated work while idle).
     */
    z.strictObject({ end: z.string().min(1), answerTwice: z.boolean().optional(), meta: jsonObject.optional(), usage: jsonObject.optional(), after: z.array(jsonObject).optional() }),
    z.strictObject({ fail: z.strictObject({ code: z.number().int(), message: z.string(), data: z.json().optional() }) }),
  ]),
);

/** One scripted prompt: used by the first unused entry whose `when` occurs in the prompt text. */
export const fixturePromptSchema = z.strictObject({
  /** Substring of the prompt's joined text blocks; absent matches any prompt. */
  when: z.string().optional(),
  /** Keep the entry for later prompts instead of using it once. */
  reuse: z.boolean().default(false),
  steps: z.array(fixtureStepSchema),
});

/** The whole script (every field optional; defaults make a well-behaved agent). */
export const fixtureScriptSchema = z.strictObject({
  /** Free text for reviewers (what the script models); ignored by the agent. The `cells/<cell>/agents/` fragments carry one. */
  comment: z.string().optional(),
  /** Answer every request with its id as a string (`"3"` for `3`), as some agents do. */
  stringResponseIds: z.boolean().default(false),
  /** `answer` (default), `never` (hang), `exit` (exit 3 before answering), `error`. */
  initialize: z.enum(["answer", "never", "exit", "error"]).default("answer"),
  protocolVersion: z.number().int().default(1),
  loadSession: z.boolean().default(true),
  /** Advertise `sessionCapabilities.resume` (restore by `session/resume`). */
  resumeSession: z.boolean().default(false),
  fork: z.boolean().default(false),
  promptImage: z.boolean().default(false),
  authMethods: z.array(jsonObject).default([]),
  /** Extra fields merged into the `session/new|load|fork` result (`models`, `configOptions`, `modes`, `_meta`). */
  sessionResult: jsonObject.default({}),
  /** Session ids are `<sessionIdPrefix><n>`, n counting from 1 per process (see `sessionIds`). */
  sessionIdPrefix: z.string().min(1).default("fixture-session-"),
  /** `counter` (default, deterministic for recordings) or `uuid`: `<prefix><random uuid>`, unique across processes as real agents' ids are. */
  sessionIds: z.enum(["counter", "uuid"]).default("counter"),
  /**
   * `session/load` and `session/resume`: `replay` updates sent before the result, `after` updates sent after it (omp announces
   * its commands only once a resume is answered), or `error` to refuse.
   */
  load: z.strictObject({ replay: z.array(jsonObject).default([]), after: z.array(jsonObject).default([]), error: z.string().optional() }).default({ replay: [], after: [] }),
  /** Config option / mode ids whose `session/set_config_option` or `session/set_mode` the agent refuses. */
  refuseOptions: z.array(z.string()).default([]),
  /** Model ids whose `session/set_model` the agent refuses (-32000); any other id is accepted `{}`. */
  refuseModels: z.array(z.string()).default([]),
  /**
   * Agent→client requests sent, in order and each awaiting its answer, before `session/new` is
   * answered (an agent asking its client during setup). The answers land in `ACP_FIXTURE_LOG`.
   */
  beforeNewAnswer: z.array(z.strictObject({ method: z.string().min(1), params: z.json().optional() })).default([]),
  /**
   * Environment variables the `session/new` result reports as its `models.availableModels`: one
   * model per name, `modelId` = the name, `name` = the variable's value or `(unset)` (shows a
   * discovery agent's env through `model/list`). Replaces `sessionResult.models` on `session/new`.
   */
  echoEnvAsModels: z.array(z.string().min(1)).default([]),
  /** When set, `session/new` fails with -32000 and this message (e.g. "Authentication required"). */
  newSessionError: z.string().optional(),
  /** Updates sent right after `session/new` and `session/fork` answer (some agents stream before the first prompt). */
  afterNew: z.array(jsonObject).default([]),
  /** `honor` (default): a cancel ends the prompt `cancelled`; `ignore`: it is logged and nothing happens. */
  cancel: z.enum(["honor", "ignore"]).default("honor"),
  /** The stop reason a honored cancel answers the prompt with (an agent may say `end_turn`). */
  cancelStopReason: z.string().min(1).default("cancelled"),
  /** Updates sent when a cancel is honored, before the `cancelled` answer. */
  onCancel: z.array(jsonObject).default([]),
  prompts: z.array(fixturePromptSchema).default([]),
  /** Stop reason of a prompt no entry matches. */
  defaultStopReason: z.string().default("end_turn"),
  /** Lines written to stderr at start (for stderr-tail tests). */
  stderrAtStart: z.array(z.string()).default([]),
  /**
   * What `main.js --script <file> --list-models` prints instead of speaking ACP (a model CLI's list
   * command, spec 20 §3.11): `stdout` lines (then the `echoEnv` lines), `stderr` lines, then exit with `exitCode`. With
   * `afterFile` it prints only once that file exists (a test orders it after another event).
   */
  modelList: z
    .strictObject({
      stdout: z.array(z.string()).default([]),
      stderr: z.array(z.string()).default([]),
      exitCode: z.number().int().min(0).default(0),
      afterFile: z.string().min(1).optional(),
      /** Env variables printed after `stdout`, one `<NAME> - <value>` line each (`(unset)` when absent), parsed as models. */
      echoEnv: z.array(z.string().min(1)).default([]),
    })
    .default({ stdout: [], stderr: [], exitCode: 0, echoEnv: [] }),
});
/** A parsed fixture script. */
export type FixtureScript = z.output<typeof fixtureScriptSchema>;
/** A fixture script as written. */
export type FixtureScriptInput = z.input<typeof fixtureScriptSchema>;

/** What a prompt's steps may name as `{{cwd}}` and `{{sessionId}}`: the session's own, as the agent learnt them. */
export interface SessionPlaceholders {
  /** The `cwd` of the `session/new|load|resume|fork` that made or restored the session; absent → `{{cwd}}` stays as written. */
  cwd?: string;
  sessionId: string;
}

/**
 * `steps` with every `{{cwd}}` and `{{sessionId}}` inside a string replaced by the session's own. A real agent
 * names absolute paths under the workspace it was given (omp's `fs/read_text_file {sessionId, path}`), which a
 * static script cannot know; the recorder rewrites the workspace back to its placeholder path afterwards.
 */
export function fillSessionPlaceholders(steps: FixtureStep[], session: SessionPlaceholders): FixtureStep[] {
  const text = JSON.stringify(steps);
  if (!text.includes("{{")) return steps;
  // Inside a JSON string: the replacement is JSON-escaped, so a path with quotes or backslashes stays one string.
  const escaped = (value: string) => JSON.stringify(value).slice(1, -1);
  let filled = text.replaceAll("{{sessionId}}", escaped(session.sessionId));
  if (session.cwd !== undefined) filled = filled.replaceAll("{{cwd}}", escaped(session.cwd));
  return JSON.parse(filled) as FixtureStep[];
}

/** Parses a script object; throws a one-line error naming each bad path. */
export function parseFixtureScript(value: unknown, source = "fixture script"): FixtureScript {
  const parsed = fixtureScriptSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new Error(`${source}: ${problems}`);
}

/** Reads and parses a script file (JSON). Throws naming the file on bad JSON or a bad field. */
export function readFixtureScript(file: string): FixtureScript {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseFixtureScript(value, file);
}
