/**
 * Fixture-agent providers for `parity record` (docs/design/00-product.md "Real input": fixture agents that
 * speak a dialect's side channels where the real CLI cannot run here).
 *
 * acp-cursor, acp-grok, acp-omp-fixture and acp-hermes-agent run the ACP bridge against the project's
 * scripted fixture agent (`stack/acp/fixture-agent`) instead of their CLI. The agent's script
 * for one run is assembled from two parts:
 * - an agent profile (here): what the agent answers to `initialize` and `session/new` and what
 *   it streams after it, the same for every cell;
 * - one fragment per cell, `cells/<cell>/agents/<provider>.json` = `{"prompts": [...]}`: what the
 *   agent does on each prompt of that cell (spec 30 side channels are plain data there).
 *
 * A {@link RecordProvider} is not told which cell runs, so every cell's fragment goes into the
 * one script, each prompt keyed (`when`) by that cell's own prompt text (a fragment prompt
 * without `when` takes the cell's n-th `turn/start`/`turn/steer` text). The script is written to
 * the run's temp root, which the redactor rewrites to `/tmp/parity-record`.
 *
 * The launch spec is the shipped agent's with `command`/`args` replaced, and the dialect is
 * always explicit (`acpDialect`), because the command is `node`, never the vendor binary.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { findShippedAcpAgent } from "../../../stack/acp/agents/agents.js";
import { fixturePromptSchema, parseFixtureScript, type FixtureScriptInput } from "../../../stack/acp/fixture-agent/script.js";
import { acpLaunchOptions, ACP_BRIDGE_MODULE } from "./launch.js";
import { InputError, UsageError } from "../../errors.js";
import { packageDistPath } from "../../runtime/spawn-bridge.js";
import { CELL_FILE, parseCellDefinition } from "../../runtime/cells.js";
import type { Until } from "../../runtime/cell-driver.js";
import { bridgeModulePath, type PreparedProvider, type RecordDirs, type RecordProvider } from "../record-provider.js";

/** Marker every fixture manifest carries in `cliVersion` and `note` (tests and reviewers key on it). */
export const FIXTURE_AGENT_MARKER = "fixture agent";

/** Directory inside `cells/<cell>/` holding the per-provider fixture fragments. */
export const FIXTURE_FRAGMENT_DIR = "agents";

/**
 * One cell's fragment of a fixture script: the agent's behaviour per prompt. Strict: the agent
 * profile (capabilities, session result) is per provider, not per cell.
 */
export const FixtureFragmentSchema = z.strictObject({
  /** Free text for reviewers: what spec 30 behaviour this fragment models. */
  comment: z.string().optional(),
  prompts: z.array(fixturePromptSchema).min(1),
});
/** A parsed fragment. */
export type FixtureFragment = z.output<typeof FixtureFragmentSchema>;

/** A fixture provider's fixed facts (spec 30 §2.1 agent, §1.2 explicit dialect). */
export interface FixtureAgentProfile {
  /** Provider id (`acp-<slug>`, a shipped agent, or the fixture beside one: `acp-omp-fixture`). */
  providerId: string;
  /** The shipped agent whose launch spec and bridge options the fixture takes, when it is not `providerId` (`acp-omp` for `acp-omp-fixture`). */
  shippedAgentId?: string;
  /** Explicit dialect id sent as `providerOptions.acpDialect` (spec 30 §1.2 step 1). */
  dialect: string;
  /** Which vendor CLI the fixture stands in for (manifest text). */
  standsInFor: string;
  /** Why a fixture records these cells (manifest text); default "<standsInFor> cannot run here". */
  whyFixture?: string;
  /** Script fields shared by every cell (no `prompts`). */
  base: Omit<FixtureScriptInput, "prompts">;
}

/** An `available_commands_update` (agents send it after `session/new` and again while replaying a `session/load`). */
const commands = (names: string[]) => ({
  sessionUpdate: "available_commands_update",
  availableCommands: names.map((name) => ({ name, description: `${name} (fixture command)`, input: null })),
});

const OMP_MODES = [
  { value: "default", name: "Default", description: "Standard ACP headless mode" },
  { value: "plan", name: "Plan", description: "Read-only planning mode that drafts a plan to a markdown file before any code changes" },
];

/** What omp 18.2.3 answers `session/new` with besides its id (recordings/acp-omp/: config options, then modes). */
const OMP_SESSION_RESULT: NonNullable<FixtureScriptInput["sessionResult"]> = {
  configOptions: [
    { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "default", options: OMP_MODES },
    { id: "model", name: "Model", category: "model", type: "select", currentValue: "parity/scripted", options: [{ value: "parity/scripted", name: "scripted", description: "parity/scripted" }] },
    {
      id: "thinking",
      name: "Thinking",
      category: "thought_level",
      type: "select",
      currentValue: "off",
      options: [
        { value: "off", name: "Off" },
        { value: "auto", name: "Auto", description: "Auto-detect per prompt" },
      ],
    },
  ],
  modes: { availableModes: OMP_MODES.map(({ value, ...rest }) => ({ id: value, ...rest })), currentModeId: "default" },
};

/** What omp sends once a session is made or resumed: its commands (`input.hint` where one takes input), then the session's info. */
const OMP_SESSION_ANNOUNCEMENTS: NonNullable<FixtureScriptInput["afterNew"]> = [
  {
    sessionUpdate: "available_commands_update",
    availableCommands: [
      { name: "compact", description: "Compact the conversation", input: { hint: "[soft|remote|snapcompact] [focus]" } },
      { name: "model", description: "Show current model selection" },
    ],
  },
  { sessionUpdate: "session_info_update", updatedAt: "2026-12-01T00:00:00.000Z" },
];

/**
 * The four fixture agents (spec 30 §2.1 table; dialects §1.3–1.5, §1.7). Session results are
 * shaped after what spec 20 §4 / spec 30 say each agent returns, written by this project.
 */
export const FIXTURE_AGENT_PROFILES: Readonly<Record<string, FixtureAgentProfile>> = {
  "acp-cursor": {
    providerId: "acp-cursor",
    dialect: "cursor",
    standsInFor: "cursor-agent acp",
    base: {
      loadSession: true,
      promptImage: true,
      authMethods: [{ id: "cursor_login", name: "Cursor login" }],
      sessionIdPrefix: "fixture-cursor-",
      sessionResult: {
        modes: {
          currentModeId: "agent",
          availableModes: [
            { id: "agent", name: "Agent" },
            { id: "ask", name: "Ask" },
          ],
        },
      },
      afterNew: [commands(["review", "explain"])],
      load: { replay: [commands(["review", "explain"])] },
    },
  },
  "acp-grok": {
    providerId: "acp-grok",
    dialect: "grok",
    standsInFor: "grok agent stdio",
    base: {
      loadSession: true,
      sessionIdPrefix: "fixture-grok-",
      // Grok's context size rides the session models' `_meta.totalContextTokens` (spec 30 §1.4).
      sessionResult: {
        models: {
          currentModelId: "grok-fixture-1",
          availableModels: [
            { modelId: "grok-fixture-1", name: "Grok fixture 1", _meta: { totalContextTokens: 256000 } },
            { modelId: "grok-fixture-mini", name: "Grok fixture mini", _meta: { totalContextTokens: 128000 } },
          ],
        },
      },
      afterNew: [commands(["compact", "init"])],
      load: { replay: [commands(["compact", "init"])] },
    },
  },
  // The fixture stand-in for omp's dialect cells (subagent and side channels the real omp does
  // not send offline); the real omp records as `acp-omp` (agent-profiles.ts). Its session shapes
  // are the real omp 18.2.3's (spec 50 "omp (oh-my-pi), the ninth"; recordings/acp-omp/): both
  // restore capabilities, so the bridge resumes by `session/resume`; the session's config options
  // and modes; its commands and a `session_info_update` only after `session/new` or the resume is
  // answered. Two of its 45 commands stand for all of them; `updatedAt` is fixed.
  "acp-omp-fixture": {
    providerId: "acp-omp-fixture",
    shippedAgentId: "acp-omp",
    dialect: "omp",
    standsInFor: "omp acp",
    whyFixture:
      "the real omp records as provider acp-omp; this scripted stand-in plays omp 18.2.3's recorded shapes for the dialect cells the real one cannot show offline (a subagent, a second failing command)",
    base: {
      loadSession: true,
      resumeSession: true,
      fork: true,
      promptImage: true,
      authMethods: [
        { id: "agent", name: "Use existing local credentials", description: "Authenticate via the provider keys/OAuth state already configured under ~/.omp." },
        { type: "terminal", id: "terminal", name: "Set up Oh My Pi in terminal", description: "Launch the omp TUI to add provider keys and select models.", args: ["--acp-terminal-auth"] },
      ],
      sessionIdPrefix: "fixture-omp-",
      sessionResult: OMP_SESSION_RESULT,
      afterNew: OMP_SESSION_ANNOUNCEMENTS,
      load: { after: OMP_SESSION_ANNOUNCEMENTS },
    },
  },
  "acp-hermes-agent": {
    providerId: "acp-hermes-agent",
    dialect: "acp",
    standsInFor: "hermes acp",
    base: {
      loadSession: true,
      fork: true,
      sessionIdPrefix: "fixture-hermes-",
      // Hermes' reasoning is a native config option (spec 30 §2.1 `nativeReasoning.configId`).
      sessionResult: {
        configOptions: [
          {
            id: "reasoning_effort",
            name: "Reasoning effort",
            category: "thought_level",
            type: "select",
            currentValue: "medium",
            options: ["none", "low", "medium", "high", "xhigh", "max"].map((value) => ({ value, name: value })),
          },
        ],
      },
      afterNew: [commands(["skills", "tools"])],
      load: { replay: [commands(["skills", "tools"])] },
    },
  },
};

/**
 * What every fixture provider waits for after each `thread/start|resume` step before the cell
 * goes on (RecordProvider.sessionSettled): the bridge's `bb/provider-commands` extension state,
 * made from the profile's `available_commands_update` (spec 30 §6.3 session setup; 20 §3.2).
 * Without it the first prompt can overtake the commands update under CPU load and the
 * recording's event order depends on scheduling. A fixture cell with `thread/fork` would wait
 * in vain: the fixture agent sends no commands after `session/fork`.
 */
export const FIXTURE_SESSION_SETTLED: Until = { event: "thread/extensionState/updated", fields: { kind: "bb/provider-commands" } };

/** The fragment file of (cell, provider): `<cellsRoot>/<cell>/agents/<provider>.json` (docs/design/00-product.md `cells/`). */
export function fixtureFragmentPath(cellsRoot: string, cell: string, providerId: string): string {
  return path.join(cellsRoot, cell, FIXTURE_FRAGMENT_DIR, `${providerId}.json`);
}

/**
 * Reads and validates one fragment.
 * @throws InputError `file: invalid fixture fragment: field \`prompts.0.steps.1\`: …` or not JSON.
 */
export async function readFixtureFragment(file: string): Promise<FixtureFragment> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new InputError(`fixture fragment is not valid JSON: ${(error as Error).message}`, { file });
  }
  const parsed = FixtureFragmentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(fragment)";
    throw new InputError(`invalid fixture fragment: field \`${field}\`: ${issue?.message ?? "invalid"}`, { file });
  }
  return parsed.data;
}

/** The prompt texts of a cell definition (`turn/start` and `turn/steer` steps, in order). */
function cellPromptTexts(definition: { steps: Array<{ op: string; text?: string }> }): string[] {
  return definition.steps.filter((s) => (s.op === "turn/start" || s.op === "turn/steer") && typeof s.text === "string").map((s) => s.text!);
}

/**
 * Builds the whole fixture script of `providerId`: the profile's base plus every cell's
 * fragment under `cellsRoot` (only `onlyCell`'s when given), each prompt keyed by its cell's
 * prompt text.
 *
 * @throws UsageError for a provider without a profile or with no fragment at all;
 *   InputError naming the fragment file when it has more prompts without `when` than its cell
 *   has prompts, or when two cells' prompts share a key (the agent could not tell them apart).
 */
export async function buildFixtureScript(cellsRoot: string, providerId: string, onlyCell?: string): Promise<FixtureScriptInput> {
  const profile = FIXTURE_AGENT_PROFILES[providerId];
  if (!profile) throw new UsageError(`no fixture agent profile for "${providerId}" (known: ${Object.keys(FIXTURE_AGENT_PROFILES).join(", ")})`);
  const all = existsSync(cellsRoot)
    ? (await readdir(cellsRoot, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    : [];
  const cells = onlyCell === undefined ? all : all.filter((name) => name === onlyCell);
  const prompts: FixtureScriptInput["prompts"] = [];
  const keys = new Map<string, string>();
  for (const cell of cells) {
    const file = fixtureFragmentPath(cellsRoot, cell, providerId);
    const cellFile = path.join(cellsRoot, cell, CELL_FILE);
    if (!existsSync(file) || !existsSync(cellFile)) continue;
    const fragment = await readFixtureFragment(file);
    const texts = cellPromptTexts(parseCellDefinition(await readFile(cellFile, "utf8"), cellFile));
    fragment.prompts.forEach((prompt, index) => {
      const when = prompt.when ?? texts[index];
      if (when === undefined) throw new InputError(`prompt ${index} has no \`when\` and cell ${cell} has only ${texts.length} prompt(s)`, { file });
      const owner = keys.get(when);
      if (owner !== undefined && owner !== cell) throw new InputError(`prompt key ${JSON.stringify(when)} is also used by cell ${owner}`, { file });
      keys.set(when, cell);
      prompts.push({ ...prompt, when });
    });
  }
  if (prompts.length === 0) {
    throw new UsageError(`no fixture fragment for ${providerId} under ${cellsRoot} (expected ${fixtureFragmentPath(cellsRoot, onlyCell ?? "<cell>", providerId)})`);
  }
  const script: FixtureScriptInput = { ...profile.base, prompts };
  parseFixtureScript(script, `fixture script of ${providerId}`);
  return script;
}

/** The isolated env of a fixture run: PATH/LANG/TZ and a home of its own (created). */
async function fixtureEnv(home: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    TZ: "UTC",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
  };
  await mkdir(env.XDG_CONFIG_HOME!, { recursive: true });
  await mkdir(env.XDG_DATA_HOME!, { recursive: true });
  return env;
}

/**
 * A {@link RecordProvider} that runs the ACP bridge against the fixture agent playing
 * `profile` (see the module doc). `cellsRoot` is where fragments are read (default: this
 * package's `cells/`). When the caller passes the running cell to `prepare` (third argument,
 * optional so it plugs into today's {@link RecordProvider}), only that cell's fragment is used;
 * otherwise every cell's, keyed by prompt text. `prepare` throws what {@link buildFixtureScript}
 * throws, and UsageError when the provider is not a shipped ACP agent (spec 30 §2.1).
 */
export function fixtureRecordProvider(profile: FixtureAgentProfile, cellsRoot?: string): RecordProvider {
  return {
    id: profile.providerId,
    modulePath: bridgeModulePath({ modulePath: ACP_BRIDGE_MODULE }),
    takesModelEndpoint: false,
    // Every profile streams `available_commands_update` after session/new and during a
    // session/load replay; under load it can reach the bridge after the first prompt went out,
    // so recordCell waits for its extension state after every session step (see
    // FIXTURE_SESSION_SETTLED).
    sessionSettled: FIXTURE_SESSION_SETTLED,
    async prepare(dirs: RecordDirs, _model?: unknown, cell?: { name: string; file?: string }): Promise<PreparedProvider> {
      const agent = findShippedAcpAgent(profile.shippedAgentId ?? profile.providerId);
      if (!agent) throw new UsageError(`${profile.shippedAgentId ?? profile.providerId} is not a shipped ACP agent`);
      const root = cell?.file ? path.dirname(path.dirname(cell.file)) : (cellsRoot ?? path.join(path.dirname(packageDistPath()), "cells"));
      const script = await buildFixtureScript(root, profile.providerId, cell?.name);
      const scriptFile = path.join(dirs.root, "fixture-agent", `${profile.providerId}.json`);
      await mkdir(path.dirname(scriptFile), { recursive: true });
      await writeFile(scriptFile, `${JSON.stringify(script, null, 2)}\n`);
      const env = await fixtureEnv(dirs.home);
      const main = packageDistPath("stack", "acp", "fixture-agent", "main.js");
      const launch = acpLaunchOptions({ command: "node", args: [main, "--script", scriptFile] }, { launch: agent.launchSpec, bridgeOptions: { ...agent.bridgeOptions } });
      const cliVersion = `${FIXTURE_AGENT_MARKER} (bridge-parity stack/acp/fixture-agent, ${profile.dialect} dialect), not ${profile.standsInFor}`;
      return {
        env,
        options: { providerOptions: { ...(launch.providerOptions as Record<string, unknown>), acpDialect: profile.dialect } },
        cliVersion,
        note:
          `Recorded against the project's scripted ${FIXTURE_AGENT_MARKER}, NOT a real capture: ${profile.whyFixture ?? `${profile.standsInFor} cannot run here`}. ` +
          `Its script (cells/<cell>/agents/${profile.providerId}.json, written by this project from spec 30) sends the ${profile.dialect} dialect's side channels.`,
      };
    },
  };
}

/**
 * The fixture providers by id (acp-cursor, acp-grok, acp-omp-fixture, acp-hermes-agent): the ACP
 * family's `fixtures` (docs/design/00-product.md "Real input").
 */
export const FIXTURE_RECORD_PROVIDERS: Readonly<Record<string, RecordProvider>> = Object.fromEntries(
  Object.values(FIXTURE_AGENT_PROFILES).map((profile) => [profile.providerId, fixtureRecordProvider(profile)]),
);
