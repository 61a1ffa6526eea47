/**
 * Reading an agent's ACP session config options and offered models, leniently (spec 20 §2.3
 * step 7, §3.11; spec 30 §6.3–§6.4): the one reader behind model discovery, native selection,
 * declared session options and the session's option state. Malformed entries are skipped, never
 * thrown on: agents differ, and a bad option must not fail a session.
 */

/** One choice of a select option. */
export interface AcpConfigChoice {
  value: string;
  name: string;
}

/** One config option as an agent declared it (ACP `SessionConfigOption`, read leniently). */
export interface AcpConfigOption {
  id: string;
  /** The agent's name, else the id. */
  name: string;
  /** `select`, `boolean`, …; `undefined` when the agent did not say. */
  type: string | undefined;
  /** `model`, `thought_level`, …; `undefined` when the agent did not say. */
  category: string | undefined;
  /** As the agent sent it (`undefined` when absent). */
  currentValue: unknown;
  /** Choices of a select option, grouped choices flattened, in the agent's order. */
  choices: AcpConfigChoice[];
}

/** Reads select choices; ACP select options may be grouped (`{group, name, options: [...]}`). */
export function readConfigChoices(raw: unknown): AcpConfigChoice[] {
  const out: AcpConfigChoice[] = [];
  for (const entry of Array.isArray(raw) ? raw : []) {
    if (!entry || typeof entry !== "object") continue;
    const e = entry as { value?: unknown; name?: unknown; options?: unknown };
    if (Array.isArray(e.options)) out.push(...readConfigChoices(e.options));
    else if (typeof e.value === "string") out.push({ value: e.value, name: typeof e.name === "string" ? e.name : e.value });
  }
  return out;
}

/** Reads a `configOptions` array; entries without a string `id` are skipped. */
export function readConfigOptions(raw: unknown): AcpConfigOption[] {
  const out: AcpConfigOption[] = [];
  for (const option of Array.isArray(raw) ? raw : []) {
    if (!option || typeof option !== "object") continue;
    const o = option as { id?: unknown; name?: unknown; type?: unknown; category?: unknown; currentValue?: unknown; options?: unknown };
    if (typeof o.id !== "string") continue;
    out.push({
      id: o.id,
      name: typeof o.name === "string" ? o.name : o.id,
      type: typeof o.type === "string" ? o.type : undefined,
      category: typeof o.category === "string" ? o.category : undefined,
      currentValue: o.currentValue,
      choices: readConfigChoices(o.options),
    });
  }
  return out;
}

/** The config options of a `session/new|load|resume|fork` (or config call) result. */
export function configOptionsOf(result: unknown): AcpConfigOption[] {
  return readConfigOptions(result && typeof result === "object" ? (result as { configOptions?: unknown }).configOptions : undefined);
}

/** The option of a kind (`model`, `thought_level`): by category first, then by id. */
export function findConfigOption<T extends { id: string; category: string | undefined }>(options: readonly T[], kind: string): T | undefined {
  return options.find((o) => o.category === kind) ?? options.find((o) => o.id === kind);
}

/** `models.availableModels` of a session result: `{modelId, name?}` entries with a string id. */
export function availableModelsOf(result: unknown): Array<{ modelId: string; name?: string }> {
  const models = result && typeof result === "object" ? (result as { models?: unknown }).models : undefined;
  const raw = models && typeof models === "object" ? (models as { availableModels?: unknown }).availableModels : undefined;
  const out: Array<{ modelId: string; name?: string }> = [];
  for (const m of Array.isArray(raw) ? raw : []) {
    if (!m || typeof m !== "object") continue;
    const { modelId, name } = m as { modelId?: unknown; name?: unknown };
    if (typeof modelId === "string") out.push(typeof name === "string" ? { modelId, name } : { modelId });
  }
  return out;
}

/** `modes` of a session result (ACP `SessionModeState`): the current mode id and the offered modes; `null` when absent. */
export function sessionModesOf(result: unknown): { current: string | null; available: Array<{ id: string; name: string }> } | null {
  const modes = result && typeof result === "object" ? (result as { modes?: unknown }).modes : undefined;
  if (!modes || typeof modes !== "object") return null;
  const m = modes as { currentModeId?: unknown; availableModes?: unknown };
  const available: Array<{ id: string; name: string }> = [];
  for (const mode of Array.isArray(m.availableModes) ? m.availableModes : []) {
    if (!mode || typeof mode !== "object") continue;
    const { id, name } = mode as { id?: unknown; name?: unknown };
    if (typeof id === "string") available.push({ id, name: typeof name === "string" ? name : id });
  }
  return { current: typeof m.currentModeId === "string" ? m.currentModeId : null, available };
}
