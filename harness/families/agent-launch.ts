/**
 * The agent-launch half of a bridge family (docs/design/00-product.md flow 2; spec 10 §5.1 Profiles and g):
 * a bridge starts the process that plays its agent — the real agent CLI, the project's scripted
 * fixture agent, or, in a replay, the replay child — from a command line carried in the
 * runtime's requests. What differs per bridge family (which module the bootstrap loads, where in
 * a request the agent's command line sits and how it is re-pointed) lives behind one
 * {@link ReplayAdapter}, which every `BridgeFamily` (family.ts) is; the replay engine
 * (harness/replay) calls its hooks and knows no family's shape.
 */

/** The process that plays the agent: an executable and its arguments. */
export interface AgentCommand {
  /** Executable (for the replay child: the node binary). */
  command: string;
  /** Its arguments (for the replay child: the child script and its flags). */
  args: readonly string[];
}

/** An agent to start for a recording: its command line, and the environment and directory it needs. */
export interface AgentLaunch extends AgentCommand {
  /** Environment of the agent process (omitted: the family's default). */
  env?: Readonly<Record<string, string>>;
  /** Its working directory (omitted: the session's `cwd`). */
  cwd?: string;
}

/** What a family's launch options start from: a shipped agent's launch fields and bridge options. */
export interface LaunchBase {
  /** Fields of the family's launch description kept beside the command line (e.g. an ACP `displayName`). */
  launch?: Readonly<Record<string, unknown>>;
  /** Bridge options the agent is run with (e.g. an ACP agent's `permissionCli`, its dialect). */
  bridgeOptions?: Readonly<Record<string, unknown>>;
}

/**
 * One bridge family's replay adapter, as Polly's adapters sit behind one base: the engine owns
 * the record/replay flow and calls these hooks.
 */
export interface ReplayAdapter {
  /** Short name of the family (`acp`, `echo`). */
  readonly id: string;
  /** The provider ids it replays, as people read them in an error (`acp-*`). */
  readonly providers: string;
  /** True when this adapter replays `provider`'s recordings. */
  handles(provider: string): boolean;
  /**
   * The bridge module the bootstrap loads, relative to the repository root (`dist/…`); the one
   * place the family's module path is written (record and conform resolve it with `bridgeModule`).
   */
  readonly modulePath: string;
  /**
   * A substring every runtime line carrying this family's agent launch contains; lines without
   * it (or without any other rewrite) are passed on unparsed, byte for byte.
   */
  readonly launchMarker?: string;
  /**
   * Points the agent launch carried by one parsed `runtime→bridge` line's `params` at `agent`,
   * in place (the line is re-serialized with its key order kept). Called for every JSON object
   * line whose `params` is an object, whatever the provider, since a bridge module given with
   * `--module` may launch an agent of this family. Omitted: the family launches no agent.
   *
   * @returns true when `params` changed
   */
  pointAgentAt?(params: Record<string, unknown>, agent: AgentCommand): boolean;
  /**
   * The execution options (`params.options` of the session requests) that make this family's
   * bridge start `agent`: how `parity record` points the bridge at a real agent or at the
   * project's fixture agent, where a replay points it at the replay child ({@link pointAgentAt}).
   * Omitted: the family launches no agent.
   */
  launchOptions?(agent: AgentLaunch, base?: LaunchBase): Record<string, unknown>;
  /**
   * The environment the agent launch in execution `options` gives the agent (the record flow
   * redacts its secret values); empty when the options carry none of this family's launches.
   */
  launchEnv?(options: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /**
   * True for a recorded `bridge→provider` line that is the first line the bridge writes to a
   * new agent process of this family, for a family whose agents do not start with a JSON-RPC
   * `initialize` (Claude Code's `initialize` control request; pi's RPC wire has no handshake):
   * a replay starts the next recorded agent process's lines there, so a second process (a
   * resume) is played its own lines. Omitted: only `initialize` starts an agent.
   */
  startsAgent?(line: string): boolean;
}
