/**
 * The ACP launch spec: how the bridge starts one ACP agent (spec 30 §3.1, spec 20 §1.2).
 *
 * The runtime sends it in every session request at `params.options.providerOptions.acpLaunchSpec`
 * (and at `params.providerOptions.acpLaunchSpec` for `model/list`). The top level is strict: an
 * unknown key invalidates the whole spec, so a typo never silently launches the wrong thing.
 */
import * as z from "zod";

/** The reasoning ladder bb speaks, lowest first (spec 20 §2.3 step 7, spec 30 §2.1). */
export const ACP_REASONING_LEVELS = ["none", "low", "medium", "high", "xhigh", "ultracode", "max", "ultra"] as const;
/** One reasoning level of the ladder. */
export const AcpReasoningLevelSchema = z.enum(ACP_REASONING_LEVELS);
/** One reasoning level of the ladder. */
export type AcpReasoningLevel = z.infer<typeof AcpReasoningLevelSchema>;

const nonEmpty = z.string().min(1);
/** Env var names as POSIX shells accept them; a name like `A=B` would corrupt the child env. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a valid environment variable name");

/** The levels part both reasoning selectors share: `supportedLevels, levelValues?, defaultLevel?` (spec 30 §3.1). */
const reasoningLevelFields = {
  supportedLevels: z.array(AcpReasoningLevelSchema),
  levelValues: z.partialRecord(AcpReasoningLevelSchema, nonEmpty).optional(),
  defaultLevel: AcpReasoningLevelSchema.optional(),
};

/** `{flag, supportedLevels, levelValues?, defaultLevel?}`: reasoning chosen by a launch flag (spec 30 §3.1). */
export const acpReasoningCliSchema = z.strictObject({ flag: nonEmpty, ...reasoningLevelFields });
/** Reasoning chosen by a launch flag. */
export type AcpReasoningCli = z.infer<typeof acpReasoningCliSchema>;

/** `{configId, supportedLevels, levelValues?, defaultLevel?}`: reasoning chosen by an ACP config option (spec 30 §3.1). */
export const acpNativeReasoningSchema = z.strictObject({ configId: nonEmpty, ...reasoningLevelFields });
/** Reasoning chosen by an ACP session config option. */
export type AcpNativeReasoning = z.infer<typeof acpNativeReasoningSchema>;

/** `{full?, workspaceWrite?, readonly?, insertAfterArgs?}`: launch args per permission mode (spec 20 §2.1). */
export const acpPermissionCliSchema = z.strictObject({
  full: z.array(z.string()).optional(),
  workspaceWrite: z.array(z.string()).optional(),
  readonly: z.array(z.string()).optional(),
  insertAfterArgs: z.number().int().min(0).optional(),
});
/** Launch args per permission mode. */
export type AcpPermissionCli = z.infer<typeof acpPermissionCliSchema>;

/** A CLI model catalog: `{listArgs, selectFlag?, primaryModels}` (spec 30 §3.1). */
export const acpModelCliSchema = z.strictObject({
  listArgs: z.array(z.string()),
  selectFlag: nonEmpty.optional(),
  primaryModels: z.array(z.string()),
});
/** A CLI model catalog. */
export type AcpModelCli = z.infer<typeof acpModelCliSchema>;

/** A native skill root: a path, or `{path, skipIfManifest?, recursive?, ancestors?}` (spec 30 §3.1). */
export const acpSkillRootSchema = z.union([
  nonEmpty,
  z.strictObject({
    path: nonEmpty,
    skipIfManifest: z.boolean().optional(),
    recursive: z.boolean().optional(),
    ancestors: z.boolean().optional(),
  }),
]);

/** `{user: root[], project: root[]}` (both default `[]`). */
export const acpNativeSkillRootsSchema = z.strictObject({
  user: z.array(acpSkillRootSchema).default([]),
  project: z.array(acpSkillRootSchema).default([]),
});

/**
 * The launch spec (spec 30 §3.1): `{displayName, command, args, env, cwd?, modelCli?, reasoningCli?,
 * nativeReasoning?, nativeSkillRoots?, permissionCli?}`. Strict at the top level. An empty
 * `modelCli.listArgs` turns `modelCli` into `undefined`; a `permissionCli` without any of
 * `full`/`workspaceWrite`/`readonly` is dropped (`normalizeAcpLaunchSpec`).
 */
export const acpLaunchSpecSchema = z
  .strictObject({
    displayName: nonEmpty,
    command: nonEmpty,
    args: z.array(z.string()),
    env: z.record(envName, z.string()),
    cwd: nonEmpty.optional(),
    modelCli: acpModelCliSchema.optional(),
    reasoningCli: acpReasoningCliSchema.optional(),
    nativeReasoning: acpNativeReasoningSchema.optional(),
    nativeSkillRoots: acpNativeSkillRootsSchema.optional(),
    permissionCli: acpPermissionCliSchema.optional(),
  })
  .transform(normalizeAcpLaunchSpec);
/** A validated, normalized launch spec. */
export type AcpLaunchSpec = z.output<typeof acpLaunchSpecSchema>;
/** The launch spec as written (before normalization). */
export type AcpLaunchSpecInput = z.input<typeof acpLaunchSpecSchema>;
/** Deprecated alias kept for bridges written against the experimental release of the kit (spec 30 §3.1; spec 02 §1). */
export type AcpAgentProfile = AcpLaunchSpec;

/**
 * Drops an empty `modelCli` (no list args) and a `permissionCli` that sets no mode (spec 30 §3.1).
 * Pure; returns a new object only when something changes.
 */
export function normalizeAcpLaunchSpec<T extends { modelCli?: AcpModelCli; permissionCli?: AcpPermissionCli }>(spec: T): T {
  let out = spec;
  if (out.modelCli && out.modelCli.listArgs.length === 0) {
    const { modelCli: _drop, ...rest } = out;
    out = rest as T;
  }
  const p = out.permissionCli;
  if (p && p.full === undefined && p.workspaceWrite === undefined && p.readonly === undefined) {
    const { permissionCli: _drop, ...rest } = out;
    out = rest as T;
  }
  return out;
}

/** Thrown when a launch spec is absent or invalid; the message names `acpLaunchSpec` and the first bad path. */
export class AcpLaunchSpecError extends Error {
  /** Where in the request the spec was looked for, e.g. `options.providerOptions.acpLaunchSpec`. */
  readonly where: string;
  constructor(where: string, problem: string) {
    super(`Invalid ${where}: ${problem}`);
    this.name = "AcpLaunchSpecError";
    this.where = where;
  }
}

/**
 * Validates a launch spec. Throws {@link AcpLaunchSpecError} naming `where` and each bad path
 * (`path: issue; …`) when `value` is absent or invalid (spec 20 §1.2: "message names `acpLaunchSpec`").
 */
export function parseAcpLaunchSpec(value: unknown, where = "options.providerOptions.acpLaunchSpec"): AcpLaunchSpec {
  if (value === undefined || value === null) throw new AcpLaunchSpecError(where, "missing (an ACP session needs a launch spec)");
  const parsed = acpLaunchSpecSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "(root)";
    return `${path}: ${issue.message}`;
  });
  throw new AcpLaunchSpecError(where, problems.join("; "));
}

/** The agent's label in messages: command and args, space-joined (`cursor-agent acp`, spec 20 §2.1). */
export function acpAgentLabel(spec: Pick<AcpLaunchSpec, "command" | "args">): string {
  return [spec.command, ...spec.args].join(" ");
}
