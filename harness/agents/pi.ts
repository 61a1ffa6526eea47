/**
 * What it takes to run pi offline (docs/design/60-native-agents.md "pi", "Offline
 * configuration"), for both bridge families that run it: natively in `--mode rpc`
 * (`harness/families/pi`) and through its ACP adapter `pi-acp` (`harness/families/acp`). A fresh
 * HOME holds `models.json` (the loopback endpoint as one OpenAI-chat provider with model
 * `scripted`) and `settings.json` (that provider and model by default).
 */
import path from "node:path";

/** The pi package, pinned in the agents' lockfile. */
export const PI_PACKAGE = "@mariozechner/pi-coding-agent";

/** Where pi's CLI lies under an agents' install. */
export function piCliPath(agentsDir: string): string {
  return path.join(agentsDir, "node_modules", PI_PACKAGE, "dist", "cli.js");
}

/** Environment that keeps pi offline. */
export const PI_OFFLINE_ENV = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" } as const;

/** The fake API key pi sends the loopback endpoint (redacted like any key). */
const PI_FAKE_KEY = "parity-fake-pi-key-0001";

/** Where pi reads its models and settings from, below the run's HOME. */
export const PI_AGENT_DIR = ".pi/agent";

/** How pi's provider for the loopback endpoint is named, and whether its model reasons (each family's recordings were made with its own). */
export interface PiModelChoice {
  provider: string;
  reasoning: boolean;
}

/** The native family's loopback provider (harness/families/pi): `offline`, its model reasoning, as its recordings were made. */
export const PI_NATIVE_MODEL: PiModelChoice = { provider: "offline", reasoning: true };

/** The ACP adapter pi-acp's loopback provider (harness/families/acp): `parity`, its model not reasoning, as its recordings were made. */
export const PI_ADAPTER_MODEL: PiModelChoice = { provider: "parity", reasoning: false };

/** `models.json` naming the loopback endpoint at `baseUrl` as `choice.provider`, model `scripted`. */
export function piModelsJson(baseUrl: string, choice: PiModelChoice): unknown {
  return {
    providers: {
      [choice.provider]: {
        baseUrl,
        api: "openai-completions",
        apiKey: PI_FAKE_KEY,
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "scripted", name: "Scripted model", reasoning: choice.reasoning }],
      },
    },
  };
}

/** `settings.json`: `provider`'s model `scripted` by default. */
export function piSettingsJson(provider: string): unknown {
  return { defaultProvider: provider, defaultModel: "scripted" };
}

/** How the cells' opencode-spelled tool calls are spelled for pi (`read {path}`, `edit {path, oldText, newText}`, `write {path, content}`, `bash {command}`). */
export const PI_TOOL_SPELLINGS = {
  read: { name: "read", arguments: { path: "{{args.filePath}}" } },
  edit: { name: "edit", arguments: { path: "{{args.filePath}}", oldText: "{{args.oldString}}", newText: "{{args.newString}}" } },
  write: { name: "write", arguments: { path: "{{args.filePath}}", content: "{{args.content}}" } },
  bash: { name: "bash", arguments: { command: "{{args.command}}" } },
};

/**
 * What differs between two recordings of pi's own RPC lines and is normalized in every recorded
 * line (patterns run over the lane file's lines, where the wire line is a JSON string: quotes are
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
