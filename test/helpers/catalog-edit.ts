import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * What an agent release that adds one slash command does to a real ACP recording, made by hand for
 * tests that need "the next version" without recording it: `command` is appended to every
 * `session/update` `available_commands_update` the agent sent (provider→bridge) and to every
 * `bb/provider-commands` catalog the bridge passed on (bridge→runtime and its current lane), the
 * bridge's translation being that list as the agent said it. Returns how many lines were changed;
 * a recording with no catalog changes nothing (0).
 */
export async function addCommandToRecording(recordingDir: string, command: { name: string; description: string; input: unknown }): Promise<number> {
  let changed = 0;
  for (const file of await readdir(recordingDir)) {
    if (!file.endsWith(".ndjson")) continue;
    const full = path.join(recordingDir, file);
    const lines = (await readFile(full, "utf8")).split("\n");
    const out = lines.map((text) => {
      if (text.trim() === "" || !(text.includes("available_commands_update") || text.includes("bb/provider-commands"))) return text;
      const entry = JSON.parse(text) as { line: string };
      const message = JSON.parse(entry.line) as unknown;
      if (!appendCommand(message, command)) return text;
      changed += 1;
      return JSON.stringify({ ...entry, line: JSON.stringify(message) });
    });
    await writeFile(full, out.join("\n"));
  }
  return changed;
}

/** Appends `command` to each command list below `value` (ACP's `availableCommands`, the bridge's `bb/provider-commands` payload); whether it found one. */
function appendCommand(value: unknown, command: object): boolean {
  if (value === null || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  let found = false;
  if (record.sessionUpdate === "available_commands_update" && Array.isArray(record.availableCommands)) {
    record.availableCommands.push({ ...command });
    found = true;
  }
  if (record.extensionKind === "bb/provider-commands" || record.kind === "bb/provider-commands") {
    const payload = record.payload as { commands?: unknown[] } | undefined;
    if (Array.isArray(payload?.commands)) {
      payload.commands.push({ ...command });
      found = true;
    }
  }
  for (const child of Object.values(record)) if (appendCommand(child, command)) found = true;
  return found;
}
