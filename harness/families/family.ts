/**
 * What a bridge family is (docs/design/00-product.md; spec 10 §5.1 Profiles): one bridge module and
 * everything the flows need to drive it, behind hooks, as Polly's adapters sit behind one base
 * (docs/design/40-style.md). The flows (`record`, `replay`, `check`, `conform`, `list`) own
 * their sequence, look a provider's family up in the one list (index.ts) and call these hooks;
 * they name no family. A family lives in `harness/families/<id>/` (README.md: how to add one).
 */
import type { BridgeTarget, BridgeTargetOptions } from "../conformance/target.js";
import type { ReplayAdapter } from "./agent-launch.js";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { PreparedProvider, RecordDirs } from "./record-provider.js";
import type { RecordProvider } from "./record-provider.js";

/** The providers `parity record` can drive through one family, in three groups (the order `--help` lists them). */
export interface FamilyRecordProviders {
  /** Real agent CLIs from the family's shipped agent profiles (run offline against the loopback model endpoint). */
  agents?: Readonly<Record<string, RecordProvider>>;
  /** Providers that are the bridge alone (no agent process, e.g. echo). */
  bridges?: Readonly<Record<string, RecordProvider>>;
  /** The family's scripted fixture agents, where the real CLI cannot run here. */
  fixtures?: Readonly<Record<string, RecordProvider>>;
}

/**
 * How `parity conform --bridge <name>` starts the family's bridge (spec 10 §7).
 */
export interface FamilyConform {
  /** The `--bridge` name (`acp`, `echo`). */
  readonly name: string;
  /** One line for `--help`. */
  readonly describe: string;
  /**
   * Builds the target: the transport that spawns `modulePath` (absolute) and the session
   * fixture; without `--launch-spec` / `--session` the family's own fixture agent and prompts.
   *
   * @throws UsageError naming the flag to add when a required option is missing.
   */
  resolve(options: BridgeTargetOptions, modulePath: string): BridgeTarget;
  /**
   * True when the bridge passes its agent's session id through as the provider thread id
   * (the stop rules word their failure for it); also applied when the module is named by path.
   */
  readonly passesAgentSessionId?: boolean;
}

/**
 * The `customAgents` entries a family records (spec 30 §2.2): the user's own agents of this
 * family, each with an optional agent profile (`record`).
 */
export interface FamilyCustomAgents {
  /**
   * The record provider for `providerId` among `entriesText` (a JSON array of the entries that
   * name this family, or the file's own text when none names a family), or undefined when
   * none of them is `providerId`. `file` is the customAgents file (messages, relative paths).
   *
   * @throws InputError naming `file` for an invalid entry or an agent whose command cannot start.
   */
  recordProvider(entriesText: string, providerId: string, file: string): Promise<RecordProvider | undefined>;
}

/** How the probe flow starts a process (inside a network namespace when asked); default `child_process.spawn`. */
export type ProbeSpawn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

/** What a family's probe answers: reachable or not, a label for the agent, the result as JSON and as text. */
export interface ProbeAnswer {
  /** True when the agent answered (`parity probe` exits 0, else 1). */
  reachable: boolean;
  /** The agent as a reader names it (`opencode acp`). */
  label: string;
  /** The family's own result shape (`--json` prints `{agent: label, ...result}`). */
  result: Record<string, unknown>;
  /** The text answer, ending in a newline. */
  text: string;
}

/**
 * `parity probe --provider <id>`: the flow prepared the provider exactly as `parity record`
 * does (fresh run dirs, the profile's config files and env, the loopback model endpoint) and
 * asks the family to probe the agent that `prepared.options` launch.
 */
export interface FamilyProviderProbeRequest {
  /** The provider id asked for. */
  providerId: string;
  /** What the provider's `prepare` returned (env of the bridge, launch options of the agent). */
  prepared: PreparedProvider;
  /** The run's dirs (all inside one temp root the flow removes afterwards). */
  dirs: RecordDirs;
  /** How long each request to the agent may wait, in ms. */
  timeoutMs: number;
  /** Go on to a session and send this one prompt (`--prompt`). */
  prompt?: string;
  /** Starts the agent (in the network namespace when the flow made one). */
  spawn?: ProbeSpawn;
  /** How the agent's network is isolated, as the answer should say (`netns: …`); absent: host network. */
  network?: string;
}

/** `parity probe --command "<cmd> <args…>"`: any agent command of the family, launched as given. */
export interface FamilyCommandProbeRequest {
  /** The agent as the user wrote it (`opencode acp`), for the answer's label. */
  label: string;
  command: string;
  args: string[];
  /** The agent's working directory. */
  cwd: string;
  timeoutMs: number;
  prompt?: string;
  spawn?: ProbeSpawn;
  network?: string;
  /** The environment the agent inherits (sanitized by the family); default `process.env`. */
  inheritedEnv?: Record<string, string | undefined>;
  /** Parent of any temp dir the family makes; default `os.tmpdir()`. */
  tempDir?: string;
}

/**
 * How to ask an installed agent of the family what it supports (spec 30 §3.2 for ACP).
 * Never throws for an agent that does not answer: that is `reachable: false`.
 */
export interface FamilyProbe {
  /** Probes the agent of a provider as `parity record` prepared it. */
  provider(request: FamilyProviderProbeRequest): Promise<ProbeAnswer>;
  /** Probes a bare agent command; omitted: `--command` does not reach this family. */
  command?(request: FamilyCommandProbeRequest): Promise<ProbeAnswer>;
}

/**
 * One bridge family. Its {@link ReplayAdapter} part (id, providers, `handles`, `modulePath`,
 * `pointAgentAt`, `launchOptions`, `launchEnv`) is the replay and launch seam; the rest is
 * record and conform.
 */
export interface BridgeFamily extends ReplayAdapter {
  /** Record: the providers `parity record --provider` knows for this family (built when asked). */
  recordProviders(): FamilyRecordProviders;
  /** Record: a user's own agents of this family from a `customAgents` file; omitted: the family takes none. */
  readonly customAgents?: FamilyCustomAgents;
  /** Conform: how a conformance session starts the bridge; omitted: `--bridge <name>` does not know it (a module path still works). */
  readonly conform?: FamilyConform;
  /** Probe: how to ask an installed agent of this family what it supports; omitted: `parity probe` refuses the family's providers. */
  readonly probe?: FamilyProbe;
}
