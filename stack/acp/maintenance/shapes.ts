/**
 * Wire shapes of the ACP bridge's maintenance answers (spec 20 §1.2 row `provider/health`,
 * `provider/usage`, `provider/installation/status`, `provider/installation/run`), and the I/O a
 * dialect's maintenance hooks are given (spec 30 §1.1 `maintenance`).
 *
 * The installation status key set is the one the reference bridge sent in the recorded
 * `acp-cursor/model-list` cell; the schemas are strict so a stray or missing key fails a parse.
 */
import * as z from "zod";

const nullableText = z.string().min(1).nullable();

/** `installAction` of an installation status: what the runtime may offer the user. */
export const ProviderInstallActionSchema = z.strictObject({
  kind: z.enum(["install", "update"]),
  label: z.enum(["Install", "Update"]),
  /** The command as shown to the user (never run by the bridge). */
  command: z.string().min(1),
});
/** `installAction` of an installation status. */
export type ProviderInstallAction = z.infer<typeof ProviderInstallActionSchema>;

/**
 * `provider/installation/status` result (spec 20 §1.2, §4 cell 4): the launch command looked up on
 * the child env's `PATH`, its `--version`, and the install facts an ACP agent can know (no npm
 * package, no registry lookup, so the npm/latest/minimum fields are always null).
 */
export const ProviderInstallationStatusSchema = z.strictObject({
  /** The launch spec `command` as given ("" without a launch spec). */
  executableName: z.string(),
  /** Absolute (or as-given relative) path of the executable found; null when not found. */
  executablePath: nullableText,
  installed: z.boolean(),
  installSource: z.enum(["external", "notInstalled"]),
  /** From `<command> --version`; null when not installed or unreadable. */
  currentVersion: nullableText,
  latestVersion: nullableText,
  minimumSupportedVersion: nullableText,
  npmPackageName: nullableText,
  npmGlobalPackageVersion: nullableText,
  installAction: ProviderInstallActionSchema.nullable(),
  needsUpdate: z.boolean(),
  versionUnsupported: z.boolean(),
});
/** `provider/installation/status` result. */
export type ProviderInstallationStatus = z.infer<typeof ProviderInstallationStatusSchema>;

/** The health states of spec 20 §1.2. */
export const PROVIDER_HEALTH_STATUSES = ["ready", "not_installed", "unauthenticated", "unknown"] as const;
/** One of {@link PROVIDER_HEALTH_STATUSES}. */
export type ProviderHealthStatus = (typeof PROVIDER_HEALTH_STATUSES)[number];

/** `provider/health` result: `{supported:true, health:{status, …, loginCommand}}` (spec 20 §1.2). */
export const ProviderHealthResultSchema = z.strictObject({
  supported: z.literal(true),
  health: z.strictObject({
    status: z.enum(PROVIDER_HEALTH_STATUSES),
    /** Why the status is not `ready` (or why it is `unknown`); null otherwise. */
    statusMessage: nullableText,
    /** Signed-in account, when local evidence names one. */
    accountEmail: nullableText,
    planLabel: nullableText,
    /** `--version` of the installed command. */
    installedVersion: nullableText,
    minimumSupportedVersion: nullableText,
    /** True when `provider/installation/run {action:"install"}` can return a plan. */
    canInstall: z.boolean(),
    /** True when `provider/installation/run {action:"update"}` can return a plan. */
    canUpdate: z.boolean(),
    /** The sign-in command shown to the user (shipped agent's, else the dialect's); null if none. */
    loginCommand: nullableText,
  }),
});
/** `provider/health` result. */
export type ProviderHealthResult = z.infer<typeof ProviderHealthResultSchema>;

/** One usage window (a plan quota or a spend limit), percent 0–100. */
export const ProviderUsageWindowSchema = z.strictObject({
  label: z.string().min(1),
  usedPercent: z.number().min(0).max(100),
  /** ISO-8601 instant the window resets, when known. */
  resetsAt: z.string().nullable(),
  /** Spend windows only: amounts in US cents. */
  cost: z.strictObject({ usedUsdCents: z.number().int().min(0), limitUsdCents: z.number().int().min(0) }).optional(),
});
/** One usage window. */
export type ProviderUsageWindow = z.infer<typeof ProviderUsageWindowSchema>;

/**
 * The `usage` member of a supported `provider/usage` answer. `error` also carries the refusal of
 * the default (no-network) transport, with a message saying so.
 */
export const ProviderUsageSchema = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("ok"), accountEmail: nullableText, planLabel: nullableText, windows: z.array(ProviderUsageWindowSchema) }),
  z.strictObject({ status: z.literal("error"), message: z.string().min(1), accountEmail: nullableText, planLabel: nullableText }),
  z.strictObject({ status: z.literal("not_installed") }),
  z.strictObject({ status: z.literal("unauthenticated") }),
  z.strictObject({ status: z.literal("expired") }),
]);
/** The `usage` member of a supported `provider/usage` answer. */
export type ProviderUsage = z.infer<typeof ProviderUsageSchema>;

/** `provider/usage` result: `{supported:false}` or `{supported:true, usage}` (spec 20 §1.2). */
export const ProviderUsageResultSchema = z.union([z.strictObject({ supported: z.literal(false) }), z.strictObject({ supported: z.literal(true), usage: ProviderUsageSchema })]);
/** `provider/usage` result. */
export type ProviderUsageResult = z.infer<typeof ProviderUsageResultSchema>;

/** An installer as a process to run: always `sh -c <script>` here (spec 20 §1.2). */
export const ProviderInstallerCommandSchema = z.strictObject({
  command: z.literal("sh"),
  args: z.tuple([z.literal("-c"), z.string().min(1)]),
  /** The command line as shown to the user. */
  displayCommand: z.string().min(1),
});
/** An installer as a process to run. */
export type ProviderInstallerCommand = z.infer<typeof ProviderInstallerCommandSchema>;

/**
 * `provider/installation/run` result (spec 20 §1.2): a plan the runtime may run, then verify by
 * asking `provider/installation/status` again (`verification.kind:"installed"`), or
 * `{available:false, message}`. The bridge never runs the plan itself.
 */
export const ProviderInstallationRunResultSchema = z.union([
  z.strictObject({ available: z.literal(false), message: z.string().min(1) }),
  z.strictObject({ available: z.literal(true), command: ProviderInstallerCommandSchema, verification: z.strictObject({ kind: z.literal("installed") }) }),
]);
/** `provider/installation/run` result. */
export type ProviderInstallationRunResult = z.infer<typeof ProviderInstallationRunResultSchema>;

/** One call of a usage reader to its vendor's API, made by the host-injected transport. */
export interface AcpUsageFetchRequest {
  /** Dialect id whose reader asks (`cursor`). */
  vendor: string;
  /** Abstract operation name (`currentPeriodUsage`, `planInfo`); the transport maps it to an endpoint. */
  operation: string;
  /** The saved sign-in token, sent by the transport as the vendor expects. */
  accessToken: string;
  /** Upper bound for the call, in ms; the transport enforces it. */
  timeoutMs: number;
}

/** A transport's answer: HTTP-like status and the parsed JSON body (`undefined` when none). */
export interface AcpUsageFetchResponse {
  status: number;
  body: unknown;
}

/**
 * The usage transport. The bridge's default refuses every call (this product makes no network
 * calls except loopback); a host that wants usage injects a real one.
 */
export type AcpUsageFetch = (request: AcpUsageFetchRequest) => Promise<AcpUsageFetchResponse>;

/** Local evidence about sign-in: `signedIn`, the account when known, and where it came from. */
export interface AcpSignInEvidence {
  signedIn: boolean;
  accountEmail?: string | null;
  /** Short description of the evidence, e.g. `env CURSOR_API_KEY` or a file path. */
  source: string;
}

/**
 * What maintenance hooks may touch: the maintenance env (raw bridge env + spec env, spec 30
 * §6.5), the platform and home directory, a local file reader and the usage transport.
 */
export interface AcpMaintenanceIo {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** `env.HOME` (or `USERPROFILE`), else the OS home directory. */
  homeDir: string;
  /** A small local text file's content; null when absent or unreadable. Never throws. */
  readTextFile(path: string): Promise<string | null>;
  fetchUsage: AcpUsageFetch;
}

/** An installer script a dialect offers; the bridge wraps it as `sh -c <script>`. */
export interface AcpInstallerScript {
  script: string;
  /** Shown to the user; defaults to the script. */
  displayCommand?: string;
}

/**
 * A dialect's provider maintenance (spec 30 §1.1 `maintenance`; §1.3 Cursor, §2.1 "Health
 * maintenance is on for all; usage/installation only for Cursor"). Asked by `provider/health`,
 * `provider/usage` and `provider/installation/*` after the dialect is resolved from
 * `acpDialect` + the spec command. Unlike the other hooks these are async and read local state,
 * but only through the injected {@link AcpMaintenanceIo} (no network unless a host injects it).
 */
export interface AcpDialectMaintenance {
  /** Sign-in command for health answers when the provider is not a shipped agent with one. */
  readonly loginCommand?: string;
  /**
   * Local sign-in evidence for `provider/health` (`signedIn:false` → `unauthenticated`);
   * `undefined` = no evidence either way (health stays `ready`). Never starts a session.
   */
  readSignIn?(io: AcpMaintenanceIo): Promise<AcpSignInEvidence | undefined>;
  /** Plan usage for `provider/usage`; absent → `{supported:false}`. */
  readUsage?(io: AcpMaintenanceIo): Promise<ProviderUsageResult>;
  /** Installer script for `provider/installation/run` on `platform`; absent/undefined → none. */
  installer?(platform: NodeJS.Platform): AcpInstallerScript | undefined;
}
