/**
 * User-defined ACP agents from the `customAgents` setting (spec 30 §2.2).
 *
 * The setting is a JSON array serialized as a string. Problems never throw: a bad setting or a bad
 * entry becomes a warning ("ACP custom agent setting: …") and is skipped, so one typo cannot hide
 * every other agent.
 */
import * as z from "zod";
import { ACP_AGENT_FAMILY, findShippedAcpAgent, reservedAcpProviderIds, shippedAcpAgents, type AcpAgentDefinition, type AcpBridgeOptions } from "./agents.js";
import { acpLaunchSpecSchema, acpModelCliSchema, acpNativeReasoningSchema, acpNativeSkillRootsSchema, acpPermissionCliSchema, acpReasoningCliSchema } from "./launch-spec.js";

/** The glyph every custom agent gets (spec 30 §2.2). */
export const CUSTOM_AGENT_GLYPH = "Toolbox";
/** Prefix of every warning about the setting. */
export const CUSTOM_AGENT_WARNING_PREFIX = "ACP custom agent setting: ";

/** One `customAgents` entry (strict; spec 30 §2.2). */
export const customAcpAgentEntrySchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "must be lowercase alphanumerics and dashes, starting alphanumeric"),
  displayName: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  dialect: z.string().min(1).optional(),
  modelCli: acpModelCliSchema.optional(),
  reasoningCli: acpReasoningCliSchema.optional(),
  nativeReasoning: acpNativeReasoningSchema.optional(),
  nativeSkillRoots: acpNativeSkillRootsSchema.optional(),
  permissionCli: acpPermissionCliSchema.optional(),
  supportsManualCompaction: z.boolean().default(false),
  supportsPlan: z.boolean().default(false),
});
/** One parsed `customAgents` entry. */
export type CustomAcpAgentEntry = z.output<typeof customAcpAgentEntrySchema>;

/** What {@link resolveCustomAcpAgents} returns: the accepted agents and one warning per rejection. */
export interface CustomAcpAgentsResult {
  agents: AcpAgentDefinition[];
  warnings: string[];
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
}

/**
 * Turns the `customAgents` setting (a JSON string, or `undefined`/empty for none) into agent
 * definitions (spec 30 §2.2): id `acp-<slug>`, family `acp`, glyph `Toolbox`, `visibility:"always"`,
 * `fork:"none"`, `dialect` → `acpDialect`. A slug equal to a shipped agent's inherits its
 * `nativeSkillRoots`. Rejected with a warning: invalid JSON, a non-array, a bad entry, a reserved
 * id (`acp-cursor`), a duplicate id, or an entry whose launch spec fails `acpLaunchSpecSchema`.
 * Never throws.
 */
export function resolveCustomAcpAgents(setting: string | undefined): CustomAcpAgentsResult {
  const warnings: string[] = [];
  const agents: AcpAgentDefinition[] = [];
  if (setting === undefined || setting.trim() === "") return { agents, warnings };
  let raw: unknown;
  try {
    raw = JSON.parse(setting);
  } catch (error) {
    warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}not valid JSON (${(error as Error).message}); ignored`);
    return { agents, warnings };
  }
  if (!Array.isArray(raw)) {
    warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}expected a JSON array of agents; ignored`);
    return { agents, warnings };
  }
  const reserved = new Set(reservedAcpProviderIds());
  const seen = new Set<string>();
  raw.forEach((value, index) => {
    const entry = customAcpAgentEntrySchema.safeParse(value);
    if (!entry.success) {
      warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}entry ${index}: ${describeIssues(entry.error)}`);
      return;
    }
    const e = entry.data;
    const providerId = `acp-${e.id}`;
    if (reserved.has(providerId)) {
      warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}entry ${index}: id "${e.id}" is reserved (${providerId} is a shipped agent)`);
      return;
    }
    if (seen.has(e.id)) {
      warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}entry ${index}: duplicate id "${e.id}"`);
      return;
    }
    const inherited = findShippedAcpAgent(providerId)?.launchSpec.nativeSkillRoots;
    const launchInput = {
      displayName: e.displayName,
      command: e.command,
      args: e.args,
      env: e.env,
      ...(e.cwd !== undefined ? { cwd: e.cwd } : {}),
      ...(e.modelCli ? { modelCli: e.modelCli } : {}),
      ...(e.reasoningCli ? { reasoningCli: e.reasoningCli } : {}),
      ...(e.nativeReasoning ? { nativeReasoning: e.nativeReasoning } : {}),
      ...((e.nativeSkillRoots ?? inherited) ? { nativeSkillRoots: e.nativeSkillRoots ?? inherited } : {}),
      ...(e.permissionCli ? { permissionCli: e.permissionCli } : {}),
    };
    const launch = acpLaunchSpecSchema.safeParse(launchInput);
    if (!launch.success) {
      warnings.push(`${CUSTOM_AGENT_WARNING_PREFIX}entry ${index} ("${e.id}"): invalid launch spec: ${describeIssues(launch.error)}`);
      return;
    }
    seen.add(e.id);
    const bridgeOptions: AcpBridgeOptions = { acpLaunchSpec: launch.data };
    if (e.dialect !== undefined) bridgeOptions.acpDialect = e.dialect;
    agents.push({
      id: providerId,
      displayName: e.displayName,
      family: ACP_AGENT_FAMILY,
      icon: CUSTOM_AGENT_GLYPH,
      ...(e.dialect !== undefined ? { dialect: e.dialect } : {}),
      fork: "none",
      visibility: "always",
      supportsManualCompaction: e.supportsManualCompaction,
      supportsPlan: e.supportsPlan,
      custom: true,
      launchSpec: launch.data,
      bridgeOptions,
    });
  });
  return { agents, warnings };
}

/**
 * Every ACP agent: the shipped ones, then custom ones. A custom agent whose id equals a shipped
 * `installed` agent's replaces it (the user's definition wins). Never throws.
 */
export function listAcpAgents(customAgentsSetting?: string): CustomAcpAgentsResult {
  const custom = resolveCustomAcpAgents(customAgentsSetting);
  const customIds = new Set(custom.agents.map((a) => a.id));
  const shipped = shippedAcpAgents().filter((a) => !customIds.has(a.id));
  return { agents: [...shipped, ...custom.agents], warnings: custom.warnings };
}
