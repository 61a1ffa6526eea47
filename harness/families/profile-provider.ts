/**
 * A {@link RecordProvider} from an agent profile (agent-profile.ts): a real agent run through
 * its family's bridge against the loopback model endpoint in the profile's model API, with a
 * fresh HOME, XDG dirs and TMPDIR inside the record's temp dir, the profile's env and config
 * files filled in, and its real version read for the manifest. The family says which bridge
 * and how its launch options carry the agent ({@link ProfileBridge}); the profile is data.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ensureIsolatedHome } from "../../stack/acp/agents/agent-isolation.js";
import { UsageError } from "../errors.js";
import { ensureDir } from "../recording/atomic-write.js";
import { compileUserPatterns } from "../recording/redact.js";
import type { ModelServer } from "../model-server/server.js";
import { packageDistPath } from "../runtime/spawn-bridge.js";
import type { AgentLaunch } from "./agent-launch.js";
import { missingHostProgramLine, missingHostPrograms, type HostProgram } from "./host-programs.js";
import { fillProfileTemplate, spellModelScript, type AgentRecordProfile } from "./agent-profile.js";
import type { RecordDirs, RecordProvider } from "./record-provider.js";

/**
 * Longest wait for an agent's version command (ms); it only bounds a hung agent. Generous so the
 * load never decides a recording: at 30 s, opencode's `--version` beside two busy loops at load
 * 26–34 ran out and the live record failed with a usage error.
 */
const VERSION_TIMEOUT_MS = 120_000;
/** What a version's text must contain: the first version-like word. */
const DEFAULT_VERSION_PATTERN = /\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*[0-9A-Za-z])?/;

/** What {@link profileRecordProvider} needs besides the profile. */
export interface ProfileLaunch {
  /** Provider id (`acp-qwen`). */
  id: string;
  /** Name in `cliVersion` and the note. */
  name: string;
  /** Launch command and args: templates (agent-profile.ts placeholders). */
  command: string;
  args: readonly string[];
  /** The agent's working directory; default the cell's workspace. */
  cwd?: string;
  /** Directory of the agents' install (`{{agents}}`), for a message when the command is missing. */
  agentsDir: string;
  /** The agent's npm packages, the version's first ({@link RecordProvider.agentPackages}); absent: none. */
  packages?: readonly string[];
  /** Where the agent comes from, for the manifest note. */
  source: string;
  /** The family's bridge that runs the agent. */
  bridge: ProfileBridge;
  /** Programs of the host the agent warns about when missing, checked before a recording starts (host-programs.ts). */
  requires?: readonly HostProgram[];
}

/** What a family contributes to a profile provider: its bridge and how its options launch the agent. */
export interface ProfileBridge {
  /** The bridge module (absolute). */
  modulePath: string;
  /** The execution options that make the bridge start `agent` (the family's `launchOptions` with its own base fields). */
  launchOptions(agent: AgentLaunch): Record<string, unknown>;
}

/** The environment every agent starts from (the rest is the profile's). */
const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC" });

/**
 * The agent's version as text: the first version-like match of `pattern` (default
 * `x.y.z…`) in the output of `command …args`, or the `version` of a package.json.
 * @throws UsageError when the command fails or prints no version.
 */
export async function readAgentVersion(
  version: AgentRecordProfile["version"],
  command: string,
  launchArgs: readonly string[],
  env: Record<string, string>,
  vars: Record<string, string>,
): Promise<string> {
  const source = version ?? { args: defaultVersionArgs(command, launchArgs) };
  if ("packageJson" in source) {
    const file = fillProfileTemplate(source.packageJson, vars);
    try {
      return String((JSON.parse(await readFile(file, "utf8")) as { version?: unknown }).version);
    } catch (error) {
      throw new UsageError(`cannot read the agent's version from ${file}: ${(error as Error).message}`);
    }
  }
  let stdout: string;
  try {
    const running = promisify(execFile)(command, source.args, { env, timeout: VERSION_TIMEOUT_MS });
    running.child.stdin?.end();
    ({ stdout } = await running);
  } catch (error) {
    throw new UsageError(`${command} ${source.args.join(" ")} failed: ${(error as Error).message.split("\n")[0]}`);
  }
  const match = (source.pattern ? new RegExp(source.pattern) : DEFAULT_VERSION_PATTERN).exec(stdout);
  if (!match) throw new UsageError(`${command} ${source.args.join(" ")} printed no version: ${stdout.trim().slice(0, 120)}`);
  return match[1] ?? match[0];
}

/** Interpreters whose own `--version` is not the agent's. */
const INTERPRETERS = /^(?:node|nodejs|bun|deno|python3?)$/;

/** `--version`, after the script when `command` is an interpreter (`node agent.mjs` → `agent.mjs --version`). */
export function defaultVersionArgs(command: string, launchArgs: readonly string[]): string[] {
  const script = launchArgs.find((a) => !a.startsWith("-"));
  const interpreter = INTERPRETERS.test(path.basename(command)) || command === process.execPath;
  return interpreter && script !== undefined ? [script, "--version"] : ["--version"];
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(`${dir}${path.sep}`);

/** A {@link RecordProvider} for one profile (see the module doc). */
export function profileRecordProvider(profile: AgentRecordProfile, launch: ProfileLaunch): RecordProvider {
  return {
    id: launch.id,
    ...(launch.packages !== undefined ? { agentPackages: launch.packages } : {}),
    ...(launch.requires !== undefined ? { hostPrograms: launch.requires } : {}),
    modulePath: launch.bridge.modulePath,
    takesModelEndpoint: true,
    modelApi: profile.modelApi,
    sessionSettled: profile.settle,
    rejectionPatterns: profile.rejections.map((p) => new RegExp(p)),
    redactPatterns: compileUserPatterns(profile.redact),
    normalize: profile.normalize.map((n) => ({ pattern: new RegExp(n.pattern, "g"), replace: n.replace })),
    spellScript: (script) => spellModelScript(script, profile.tools),
    cellVariant: (name) => (profile.cells !== undefined && Object.hasOwn(profile.cells, name) ? profile.cells[name] : undefined),
    async prepare(dirs: RecordDirs, model: ModelServer | undefined) {
      if (!model) throw new UsageError(`${launch.id} needs a model endpoint: the cell has no model script`);
      const tmp = path.join(dirs.root, "tmp");
      await ensureDir(tmp);
      const homeEnv = await ensureIsolatedHome(dirs.home);
      const vars: Record<string, string> = {
        origin: model.origin,
        baseUrl: model.baseUrl,
        home: dirs.home,
        cwd: dirs.workspace,
        tmp,
        agents: launch.agentsDir,
        repo: path.dirname(packageDistPath()),
        PATH: baseEnv().PATH!,
      };
      const command = fillProfileTemplate(launch.command, vars);
      if (!existsSync(command)) {
        throw new UsageError(`${launch.id}: ${command} is not installed (install the agents with \`npm run agents:install\`, or fix the profile's command)`);
      }
      const env = { ...baseEnv(), ...homeEnv, TMPDIR: tmp, ...fillProfileTemplate(profile.env, vars) };
      // What the agent warns about when missing would put the host into the lane: refused before it starts.
      const [missing] = missingHostPrograms(launch.requires ?? [], (env as Record<string, string | undefined>).PATH);
      if (missing !== undefined) throw new UsageError(missingHostProgramLine(launch.id, missing));
      for (const [target, content] of Object.entries(profile.files)) {
        const file = path.resolve(dirs.workspace, fillProfileTemplate(target, vars));
        // Config files go only into this run's own directories, never the user's.
        if (!inside(file, dirs.root)) throw new UsageError(`${launch.id}: config file ${target} lies outside the run's home, workspace and temp dir (${file})`);
        await ensureDir(path.dirname(file));
        const filled = fillProfileTemplate(content, vars);
        await writeFile(file, typeof filled === "string" ? filled : `${JSON.stringify(filled, null, 2)}\n`);
      }
      const args = fillProfileTemplate([...launch.args], vars);
      const version = await readAgentVersion(profile.version, command, args, env, vars);
      return {
        env,
        options: launch.bridge.launchOptions({ command, args, env, ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}) }),
        cliVersion: `${launch.name} ${version}`,
        modelApi: profile.modelApi,
        note:
          `${launch.name} ${version} (${launch.source}) run offline: fresh HOME/XDG dirs/TMPDIR, its model a project-owned loopback ` +
          `${profile.modelApi} endpoint playing the cell's model script.` +
          profile.normalize.map((n) => ` Normalized: ${n.why}`).join(""),
      };
    },
  };
}
