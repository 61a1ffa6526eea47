/**
 * What a bridge family is (00-product.md; spec 10 §5.1 Profiles): one bridge module and
 * everything the flows need to drive it, behind hooks, as Polly's adapters sit behind one base
 * (../shared/spec/40-style.md). The flows (`record`, `replay`, `check`, `conform`, `list`) own
 * their sequence, look a provider's family up in the one list (index.ts) and call these hooks;
 * they name no family. A family lives in `harness/families/<id>/` (README.md: how to add one).
 */
import type { BridgeTarget, BridgeTargetOptions } from "../conformance/target.js";
import type { ReplayAdapter } from "./agent-launch.js";
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
}
