/**
 * The five shipped ACP agents (spec 30 §2.1) and the definition shape custom agents share.
 *
 * A definition is data only: provider id, display facts, dialect, fork support and the launch
 * spec the runtime passes to the bridge (`experimental_bridgeOptions`). Nothing here spawns.
 */
import type { AcpLaunchSpec } from "./launch-spec.js";

/** Every ACP registration shares this family (spec 30 §2.1). */
export const ACP_AGENT_FAMILY = "acp";

/** Light/dark tint of an agent icon. */
export interface AcpAgentTint {
  light: string;
  dark: string;
}

/**
 * One ACP agent the product knows (spec 30 §2.1, §2.2).
 * `bridgeOptions` is what the runtime sends as `options.providerOptions` (launch spec + dialect).
 */
export interface AcpAgentDefinition {
  /** Provider id, `acp-<slug>`. */
  id: string;
  displayName: string;
  family: typeof ACP_AGENT_FAMILY;
  /** Icon id (`provider-acp/<name>`) or a glyph name (`Toolbox` for custom agents). */
  icon: string;
  tint?: AcpAgentTint;
  /** Explicit dialect id; absent = chosen from the command's basename. */
  dialect?: string;
  fork: "none" | "tip";
  /** `always`: listed even when the CLI is missing; `installed`: only when found. */
  visibility: "always" | "installed";
  /** Shell command a user runs to sign in, for guidance text. */
  signInCommand?: string;
  supportsManualCompaction: boolean;
  supportsPlan: boolean;
  /** True only for user-defined agents from the `customAgents` setting. */
  custom: boolean;
  launchSpec: AcpLaunchSpec;
  /** `options.providerOptions` for this agent's sessions (`acpLaunchSpec`, `acpDialect`, …). */
  bridgeOptions: AcpBridgeOptions;
}

/** The provider options an ACP agent contributes to each runtime request (spec 30 §2.1). */
export interface AcpBridgeOptions {
  acpLaunchSpec: AcpLaunchSpec;
  acpDialect?: string;
  parameterizedModelPicker?: boolean;
  primaryModels?: string[];
  reasoningProbePriorityModelIds?: string[];
}

interface ShippedInput extends Omit<AcpAgentDefinition, "family" | "custom" | "bridgeOptions"> {
  extraBridgeOptions?: Omit<AcpBridgeOptions, "acpLaunchSpec" | "acpDialect">;
}

function shipped(input: ShippedInput): AcpAgentDefinition {
  const { extraBridgeOptions, ...rest } = input;
  const bridgeOptions: AcpBridgeOptions = { acpLaunchSpec: input.launchSpec, ...extraBridgeOptions };
  if (input.dialect !== undefined) bridgeOptions.acpDialect = input.dialect;
  return { ...rest, family: ACP_AGENT_FAMILY, custom: false, bridgeOptions };
}

/** The reasoning ladder the shipped agents offer by default (`low…max`, spec 30 §2.1). */
const GROK_REASONING = {
  flag: "--reasoning-effort",
  supportedLevels: ["low", "medium", "high"],
  levelValues: { none: "low", xhigh: "high", ultracode: "high", max: "high" },
  defaultLevel: "high",
} as const;

/**
 * The shipped agents in the order the product lists them (spec 30 §2.1):
 * acp-cursor (`cursor-agent acp`), acp-opencode (`opencode acp`), acp-omp (`omp acp`),
 * acp-grok (`grok agent stdio`), acp-hermes-agent (`hermes acp`).
 */
export function shippedAcpAgents(): AcpAgentDefinition[] {
  return [
    shipped({
      id: "acp-cursor",
      displayName: "Cursor",
      icon: "provider-acp/cursor",
      tint: { light: "#111827", dark: "#F5F5F5" },
      dialect: "cursor",
      fork: "none",
      visibility: "always",
      signInCommand: "cursor-agent login",
      supportsManualCompaction: false,
      supportsPlan: false,
      launchSpec: {
        displayName: "Cursor",
        command: "cursor-agent",
        args: ["acp"],
        env: {},
        modelCli: { listArgs: ["--list-models"], primaryModels: [] },
        nativeSkillRoots: { user: ["~/.cursor/skills"], project: [".cursor/skills"] },
      },
      extraBridgeOptions: {
        parameterizedModelPicker: true,
        primaryModels: ["default", "grok-4.6", "gpt-5.6-sol", "claude-opus-5", "claude-fable-5", "composer-2.5"],
        reasoningProbePriorityModelIds: ["grok-4.6", "grok-4.5"],
      },
    }),
    shipped({
      id: "acp-opencode",
      displayName: "opencode",
      icon: "provider-acp/opencode",
      tint: { light: "#2563EB", dark: "#2563EB" },
      dialect: "opencode",
      fork: "tip",
      visibility: "installed",
      signInCommand: "opencode auth login",
      supportsManualCompaction: true,
      supportsPlan: false,
      launchSpec: { displayName: "opencode", command: "opencode", args: ["acp"], env: {} },
    }),
    shipped({
      id: "acp-omp",
      displayName: "omp",
      icon: "provider-acp/omp",
      tint: { light: "#9333EA", dark: "#9333EA" },
      fork: "tip",
      visibility: "installed",
      signInCommand: "omp login",
      supportsManualCompaction: true,
      supportsPlan: true,
      launchSpec: { displayName: "omp", command: "omp", args: ["acp"], env: {} },
    }),
    shipped({
      id: "acp-grok",
      displayName: "Grok Build",
      icon: "provider-acp/grok",
      dialect: "grok",
      fork: "none",
      visibility: "installed",
      signInCommand: "grok login",
      supportsManualCompaction: false,
      supportsPlan: false,
      launchSpec: {
        displayName: "Grok Build",
        command: "grok",
        args: ["agent", "stdio"],
        env: {},
        modelCli: { listArgs: ["models"], selectFlag: "--model", primaryModels: ["grok-4.5", "grok-composer-2.5-fast"] },
        permissionCli: { full: ["--always-approve"], insertAfterArgs: 1 },
        reasoningCli: { ...GROK_REASONING, supportedLevels: [...GROK_REASONING.supportedLevels], levelValues: { ...GROK_REASONING.levelValues } },
      },
    }),
    shipped({
      id: "acp-hermes-agent",
      displayName: "Hermes Agent",
      icon: "provider-acp/hermes-agent",
      fork: "tip",
      visibility: "installed",
      signInCommand: "hermes login",
      supportsManualCompaction: false,
      supportsPlan: false,
      launchSpec: {
        displayName: "Hermes Agent",
        command: "hermes",
        args: ["acp"],
        env: {},
        nativeReasoning: {
          configId: "reasoning_effort",
          supportedLevels: ["none", "low", "medium", "high", "xhigh", "max"],
          defaultLevel: "medium",
        },
      },
    }),
  ];
}

/** Provider ids that custom agents may not take: the `always`-visible shipped agents (spec 30 §2.1). */
export function reservedAcpProviderIds(): string[] {
  return shippedAcpAgents()
    .filter((agent) => agent.visibility === "always")
    .map((agent) => agent.id);
}

/** Looks up a shipped agent by provider id; `undefined` when unknown. */
export function findShippedAcpAgent(providerId: string): AcpAgentDefinition | undefined {
  return shippedAcpAgents().find((agent) => agent.id === providerId);
}
