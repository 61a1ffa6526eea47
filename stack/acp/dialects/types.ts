/**
 * The ACP dialect interface: per-agent answers read from vendor side channels (spec 30 §1.1).
 *
 * A dialect is a plain object. Only `id` is required; a missing hook, or a hook that returns
 * `undefined`, means "use the shared behaviour". Hooks are pure and synchronous.
 */
import type { ItemShape, Presentation } from "../../protocol/thread-delta.js";
import type { AcpDialectMaintenance } from "../maintenance/shapes.js";

export type { AcpDialectMaintenance };

/** The ACP `ToolKind` values (ACP protocol v1). Anything else is a vendor kind (`rawKind` only). */
export const ACP_TOOL_KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"] as const;

/** A valid ACP tool kind. */
export type AcpToolKind = (typeof ACP_TOOL_KINDS)[number];

/** True when `value` is one of {@link ACP_TOOL_KINDS}. */
export function isAcpToolKind(value: unknown): value is AcpToolKind {
  return typeof value === "string" && (ACP_TOOL_KINDS as readonly string[]).includes(value);
}

/** One entry of a tool call's `content` (ACP `ToolCallContent`), read leniently. */
export interface AcpToolCallContent {
  /** `content`, `diff` or `terminal` (others pass through). */
  type: string;
  /** For `content`: the ACP content block (`{type:"text", text}`, images, …). */
  content?: { type: string; text?: string; [key: string]: unknown };
  /** For `diff`: the file path. */
  path?: string;
  /** For `diff`: the previous text; `null`/absent means the file is new. */
  oldText?: string | null;
  /** For `diff`: the new text. */
  newText?: string;
  [key: string]: unknown;
}

/**
 * A tool call as the translator holds it: the `tool_call` fields merged with every later
 * `tool_call_update` (present fields override; JSON `null` counts as absent, spec 20 §3.2).
 */
export interface AcpToolCallEvent {
  /** ACP `toolCallId`; the `providerItemId` of the item. */
  toolCallId: string;
  /** Agent title (Cursor: backticked commands, `Read File`, `MCP: tool`). */
  title?: string;
  /** A valid ACP kind, after the dialect's `toolIdentity` filled an unset one. */
  kind?: AcpToolKind;
  /** The kind string exactly as the agent sent it, valid or not (spec 30 §1.1 `tool` slot). */
  rawKind?: string;
  /** Tool name from a vendor side channel (`toolIdentity`); the agent protocol has none. */
  name?: string;
  /** `pending`, `in_progress`, `completed`, `failed` (others pass through). */
  status?: string;
  content?: AcpToolCallContent[];
  locations?: { path: string; line?: number | null }[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** ACP `_meta` of the latest update carrying one (grok's `x.ai/tool` lives here). */
  _meta?: Record<string, unknown>;
}

/** `toolIdentity` answer: fills only an unset `name`/`kind` (protocol values win). */
export interface AcpToolIdentity {
  name?: string;
  kind?: AcpToolKind;
}

/** `classifyToolCall` answer: a full shape overriding the shared classifier (spec 30 §1.1). */
export interface AcpClassifiedToolCall {
  item: ItemShape;
  presentation: Presentation;
}

/** `commandResult` answer: a command's exit code and output text (spec 30 §1.1). */
export interface AcpCommandResult {
  exitCode?: number;
  output?: string;
  /** The text the agent showed for the call when `output` was read from elsewhere (its structured result); else `output` is both. */
  resultText?: string;
}

/**
 * A sub-agent report from a vendor request (Cursor's `cursor/task`, spec 30 §1.3): re-labels an
 * open delegation item.
 */
export interface AcpDelegationReport {
  /** The tool call the report is about. */
  toolCallId: string;
  /** New `childRef` (a key part: non-empty, no U+001F). */
  childRef: string;
  /** New label (also the presentation title). */
  label: string;
  /** Presentation detail, e.g. `model <id>` (≤ 280 characters). */
  detail?: string;
}

/** `handleClientRequest` answer: the JSON-RPC result for the agent, plus an optional report. */
export interface AcpClientRequestOutcome {
  result: unknown;
  delegation?: AcpDelegationReport;
}

/**
 * Outcome of a compaction as a dialect reads it from the agent's reply to `/compact` (spec 30 §1.5):
 * `skipped` and `failed` carry the reply text as `detail`.
 */
export type AcpCompactionOutcome = { status: "completed" } | { status: "skipped"; detail: string } | { status: "failed"; detail: string };

/**
 * Context-window accounting from vendor fields (spec 30 §1.4): with this hook the translator emits
 * `contextWindow` 0 for a fresh session and the used tokens after every prompt result, sized by the
 * latest setup result that names a size. Token counts; `undefined` when the payload has none.
 */
export interface AcpContextWindowReader {
  /** The context size named by a `session/new|load|resume|fork` result. */
  sizeFromSetup(result: unknown): number | undefined;
  /** The tokens used, from a `session/prompt` result. */
  usedFromPromptResult(result: unknown): number | undefined;
}

/** An ACP dialect (spec 30 §1.1). Only `id` is required. */
export interface AcpDialect {
  /** Dialect name; built-ins are `acp`, `cursor`, `grok`, `omp`, `opencode`, `pi`. */
  readonly id: string;
  /** A tool call's name and kind from a vendor side channel; asked before every classification. */
  toolIdentity?(event: AcpToolCallEvent): AcpToolIdentity | undefined;
  /** A full shape overriding the shared classifier (used for `delegation`); also for approvals. */
  classifyToolCall?(event: AcpToolCallEvent): AcpClassifiedToolCall | undefined;
  /** A command's exit code and output, asked at command close instead of the shared reader. */
  commandResult?(event: AcpToolCallEvent): AcpCommandResult | undefined;
  /**
   * The output so far that a non-terminal update of a running command carries, or `null` when the
   * dialect knows its content is not output (omp's in-progress content repeats the command line);
   * `undefined` → the shared reader (the update's own content text, unwrapped).
   */
  streamedCommandOutput?(update: AcpToolCallEvent): string | null | undefined;
  /** Rewrites vendor `rawOutput` into the shared shape, at command close before `commandResult`. */
  normalizeCommandEvent?(event: AcpToolCallEvent): AcpToolCallEvent | undefined;
  /** Extra agent→client methods to accept beside the core ones. */
  readonly clientRequestMethods?: readonly string[];
  /** Reply to a vendor request; `undefined` → -32601 `Unsupported ACP client method "<m>"`. */
  handleClientRequest?(method: string, params: unknown): AcpClientRequestOutcome | undefined;
  /** Maintenance behaviour (health sign-in evidence, usage, installer); see {@link AcpDialectMaintenance}. */
  readonly maintenance?: AcpDialectMaintenance;
  /** Context-window accounting from vendor fields; absent → none (only `usage_update` counts). */
  readonly contextWindow?: AcpContextWindowReader;
  /** Reads the outcome of `/compact` from the agent's reply text; absent → `completed`. */
  compactionOutcome?(replyText: string): AcpCompactionOutcome;
  /**
   * True when a tool call whose kind needs more fields opens at its `tool_call` anyway instead of
   * waiting for an update that fills them (Cursor, spec 20 §4 item 8). Absent → it waits.
   */
  readonly opensUnfilledToolCalls?: boolean;
  /**
   * True when `model/list` with `parameterizedModelPicker` builds the dialect's parameterized
   * catalog from the CLI list (Cursor, spec 30 §1.1, §6.4). Absent → the family catalog.
   */
  readonly parameterizedModelCatalog?: boolean;
  /** Variables the agent process always gets beside the launch spec env (opencode, spec 30 §1.6). */
  readonly childEnv?: Readonly<Record<string, string>>;
  /**
   * Switches that keep the agent off the network when run isolated (probe, `parity record`;
   * spec 30 §1.6, §3.2); absent → the dialect knows none and the probe runs it in place.
   */
  readonly offlineEnv?: Readonly<Record<string, string>>;
}
