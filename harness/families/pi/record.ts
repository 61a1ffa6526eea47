/**
 * The `pi` record provider (spec 60 "pi"; issue 23): pi 0.73.1 from the agents' install, run by
 * the native pi bridge (`stack/pi/`) in `--mode rpc`, offline against the loopback model endpoint
 * (OpenAI chat completions) as harness/agents/pi.ts says.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../../errors.js";
import { ensureDir } from "../../recording/atomic-write.js";
import { PI_AGENT_DIR, PI_NATIVE_MODEL, PI_NORMALIZE, PI_OFFLINE_ENV, PI_PACKAGE, PI_TOOL_SPELLINGS, piCliPath, piModelsJson, piSettingsJson } from "../../agents/pi.js";
import { spellModelScript } from "../agent-profile.js";
import { baseEnv, bridgeModulePath, isolatedHomeEnv, type RecordProvider } from "../record-provider.js";
import { PI_BRIDGE_MODULE, piLaunchOptions } from "./launch.js";

/** The `pi` record provider over the agents installed in `agentsDir`. */
export function piRecordProvider(agentsDir: string): RecordProvider {
  return {
    id: "pi",
    agentPackages: [PI_PACKAGE],
    modulePath: bridgeModulePath({ modulePath: PI_BRIDGE_MODULE }),
    takesModelEndpoint: true,
    modelApi: "openai-chat",
    normalize: PI_NORMALIZE.map(({ pattern, replace }) => ({ pattern, replace })),
    spellScript: (script) => spellModelScript(script, PI_TOOL_SPELLINGS),
    async prepare(dirs, model) {
      if (!model) throw new UsageError("pi needs a model endpoint: the cell has no model script");
      const cli = piCliPath(agentsDir);
      if (!existsSync(cli)) throw new UsageError(`pi: ${cli} is not installed (install the agents with \`npm run agents:install\`)`);
      const tmp = path.join(dirs.root, "tmp");
      await ensureDir(tmp);
      const homeEnv = await isolatedHomeEnv(dirs.home);
      const agentDir = path.join(dirs.home, PI_AGENT_DIR);
      await ensureDir(agentDir);
      await writeFile(path.join(agentDir, "models.json"), `${JSON.stringify(piModelsJson(model.baseUrl, PI_NATIVE_MODEL), null, 2)}\n`);
      await writeFile(path.join(agentDir, "settings.json"), `${JSON.stringify(piSettingsJson(PI_NATIVE_MODEL.provider), null, 2)}\n`);
      const env = { ...baseEnv(), ...homeEnv, TMPDIR: tmp, ...PI_OFFLINE_ENV };
      const pkg = JSON.parse(await readFile(path.join(agentsDir, "node_modules", PI_PACKAGE, "package.json"), "utf8")) as { version?: unknown };
      const version = String(pkg.version);
      return {
        env,
        options: piLaunchOptions({ command: "node", args: [cli], env: { ...PI_OFFLINE_ENV } }),
        cliVersion: `pi ${version}`,
        modelApi: "openai-chat",
        note:
          `pi ${version} (npm ${PI_PACKAGE}) run by the native pi bridge in --mode rpc, offline: fresh HOME/XDG dirs/TMPDIR, ` +
          "its model a project-owned loopback openai-chat endpoint playing the cell's model script." +
          PI_NORMALIZE.map((n) => ` Normalized: ${n.why}`).join(""),
      };
    },
  };
}
