/**
 * The default I/O of maintenance hooks (spec 30 §6.5 "maintenance: raw `process.env` + spec env"):
 * local files only, and a usage transport that refuses, because this product makes no network
 * calls except loopback. A host that wants vendor usage injects its own `fetchUsage`.
 */
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import type { AcpMaintenanceIo, AcpUsageFetch, AcpUsageFetchRequest } from "./shapes.js";

/** Largest local file a maintenance hook reads (a token or config file), in bytes. */
export const MAINTENANCE_MAX_FILE_BYTES = 1024 * 1024;

/** Thrown by the default usage transport: the bridge does not call vendor APIs by itself. */
export class MaintenanceNetworkRefusedError extends Error {
  /** The refused call (its token is not kept). */
  readonly vendor: string;
  readonly operation: string;

  constructor(request: Pick<AcpUsageFetchRequest, "vendor" | "operation">) {
    super(`${request.vendor} usage needs the vendor's network API, and this bridge makes no network calls unless its host injects a usage transport.`);
    this.name = "MaintenanceNetworkRefusedError";
    this.vendor = request.vendor;
    this.operation = request.operation;
  }
}

/** The default usage transport: rejects every call with {@link MaintenanceNetworkRefusedError}, opening nothing. */
export const refuseUsageFetch: AcpUsageFetch = (request) => Promise.reject(new MaintenanceNetworkRefusedError(request));

/** Reads a UTF-8 file of at most {@link MAINTENANCE_MAX_FILE_BYTES}; null when absent, unreadable or larger. */
export async function readSmallTextFile(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > MAINTENANCE_MAX_FILE_BYTES) return null;
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/** The maintenance env (spec 30 §6.5): the bridge's raw env overlaid by the launch spec env. */
export function maintenanceEnv(bridgeEnv: Readonly<Record<string, string | undefined>>, specEnv: Readonly<Record<string, string>> | undefined): Record<string, string | undefined> {
  return { ...bridgeEnv, ...(specEnv ?? {}) };
}

/**
 * Maintenance I/O for `env`: `platform` = this process's, `homeDir` = `env.HOME` (`USERPROFILE`
 * on Windows) else the OS home, local reads via {@link readSmallTextFile}, usage via
 * {@link refuseUsageFetch}. `overrides` replace members (tests, hosts).
 */
export function createMaintenanceIo(env: Readonly<Record<string, string | undefined>>, overrides: Partial<AcpMaintenanceIo> = {}): AcpMaintenanceIo {
  const platform = overrides.platform ?? process.platform;
  const envHome = platform === "win32" ? (env.USERPROFILE ?? env.HOME) : env.HOME;
  return {
    env,
    platform,
    homeDir: overrides.homeDir ?? (envHome && envHome.length > 0 ? envHome : homedir()),
    readTextFile: overrides.readTextFile ?? readSmallTextFile,
    fetchUsage: overrides.fetchUsage ?? refuseUsageFetch,
  };
}
