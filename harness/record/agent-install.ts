/**
 * Another version of a provider's real agent, installed apart from the project (issue 41,
 * "record with any version, without touching the project's pins"): the provider's version package
 * (its `agentPackages[0]`) at the asked version, the other packages its profile names at their
 * pins in `agents/package.json`, installed by the ordinary package client — `npm install --prefix
 * <dir> --no-audit --no-fund`, as `npm run agents:install` does — into a cache directory outside
 * the project, with npm's own cache beside it so nothing is written to HOME. An install that
 * completed is reused: a marker file written last names what was installed.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { EXIT_CODES, ParityError, UsageError } from "../errors.js";

/** An exact version as npm publishes it (`0.170.0`, `2.1.325`, `1.0.0-beta.3`); no ranges or tags. */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** True for an exact version ({@link agentInstallPlan}'s rule), as opposed to a folder or a range. */
export function isExactVersion(value: string): boolean {
  return EXACT_VERSION.test(value);
}

/** The marker an install writes last: what it holds (reuse only when it names the same packages). */
const MARKER = ".parity-agent-install.json";

/** What to install for one provider and version. */
export interface AgentInstallPlan {
  provider: string;
  /** The package whose version was asked (`@openai/codex`). */
  versionPackage: string;
  version: string;
  /** Every package to install, name → exact version (the version package's is `version`). */
  packages: Record<string, string>;
  /**
   * The flag that asked for `version`, as errors name it: `--agent-version` (`parity record`),
   * `--from` or `--to` (`parity drift`).
   */
  flag: string;
}

/**
 * The install plan for `provider` at `version`: its version package at `version`, each other
 * package of `agentPackages` that `pins` names at its pin (the rest — a platform binary such as
 * `@openai/codex-linux-x64` — come with the version package as its own dependencies).
 *
 * @param agentPackages the provider's `agentPackages` (record-provider.ts); absent: no npm agent
 * @param pins `dependencies` of `agents/package.json`
 * @param flag the flag the version came from, as the errors name it (default `--agent-version`)
 * @throws UsageError (exit 2) `<flag> <v>: …` for a version that is not exact, or a
 *   provider without a version package pinned in `agents/package.json`
 */
export function agentInstallPlan(provider: string, version: string, agentPackages: readonly string[] | undefined, pins: Readonly<Record<string, string>>, flag = "--agent-version"): AgentInstallPlan {
  if (!EXACT_VERSION.test(version)) throw new UsageError(`${flag} ${version}: not an exact version (e.g. 0.170.0; no ranges or tags)`);
  const versionPackage = agentPackages?.[0];
  if (versionPackage === undefined || !Object.hasOwn(pins, versionPackage)) {
    const why = versionPackage === undefined ? "it runs no npm agent" : `its agent ${versionPackage} is not pinned in agents/package.json`;
    throw new UsageError(`${flag} ${version}: provider ${provider} cannot be recorded at another version (${why})`);
  }
  const packages: Record<string, string> = { [versionPackage]: version };
  for (const name of agentPackages!.slice(1)) if (Object.hasOwn(pins, name)) packages[name] = pins[name]!;
  return { provider, versionPackage, version, packages, flag };
}

/**
 * The agents' pins: `dependencies` of `<agentsRoot>/package.json` (the project's `agents/`).
 * @throws UsageError naming the file when it cannot be read
 */
export async function readAgentPins(agentsRoot: string): Promise<Record<string, string>> {
  const file = path.join(agentsRoot, "package.json");
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as { dependencies?: Record<string, string> };
    return { ...(parsed.dependencies ?? {}) };
  } catch (error) {
    throw new UsageError(`${file}: cannot read the agents' pins: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** The pinned version of `provider`'s version package, or undefined when it has none (agentInstallPlan's rule). */
export function pinnedAgentVersion(agentPackages: readonly string[] | undefined, pins: Readonly<Record<string, string>>): string | undefined {
  const versionPackage = agentPackages?.[0];
  return versionPackage !== undefined && Object.hasOwn(pins, versionPackage) ? pins[versionPackage] : undefined;
}

/** Where one provider's version is installed: `<cacheRoot>/<provider>@<version>` (a scoped provider id never has a slash). */
export function agentInstallDir(cacheRoot: string, plan: Pick<AgentInstallPlan, "provider" | "version">): string {
  return path.join(cacheRoot, `${plan.provider}@${plan.version}`);
}

/** What {@link installAgentVersion} did. */
export interface AgentInstall {
  /** The agents directory to record with (`<dir>/node_modules/<package>`). */
  dir: string;
  /** True when a completed install of the same packages was already there. */
  reused: boolean;
}

/** How {@link installAgentVersion} runs npm. */
export interface AgentInstallOptions {
  /** Parent of every install and of npm's cache (`<cacheRoot>/.npm`). */
  cacheRoot: string;
  /** npm's command; default `npm` on PATH. */
  npm?: string;
  /**
   * Install specs that replace a package's `name@version` (name → spec, e.g. a local tarball
   * path): how a test installs a fixture package offline. The marker still names the versions.
   */
  sources?: Readonly<Record<string, string>>;
  /** The environment npm runs in; default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Called with the install directory just before npm runs (not when an install is reused): where a caller says it is installing. */
  onInstall?: (dir: string) => void;
}

/**
 * Installs `plan` into {@link agentInstallDir} (see the module doc), or reuses a completed
 * install of the same packages there.
 *
 * @throws UsageError (exit 2) `<plan.flag> <v>: npm has no …` when npm has no such version or package (`ETARGET`, `E404`);
 *   ParityError `E_AGENT_INSTALL` (exit 5) for any other npm failure, with npm's first error line
 */
export async function installAgentVersion(plan: AgentInstallPlan, options: AgentInstallOptions): Promise<AgentInstall> {
  const dir = agentInstallDir(options.cacheRoot, plan);
  const marker = path.join(dir, MARKER);
  const wanted = JSON.stringify(plan.packages);
  if (existsSync(marker) && (await readFile(marker, "utf8").catch(() => "")).trim() === wanted) return { dir, reused: true };
  options.onInstall?.(dir);
  await mkdir(dir, { recursive: true });
  // The install's own package.json (never the project's): npm installs exactly these.
  const dependencies = Object.fromEntries(Object.entries(plan.packages).map(([name, version]) => [name, options.sources?.[name] ?? version]));
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify({ name: "parity-agent-install", private: true, dependencies }, null, 2)}\n`);
  const args = ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error", "--cache", path.join(options.cacheRoot, ".npm")];
  try {
    await promisify(execFile)(options.npm ?? "npm", args, { env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    // A failed install is never reused (no marker) and not left half-made in the cache.
    await rm(dir, { recursive: true, force: true });
    const text = `${(error as { stderr?: string }).stderr ?? ""}\n${(error as Error).message}`;
    const first = text.split("\n").find((l) => /npm error (?!code)/.test(l) && l.trim() !== "npm error") ?? text.split("\n").find((l) => l.trim() !== "") ?? "";
    const spec = `${plan.versionPackage}@${plan.version}`;
    if (/\b(ETARGET|E404)\b/.test(text)) throw new UsageError(`${plan.flag} ${plan.version}: npm has no ${spec} (${first.replace(/^npm error /, "").trim()})`);
    throw new ParityError("E_AGENT_INSTALL", `npm install ${spec} into ${dir} failed: ${first.replace(/^npm error /, "").trim()}`, EXIT_CODES.internalError, { cause: error });
  }
  const installed = await readFile(path.join(dir, "node_modules", plan.versionPackage, "package.json"), "utf8")
    .then((t) => String((JSON.parse(t) as { version?: unknown }).version))
    .catch(() => undefined);
  if (installed !== plan.version) {
    throw new ParityError("E_AGENT_INSTALL", `npm install into ${dir} left ${plan.versionPackage} at ${installed ?? "nothing"}, not ${plan.version}`, EXIT_CODES.internalError);
  }
  await writeFile(marker, `${wanted}\n`);
  return { dir, reused: false };
}
