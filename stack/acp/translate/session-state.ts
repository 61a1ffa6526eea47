/**
 * The session model behind the thread's extension state (spec 30 §6.3 "Thread state"): the
 * agent's advertised commands (`bb/provider-commands`) and its config options and modes
 * (`bb/session-options`), published deduplicated, an empty first state skipped.
 */
import type { JsonValue, ThreadDelta } from "../../protocol/thread-delta.js";
import { isRecord } from "../../protocol/json-value.js";

/** Extension kind of the agent's slash commands (`available_commands_update`). */
export const PROVIDER_COMMANDS_EXTENSION = "bb/provider-commands";
/** Extension kind of the agent's config options and modes. */
export const SESSION_OPTIONS_EXTENSION = "bb/session-options";

// Setup results and updates are parsed JSON already; a deep copy per update would only cost time.
function toJson(value: unknown): JsonValue {
  return (value ?? null) as JsonValue;
}

/** The per-session state model; one per translator. */
export interface SessionStateModel {
  /** Feeds a session setup result (`session/new|load|resume|fork`): `modes`, `configOptions`. */
  observeSetup(result: unknown): void;
  /**
   * Feeds an update; returns true when it was a state update (`available_commands_update`,
   * `current_mode_update`, `config_option_update`).
   */
  observeUpdate(update: Record<string, unknown>): boolean;
  /** `extension.state` deltas for every state that changed since it was last published. */
  publish(): ThreadDelta[];
}

/** Creates an empty session state model. */
export function createSessionStateModel(): SessionStateModel {
  let commands: JsonValue[] | undefined;
  let configOptions: JsonValue[] | undefined;
  let modes: { currentModeId: JsonValue; availableModes: JsonValue } | undefined;
  const published = new Map<string, string>();

  function payloads(): [string, JsonValue, boolean][] {
    const commandList = commands ?? [];
    const optionList = configOptions ?? [];
    return [
      [PROVIDER_COMMANDS_EXTENSION, { commands: commandList }, commandList.length === 0],
      [SESSION_OPTIONS_EXTENSION, { configOptions: optionList, modes: modes ?? null }, optionList.length === 0 && modes === undefined],
    ];
  }

  return {
    observeSetup(result) {
      if (!isRecord(result)) return;
      if (Array.isArray(result.configOptions)) configOptions = result.configOptions.map(toJson);
      if (isRecord(result.modes) && Array.isArray(result.modes.availableModes)) {
        modes = { currentModeId: toJson(result.modes.currentModeId), availableModes: toJson(result.modes.availableModes) };
      }
    },
    observeUpdate(update) {
      switch (update.sessionUpdate) {
        case "available_commands_update":
          if (Array.isArray(update.availableCommands)) commands = update.availableCommands.map(toJson);
          return true;
        case "current_mode_update":
          if (typeof update.currentModeId === "string") {
            modes = { currentModeId: update.currentModeId, availableModes: modes?.availableModes ?? [] };
          }
          return true;
        case "config_option_update":
          if (Array.isArray(update.configOptions)) configOptions = update.configOptions.map(toJson);
          return true;
        default:
          return false;
      }
    },
    publish() {
      const deltas: ThreadDelta[] = [];
      for (const [extensionKind, payload, empty] of payloads()) {
        const serialized = JSON.stringify(payload);
        const last = published.get(extensionKind);
        if (last === serialized) continue;
        if (last === undefined && empty) continue;
        published.set(extensionKind, serialized);
        deltas.push({ kind: "extension.state", extensionKind, payload });
      }
      return deltas;
    },
  };
}
