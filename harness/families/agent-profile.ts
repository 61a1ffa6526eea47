/**
 * An agent profile: what `parity record` needs to run one real ACP agent offline against the
 * loopback model endpoint (spec 50; cells/README.md "model script"), declared as data so a
 * user's own agent records from the customAgents file with the same fields as the shipped
 * ones (agent-profiles.ts):
 *
 * - `modelApi`: which API the endpoint speaks to it (server.ts dialects);
 * - `env` and `files`: environment variables and config files (path → JSON value or text),
 *   both templates over `{{origin}}` (the endpoint's origin), `{{baseUrl}}` (`{{origin}}/v1`),
 *   `{{home}}` (the run's fresh HOME), `{{cwd}}` (the cell's workspace), `{{tmp}}` (the run's
 *   TMPDIR) and `{{agents}}` (where the agents are installed);
 * - `version`: how to read the agent's real version for the manifest's `cliVersion` (never
 *   the interpreter's: `node agent.js` is asked `node agent.js --version`);
 * - `settle`: events the agent always sends, asynchronously, after a session request; the
 *   flow waits for each after every `thread/start|resume|fork`, so the next prompt never races
 *   them and two recordings give the same oracle;
 * - `tools`: how the cell model scripts' tool calls (`read`, `edit`, `bash`, … with opencode's
 *   argument names) are spelled for this agent; arguments are templates over `{{args.<name>}}`
 *   (a string that is exactly one such placeholder keeps the argument's JSON type);
 * - `rejections`: extra regular expressions of tool results meaning "the tool never ran";
 * - `redact`: regular expressions of what differs from run to run in the agent's output (a
 *   process id it prints) and so becomes `REDACTED`, as `--redact` patterns do;
 * - `normalize`: the same for values that must stay valid where they stand (a number the agent
 *   derives from the clock): each match becomes `replace`, and `why` goes into the manifest note.
 */
import * as z from "zod";
import { UntilSchema } from "../runtime/cell-driver.js";
import { MODEL_APIS } from "../model-server/dialect.js";
import type { ModelScript, ModelToolCall } from "../model-server/script.js";

/** How a cell's tool call is spelled for one agent: a function call or a freeform (`input`) call. */
export const ToolSpellingSchema = z.union([z.strictObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }), z.strictObject({ name: z.string().min(1), input: z.string() })]);

/** Where the agent's version comes from: running it (default `--version`, the last stdout line) or a package.json. */
export const VersionSourceSchema = z.union([z.strictObject({ args: z.array(z.string()).default(["--version"]), pattern: z.string().optional() }), z.strictObject({ packageJson: z.string().min(1) })]);

const compiles = (source: string): boolean => {
  try {
    return !new RegExp(source).test("");
  } catch {
    return false;
  }
};
/** A regular expression's source: it must compile and must not match the empty string. */
const RegexSourceSchema = z.string().refine(compiles, { message: "not a regular expression that matches something (invalid, or matches the empty string)" });

/** The record fields of an agent profile (see the module doc). */
export const AgentRecordProfileSchema = z.strictObject({
  modelApi: z.enum(MODEL_APIS),
  env: z.record(z.string(), z.string()).default({}),
  files: z.record(z.string(), z.unknown()).default({}),
  /** Absent: `<command> --version`, or `<command> <script> --version` when the command is an interpreter running a script. */
  version: VersionSourceSchema.optional(),
  settle: z.array(UntilSchema).default([]),
  tools: z.record(z.string(), ToolSpellingSchema).default({}),
  rejections: z.array(RegexSourceSchema).default([]),
  redact: z.array(RegexSourceSchema).default([]),
  normalize: z.array(z.strictObject({ pattern: RegexSourceSchema, replace: z.string(), why: z.string().min(1) })).default([]),
  /**
   * Per-cell variants, `{ "<cell>": { <cell.json fields to replace> } }`: what a
   * `cells/<cell>/providers/<provider>.json` says, kept in the profile instead — e.g. the extra
   * model answers this agent needs for one cell (a retry after a denial, an answer to an empty
   * reply), so a user's agent needs no copy of `cells/` (issue 24). Applied over the cell and any
   * variant file of it.
   */
  cells: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});
/** The record fields of an agent profile (`cells` may be left out of a shipped one: no variant). */
export type AgentRecordProfile = Omit<z.output<typeof AgentRecordProfileSchema>, "cells"> & Partial<Pick<z.output<typeof AgentRecordProfileSchema>, "cells">>;

/** A shipped agent profile: the record fields plus the launch and how the agent is named. */
export interface ShippedAgentProfile extends AgentRecordProfile {
  /** Provider id (`acp-qwen`). */
  id: string;
  /** The name in `cliVersion` and notes (`qwen-code`). */
  name: string;
  /** The npm package(s) it comes from, for notes. */
  packages: string[];
  /** Launch command: a template, usually under `{{agents}}/node_modules`. */
  command: string;
  args: string[];
  /** The ACP dialect id for the bridge, when not the one its command selects. */
  dialect?: string;
}

/** Values of a profile's template placeholders for one run. */
export interface ProfileVars {
  origin: string;
  baseUrl: string;
  home: string;
  cwd: string;
  tmp: string;
  agents: string;
}

/**
 * Fills `{{name}}` placeholders of `vars` in every string of `value`; placeholders of other
 * names (`{{args.x}}`) are left alone.
 */
export function fillProfileTemplate<T>(value: T, vars: Readonly<Record<string, string>>): T {
  const fill = (v: unknown): unknown => {
    if (typeof v === "string") return v.replace(/\{\{([A-Za-z]+)\}\}/g, (m, name: string) => vars[name] ?? m);
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(value) as T;
}

const ARG_ONLY = /^\{\{args\.([A-Za-z_][A-Za-z0-9_]*)\}\}$/;
const ARG_ANY = /\{\{args\.([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/**
 * One tool call of a cell's model script spelled for the agent: unchanged when `tools` has no
 * entry for its name, else the entry with `{{args.<name>}}` filled from the call's arguments.
 * @throws Error naming the tool and argument when the entry uses an argument the call lacks.
 */
export function spellToolCall(call: ModelToolCall, tools: AgentRecordProfile["tools"]): ModelToolCall {
  const spelling = tools[call.name];
  if (!spelling) return call;
  const args = call.arguments ?? {};
  const lookup = (name: string): unknown => {
    if (!(name in args)) throw new Error(`tool ${call.name}: the agent's spelling uses {{args.${name}}}, which the cell's call does not give`);
    return args[name];
  };
  const fill = (v: unknown): unknown => {
    if (typeof v === "string") {
      const only = ARG_ONLY.exec(v);
      if (only) return lookup(only[1]!);
      return v.replace(ARG_ANY, (_m, name: string) => {
        const value = lookup(name);
        return typeof value === "string" ? value : JSON.stringify(value);
      });
    }
    if (Array.isArray(v)) return v.map(fill);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return "input" in spelling ? { name: spelling.name, input: fill(spelling.input) as string } : { name: spelling.name, arguments: fill(spelling.arguments) as Record<string, unknown> };
}

/** A model script with every tool call spelled for the agent ({@link spellToolCall}). */
export function spellModelScript(script: ModelScript, tools: AgentRecordProfile["tools"]): ModelScript {
  return {
    ...script,
    responses: script.responses.map((r) => (r.toolCalls ? { ...r, toolCalls: r.toolCalls.map((c) => spellToolCall(c, tools)) } : r)),
  };
}
