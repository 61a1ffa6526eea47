/**
 * Pairs of providers that drive the same CLI (issue 39): the CLI's native bridge and a
 * third-party ACP adapter of it. Every cell both members recorded is the same session of the same
 * CLI with the same model answers, so `parity compare` holds their lanes against each other. A
 * user's custom agent names its native counterpart with `"counterpart": "<provider>"` in its
 * `customAgents` entry (the field is the harness's; the family readers never see it).
 */
import { InputError } from "../errors.js";

/** Two providers of one CLI: `native` is the reference side (A), `adapter` the other (B). */
export interface ProviderPair {
  native: string;
  adapter: string;
  /** The CLI both drive, for reports. */
  cli: string;
  /**
   * Cells one member recorded and the other has no recording of, each with why (issue 39: "record
   * the missing halves where the adapter can run the cell, or say per cell why not"). `parity
   * compare` lists them beside the cells it compared.
   */
  unpaired?: Readonly<Record<string, string>>;
}

// The native claude-code steer cell is its variant (cells/steer/providers/claude-code.json): the
// steer goes in while an approval holds the turn, since Claude Code takes a line sent mid-turn only
// with a tool result. Through ACP the bridge's steer cancels the running prompt and answers the
// pending approval cancelled (docs/design/20 §8.9), so neither the base cell nor the variant is the
// same session as the native lane.
const CLAUDE_STEER =
  "not the same session: claude-code records its variant (a steer sent while an approval holds the turn, cells/steer/providers/claude-code.json); through ACP the bridge's steer cancels the prompt and answers the pending approval cancelled (docs/design/20 §8.9)";
const CLAUDE_SUBAGENT =
  "not recorded: the adapter's record profile (harness/families/acp/agent-profiles.ts) spells no `task` tool; claude-code's profile maps it to Task and normalizes the subagent's random ids, which the ACP profiles would need too";

/** The shipped pairs: the native bridges of spec 60 and the ACP adapters of the same CLIs. */
export const PROVIDER_PAIRS: readonly ProviderPair[] = [
  {
    native: "codex",
    adapter: "acp-codex",
    cli: "Codex (codex-acp)",
    unpaired: { fork: "codex-acp 0.16.0 advertises no session/fork (sessionCapabilities: list, resume, close): the ACP bridge answers thread/fork with -32000" },
  },
  { native: "claude-code", adapter: "acp-claude", cli: "Claude Code (claude-agent-acp)", unpaired: { steer: CLAUDE_STEER, subagent: CLAUDE_SUBAGENT } },
  { native: "claude-code", adapter: "acp-claude-zed", cli: "Claude Code (claude-code-acp)", unpaired: { steer: CLAUDE_STEER, subagent: CLAUDE_SUBAGENT } },
  {
    native: "pi",
    adapter: "acp-pi",
    cli: "pi (pi-acp)",
    unpaired: {
      "approval-allow":
        "pi has no approvals of its own (the native bridge loads its own confirm extension, docs/design/60 §4.3); pi-acp 0.0.23 starts `pi --mode rpc` without one and never sends session/request_permission, so every call runs unasked",
      "approval-deny":
        "pi has no approvals of its own (the native bridge loads its own confirm extension, docs/design/60 §4.3); pi-acp 0.0.23 starts `pi --mode rpc` without one and never sends session/request_permission, so a denied command would run",
    },
  },
];

/** `"<native>/<adapter>"`, the pair's name in allowlist entries and reports. */
export function pairName(pair: Pick<ProviderPair, "native" | "adapter">): string {
  return `${pair.native}/${pair.adapter}`;
}

/** The pair of `a` and `b` in either order (its own order kept), or undefined. */
export function findPair(a: string, b: string, pairs: readonly ProviderPair[] = PROVIDER_PAIRS): ProviderPair | undefined {
  return pairs.find((pair) => (pair.native === a && pair.adapter === b) || (pair.native === b && pair.adapter === a));
}

/**
 * The pairs a `customAgents` file declares: each entry with a string `counterpart` pairs the
 * entry's provider id (its `id`, the provider id it records under) with it.
 * Entries without `counterpart` declare nothing; text that is not a JSON array declares nothing
 * (the family readers report it).
 * @throws InputError naming `file` and the entry when `counterpart` is not a non-empty string.
 */
export function customAgentPairs(text: string, file: string): ProviderPair[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const pairs: ProviderPair[] = [];
  raw.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null || !("counterpart" in entry)) return;
    const { counterpart, id } = entry as { counterpart: unknown; id: unknown };
    if (typeof counterpart !== "string" || counterpart.trim() === "") throw new InputError(`entry ${index}: field \`counterpart\`: must name the provider that drives the same CLI natively`, { file });
    if (typeof id !== "string") throw new InputError(`entry ${index}: field \`id\`: a custom agent with a counterpart needs its id`, { file });
    pairs.push({ native: counterpart, adapter: id, cli: `${id} (custom agent)` });
  });
  return pairs;
}

/** The entries of a `customAgents` array without the harness's `counterpart` field (others untouched). */
export function withoutCounterparts(entries: unknown[]): unknown[] {
  return entries.map((entry) => {
    if (typeof entry !== "object" || entry === null || !("counterpart" in entry)) return entry;
    const { counterpart: _counterpart, ...rest } = entry as { counterpart: unknown };
    return rest;
  });
}
