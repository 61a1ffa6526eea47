/**
 * Binding of bb-injected (dynamic) tools to the agent's `tool_call`s (spec 20 §3.3, last
 * paragraph). ACP gives no id linking the proxied MCP call to the agent's tool call, so the
 * binding goes by title and by order.
 */
import type { Presentation } from "../../protocol/thread-delta.js";

/** A bb-injected tool: its name and optional presentation from the dynamic tool definition. */
export interface InjectedToolDefinition {
  name: string;
  presentation?: Presentation;
}

/** The per-session binding table; one per translator. */
export interface InjectedToolBindings {
  /** The injected tool a tool call is bound to, if any. */
  boundTool(toolCallId: string): InjectedToolDefinition | undefined;
  /**
   * A new candidate `tool_call` (kind other/absent, generic operation): binds to the bb tool named
   * in its title, else to the oldest proxied call awaiting announcement. Returns the bound tool.
   */
  announce(toolCallId: string, title: string | undefined): InjectedToolDefinition | undefined;
  /**
   * A proxied call for `toolName` arrived: binds to the first unbound open candidate whose title
   * contains the name, else one whose title has the word `mcp`, else the oldest candidate; with
   * none, the name is queued. Returns the bound `toolCallId` or null.
   */
  proxiedCall(toolName: string): string | null;
  /** The call settled: its binding (and candidacy) ends. */
  release(toolCallId: string): void;
  /** Forget every candidate and binding (turn start, session error). Queued names survive. */
  clearCalls(): void;
}

/** Creates the binding table for the given injected tools (spec 20 §2.3 step 1). */
export function createInjectedToolBindings(tools: readonly InjectedToolDefinition[]): InjectedToolBindings {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Open candidates in announcement order, with their titles; bound ones carry the tool.
  // `claimed` = a proxied call has been matched to it, so a second proxied call of the same
  // tool must look for another candidate.
  const candidates = new Map<string, { title: string; tool?: InjectedToolDefinition; claimed: boolean }>();
  const awaiting: string[] = [];

  function namedIn(title: string): InjectedToolDefinition | undefined {
    const matches = tools.filter((tool) => title.includes(tool.name));
    matches.sort((a, b) => b.name.length - a.name.length);
    return matches[0];
  }

  return {
    boundTool: (toolCallId) => candidates.get(toolCallId)?.tool,
    announce(toolCallId, title) {
      if (tools.length === 0) return undefined;
      const entry: { title: string; tool?: InjectedToolDefinition; claimed: boolean } = { title: title ?? "", claimed: false };
      const named = namedIn(entry.title);
      if (named !== undefined) {
        entry.tool = named;
        const queued = awaiting.indexOf(named.name);
        if (queued >= 0) {
          awaiting.splice(queued, 1);
          entry.claimed = true;
        }
      } else if (awaiting.length > 0) {
        const name = awaiting.shift() as string;
        entry.tool = byName.get(name) ?? { name };
        entry.claimed = true;
      }
      candidates.set(toolCallId, entry);
      return entry.tool;
    },
    proxiedCall(toolName) {
      const tool = byName.get(toolName) ?? { name: toolName };
      for (const [toolCallId, entry] of candidates) {
        if (entry.tool?.name === toolName && !entry.claimed) {
          entry.claimed = true;
          return toolCallId;
        }
      }
      const unbound = [...candidates.entries()].filter(([, entry]) => entry.tool === undefined);
      const pick = unbound.find(([, entry]) => entry.title.includes(toolName)) ?? unbound.find(([, entry]) => /\bmcp\b/i.test(entry.title)) ?? unbound[0];
      if (pick === undefined) {
        awaiting.push(toolName);
        return null;
      }
      pick[1].tool = tool;
      pick[1].claimed = true;
      return pick[0];
    },
    release(toolCallId) {
      candidates.delete(toolCallId);
    },
    clearCalls() {
      candidates.clear();
    },
  };
}
