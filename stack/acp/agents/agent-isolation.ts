/**
 * Environments that keep an ACP agent from touching the user's home or the network: a throwaway
 * HOME with every XDG base directory inside it, the offline switches a dialect's agent knows, and
 * the dialect's own child variables (spec 30 §1.6). Shared by `probeAcpAgent` (spec 30 §3.2) and
 * `parity record` (harness/record/providers.ts), so both run opencode the same way.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { defaultAcpDialectRegistry, OPENCODE_OFFLINE_ENV, type AcpDialectRegistry } from "../dialects/index.js";

/** HOME plus the five XDG base directories, all inside one directory (a type alias so it spreads into env records). */
export type IsolatedHomeEnv = {
  HOME: string;
  XDG_CONFIG_HOME: string;
  XDG_DATA_HOME: string;
  XDG_CACHE_HOME: string;
  XDG_STATE_HOME: string;
};

/**
 * The env keys of an isolated home rooted at `home` (an absolute path): `HOME=home`,
 * `XDG_CONFIG_HOME=home/.config`, `XDG_DATA_HOME=home/.local/share`, `XDG_CACHE_HOME=home/.cache`,
 * `XDG_STATE_HOME=home/.local/state` (the XDG defaults, so tools that ignore XDG agree). Pure:
 * creates nothing.
 */
export function isolatedHomeDirs(home: string): IsolatedHomeEnv {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
}

export { OPENCODE_OFFLINE_ENV };

/**
 * Extra variables every process of a dialect's agent gets: the dialect's `childEnv` (spec 30 §1.6:
 * opencode → `OPENCODE_CHILD_ENV`); `undefined` for an unknown id or a dialect without one.
 */
export function dialectChildEnv(dialectId: string, registry: AcpDialectRegistry = defaultAcpDialectRegistry): Readonly<Record<string, string>> | undefined {
  return registry.get(dialectId)?.childEnv;
}

/**
 * The offline switches of a dialect's agent when it must run without the network: the dialect's
 * `offlineEnv` (opencode → {@link OPENCODE_OFFLINE_ENV}); `undefined` when the dialect knows none.
 * A dialect with switches also wants an isolated home: those agents write config, databases and
 * caches under HOME/XDG.
 */
export function dialectOfflineEnv(dialectId: string, registry: AcpDialectRegistry = defaultAcpDialectRegistry): Readonly<Record<string, string>> | undefined {
  return registry.get(dialectId)?.offlineEnv;
}

/** A created isolated home; `dispose()` removes it with everything the agent wrote. */
export interface IsolatedHome {
  /** The home directory (absolute). */
  home: string;
  /** {@link isolatedHomeDirs} of `home`; every directory exists. */
  env: IsolatedHomeEnv;
  /** Removes `home` recursively; never throws. */
  dispose(): Promise<void>;
}

/**
 * Creates every directory of {@link isolatedHomeDirs}(`home`) (recursive, so `home` may or may
 * not exist) and returns the env. Filesystem errors propagate.
 */
export async function ensureIsolatedHome(home: string): Promise<IsolatedHomeEnv> {
  const env = isolatedHomeDirs(home);
  for (const dir of Object.values(env)) await mkdir(dir, { recursive: true });
  return env;
}

/**
 * Makes a fresh home directory `<parent>/<prefix>XXXXXX` (mkdtemp) with its XDG directories.
 * @throws the filesystem error when `parent` is not writable.
 */
export async function createIsolatedHome(parent: string, prefix = "acp-agent-home-"): Promise<IsolatedHome> {
  const home = await mkdtemp(path.join(parent, prefix));
  const env = await ensureIsolatedHome(home);
  return {
    home,
    env,
    dispose: async () => {
      // maxRetries: an agent killed a moment ago may still be closing files it wrote.
      await rm(home, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
    },
  };
}
