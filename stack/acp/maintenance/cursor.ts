/**
 * Cursor's maintenance (spec 30 §1.3 `CURSOR_ACP_MAINTENANCE`; spec 20 §7 "maintenance via
 * Cursor's saved token, `state.vscdb` email, dashboard usage API and install script").
 *
 * - Sign-in evidence: `CURSOR_API_KEY`/`CURSOR_AUTH_TOKEN` in the maintenance env (the keys the
 *   Cursor auth sniff names, spec 20 §3.11), else Cursor's saved token file. The file's location
 *   is the one the reference bridge reads (the spec says only "saved token"). On macOS the token
 *   may live in the keychain instead, which this bridge does not read: no file there is no evidence.
 * - Usage: the dashboard usage API through the injected transport only (the default refuses);
 *   this module holds no URL. Responses are parsed as the reference reads them.
 * - Installer: none. The spec names an install script but not its command, so
 *   `provider/installation/run` answers `{available:false}` for Cursor.
 * - Not read: the account email in `state.vscdb` (needs SQLite, which Node 20 lacks).
 */
import { join } from "node:path";
import * as z from "zod";
import type { AcpDialectMaintenance } from "./shapes.js";
import type { AcpMaintenanceIo, AcpSignInEvidence, ProviderUsage, ProviderUsageResult, ProviderUsageWindow } from "./shapes.js";

/** Cursor's sign-in command (spec 30 §2.1). */
export const CURSOR_LOGIN_COMMAND = "cursor-agent login";

/** Env keys that sign `cursor-agent` in without a saved token. */
export const CURSOR_AUTH_ENV_KEYS = ["CURSOR_API_KEY", "CURSOR_AUTH_TOKEN"] as const;

/** Upper bound of one usage call, in ms (given to the transport). */
export const CURSOR_USAGE_TIMEOUT_MS = 15_000;

/**
 * Where Cursor keeps its saved sign-in token: `%APPDATA%\Cursor\auth.json` on Windows,
 * `~/.cursor/auth.json` on macOS, `$XDG_CONFIG_HOME/cursor/auth.json` (default `~/.config`)
 * elsewhere. Paths come from `io.env` and `io.homeDir`, never from this process.
 */
export function cursorAuthFilePath(io: Pick<AcpMaintenanceIo, "env" | "platform" | "homeDir">): string {
  if (io.platform === "win32") return join(io.env.APPDATA || join(io.homeDir, "AppData", "Roaming"), "Cursor", "auth.json");
  if (io.platform === "darwin") return join(io.homeDir, ".cursor", "auth.json");
  return join(io.env.XDG_CONFIG_HOME || join(io.homeDir, ".config"), "cursor", "auth.json");
}

const CursorAuthFileSchema = z.looseObject({ accessToken: z.string().min(1).nullish() });

/** The saved access token, or null when the file is absent, unreadable, not JSON or has none. */
export async function readCursorAccessToken(io: AcpMaintenanceIo): Promise<string | null> {
  const text = await io.readTextFile(cursorAuthFilePath(io));
  if (text === null) return null;
  try {
    const parsed = CursorAuthFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.accessToken ?? null) : null;
  } catch {
    return null;
  }
}

function authEnvKey(io: AcpMaintenanceIo): string | undefined {
  return CURSOR_AUTH_ENV_KEYS.find((key) => (io.env[key] ?? "").length > 0);
}

/**
 * Local sign-in evidence for Cursor: an auth env key or a saved token → signed in; no token file
 * → signed out, except on macOS (keychain not read) → undefined. Reads no network, starts nothing.
 */
export async function readCursorSignIn(io: AcpMaintenanceIo): Promise<AcpSignInEvidence | undefined> {
  const key = authEnvKey(io);
  if (key !== undefined) return { signedIn: true, accountEmail: null, source: `env ${key}` };
  const path = cursorAuthFilePath(io);
  if ((await readCursorAccessToken(io)) !== null) return { signedIn: true, accountEmail: null, source: path };
  if (io.platform === "darwin") return undefined;
  return { signedIn: false, source: path };
}

const centsSchema = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]).refine((n) => Number.isSafeInteger(n));

const CursorUsageResponseSchema = z.looseObject({
  /** Epoch ms the billing cycle ends. */
  billingCycleEnd: centsSchema.nullish(),
  planUsage: z.looseObject({ totalPercentUsed: z.number().nonnegative().default(0) }).nullish(),
  spendLimitUsage: z
    .looseObject({
      overallLimit: centsSchema.nullish(),
      overallUsed: centsSchema.nullish(),
      individualLimit: centsSchema.nullish(),
      individualUsed: centsSchema.nullish(),
      pooledLimit: centsSchema.nullish(),
      pooledUsed: centsSchema.nullish(),
    })
    .nullish(),
});

const CursorPlanResponseSchema = z.looseObject({ planInfo: z.looseObject({ planName: z.string().min(1) }).nullish() });

function clampPercent(value: number): number {
  return Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0;
}

function spendPair(spend: z.infer<typeof CursorUsageResponseSchema>["spendLimitUsage"]): { limit: number; used: number } | null {
  if (!spend) return null;
  // The first limit present wins: the overall cap, else the member's own, else the team pool.
  if (spend.overallLimit != null) return { limit: spend.overallLimit, used: spend.overallUsed ?? 0 };
  if (spend.individualLimit != null) return { limit: spend.individualLimit, used: spend.individualUsed ?? 0 };
  if (spend.pooledLimit != null) return { limit: spend.pooledLimit, used: spend.pooledUsed ?? 0 };
  return null;
}

/**
 * Cursor's usage answers → a usage report: window "Plan usage" (`planUsage.totalPercentUsed`) and,
 * when a spend limit > 0 exists, "On-demand spend" (used/limit in US cents); both reset at
 * `billingCycleEnd` (epoch ms → ISO). Plan label = `planInfo.planName`. A usage body that does not
 * parse → `error` "Cursor usage response was malformed.".
 */
export function normalizeCursorUsage(rawUsage: unknown, rawPlan: unknown, accountEmail: string | null = null): ProviderUsage {
  const usage = CursorUsageResponseSchema.safeParse(rawUsage);
  if (!usage.success) return { status: "error", message: "Cursor usage response was malformed.", planLabel: null, accountEmail };
  const plan = CursorPlanResponseSchema.safeParse(rawPlan);
  const end = usage.data.billingCycleEnd;
  const resetsAt = end == null || !Number.isFinite(new Date(end).getTime()) ? null : new Date(end).toISOString();
  const windows: ProviderUsageWindow[] = [];
  if (usage.data.planUsage) windows.push({ label: "Plan usage", usedPercent: clampPercent(usage.data.planUsage.totalPercentUsed), resetsAt });
  const pair = spendPair(usage.data.spendLimitUsage);
  if (pair && pair.limit > 0) {
    windows.push({
      label: "On-demand spend",
      usedPercent: clampPercent((pair.used / pair.limit) * 100),
      resetsAt,
      cost: { usedUsdCents: pair.used, limitUsdCents: pair.limit },
    });
  }
  return { status: "ok", accountEmail, planLabel: plan.success ? (plan.data.planInfo?.planName ?? null) : null, windows };
}

const isOk = (status: number): boolean => status >= 200 && status < 300;

/**
 * Cursor plan usage through `io.fetchUsage` (operations `currentPeriodUsage` and `planInfo`, both
 * with the saved token). No token → `unauthenticated` (on macOS, or with an auth env key set, an
 * `error` saying the token could not be read instead). A 401 → `expired`; another non-2xx usage
 * answer → `error` with the HTTP status; a transport failure (the default transport's refusal
 * included) → `error` with its message. Never throws.
 */
export async function readCursorUsage(io: AcpMaintenanceIo): Promise<ProviderUsageResult> {
  const token = await readCursorAccessToken(io);
  if (token === null) {
    if (io.platform !== "darwin" && authEnvKey(io) === undefined) return { supported: true, usage: { status: "unauthenticated" } };
    const message = "Cursor usage needs the saved sign-in token, which this bridge could not read (macOS keychain and API keys are not used).";
    return { supported: true, usage: { status: "error", message, planLabel: null, accountEmail: null } };
  }
  const call = (operation: string) => io.fetchUsage({ vendor: "cursor", operation, accessToken: token, timeoutMs: CURSOR_USAGE_TIMEOUT_MS });
  try {
    const [usage, plan] = await Promise.all([call("currentPeriodUsage"), call("planInfo")]);
    if (usage.status === 401 || plan.status === 401) return { supported: true, usage: { status: "expired" } };
    if (!isOk(usage.status)) {
      return { supported: true, usage: { status: "error", message: `Cursor usage request failed (HTTP ${usage.status}).`, planLabel: null, accountEmail: null } };
    }
    return { supported: true, usage: normalizeCursorUsage(usage.body, isOk(plan.status) ? plan.body : {}) };
  } catch (error) {
    const message = error instanceof Error && error.message.length > 0 ? error.message : String(error) || "Cursor usage request failed.";
    return { supported: true, usage: { status: "error", message, planLabel: null, accountEmail: null } };
  }
}

/** Cursor's maintenance (spec 30 §1.3): sign-in evidence and usage; no installer (see module doc). */
export const CURSOR_ACP_MAINTENANCE: AcpDialectMaintenance = Object.freeze({
  loginCommand: CURSOR_LOGIN_COMMAND,
  readSignIn: readCursorSignIn,
  readUsage: readCursorUsage,
});
