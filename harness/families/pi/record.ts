/**
 * The `pi` record provider (spec 60 "pi", "Offline configuration"; issue 23): pi 0.73.1 from the
 * agents' install, run by the native pi bridge (`stack/pi/`) in `--mode rpc`, offline against
 * the loopback model endpoint (OpenAI chat completions) with a fresh HOME holding spec 60's
 * `models.json` and `settings.json`. The model scripts' tool calls (opencode's argument names)
 * are spelled with pi's (`read {path}`, `edit {path, oldText, newText}`, `write {path, content}`, `bash {command}`).
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../../errors.js";
import { ensureDir } from "../../recording/atomic-write.js";
import { spellModelScript } from "../agent-profile.js";
import { baseEnv, bridgeModulePath, isolatedHomeEnv, type RecordProvider } from "../record-provider.js";
import { PI_BRIDGE_MODULE, piLaunchOptions } from "./launch.js";

/** The pi package, pinned in the agents' lockfile. */
export const PI_PACKAGE = "@mariozechner/pi-coding-agent";

/** The fake API key pi sends the loopback endpoint (redacted like any key). */
const PI_FAKE_KEY = "parity-fake-pi-key-0001";

/** How the cells' opencode-spelled tool calls are spelled for pi (spec 60 "Tools each CLI offers"). */
export const PI_TOOL_SPELLINGS = {
  read: { name: "read", arguments: { path: "{{args.filePath}}" } },
  edit: { name: "edit", arguments: { path: "{{args.filePath}}", oldText: "{{args.oldString}}", newText: "{{args.newString}}" } },
  write: { name: "write", arguments: { path: "{{args.filePath}}", content: "{{args.content}}" } },
  bash: { name: "bash", arguments: { command: "{{args.command}}" } },
} as const;

/** Environment that keeps pi offline (spec 60). */
export const PI_OFFLINE_ENV = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" } as const;

/**
 * What differs between two recordings of one cell and is normalized in every recorded line
 * (patterns run over the lane file's lines, where the wire line is a JSON string: quotes are
 * `\\"`): pi's millisecond `timestamp` on every message and partial, its session ids (UUIDv7)
 * and extension UI request ids (UUIDv4), the ISO time in the session file's name, and the
 * loopback endpoint's port in `model.baseUrl`.
 */
export const PI_NORMALIZE: ReadonlyArray<{ pattern: RegExp; replace: string; why: string }> = [
  { pattern: /(?<=\\"timestamp\\":)\d+/g, replace: "0", why: "pi's millisecond timestamp on every message is 0." },
  { pattern: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, replace: "00000000-0000-0000-0000-000000000000", why: "session ids and extension UI request ids (UUIDs) are zero." },
  { pattern: /\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_/g, replace: "1970-01-01T00-00-00-000Z_", why: "the time in the session file's name is the epoch." },
  { pattern: /127\.0\.0\.1:\d+/g, replace: "127.0.0.1:0", why: "the loopback endpoint's port is 0." },
];

/** `models.json` naming the loopback endpoint as provider `offline`, model `scripted` (spec 60). */
export function piModelsJson(baseUrl: string): unknown {
  return {
    providers: {
      offline: {
        baseUrl,
        api: "openai-completions",
        apiKey: PI_FAKE_KEY,
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "scripted", name: "Scripted model", reasoning: true }],
      },
    },
  };
}

/** Where pi's CLI lies under an agents' install. */
export function piCliPath(agentsDir: string): string {
  return path.join(agentsDir, "node_modules", PI_PACKAGE, "dist", "cli.js");
}

/** The `pi` record provider over the agents installed in `agentsDir`. */
export function piRecordProvider(agentsDir: string): RecordProvider {
  return {
    id: "pi",
    modulePath: bridgeModulePath({ modulePath: PI_BRIDGE_MODULE }),
    takesModelEndpoint: true,
    modelApi: "openai-chat",
    normalize: PI_NORMALIZE.map(({ pattern, replace }) => ({ pattern, replace })),
    spellScript: (script) => spellModelScript(script, PI_TOOL_SPELLINGS as never),
    async prepare(dirs, model) {
      if (!model) throw new UsageError("pi needs a model endpoint: the cell has no model script");
      const cli = piCliPath(agentsDir);
      if (!existsSync(cli)) throw new UsageError(`pi: ${cli} is not installed (install the agents with \`npm run agents:install\`)`);
      const tmp = path.join(dirs.root, "tmp");
      await ensureDir(tmp);
      const homeEnv = await isolatedHomeEnv(dirs.home);
      const agentDir = path.join(dirs.home, ".pi", "agent");
      await ensureDir(agentDir);
      await writeFile(path.join(agentDir, "models.json"), `${JSON.stringify(piModelsJson(model.baseUrl), null, 2)}\n`);
      await writeFile(path.join(agentDir, "settings.json"), `${JSON.stringify({ defaultProvider: "offline", defaultModel: "scripted" }, null, 2)}\n`);
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
