/**
 * What the fixture agent is given from outside: its I/O (stdout lines, stderr, exit, env, an MCP
 * client) and the MCP server entries it may call. A leaf, so the agent (agent.ts) and its steps
 * (steps.ts) share these shapes without importing each other.
 */

/** Injected I/O of the fixture agent. */
export interface FixtureAgentIo {
  /** Writes one line (no newline) to stdout. */
  write(line: string): void;
  writeStderr(text: string): void;
  exit(code: number): void;
  /** The agent's environment (for `echoEnv` steps). */
  env: Readonly<Record<string, string | undefined>>;
  /** Calls `tool` on a stdio MCP server from `mcpServers` (for `mcpCall` steps); resolves with the MCP result. */
  callMcpTool?(server: FixtureMcpServer, tool: string, args: Record<string, unknown>): Promise<unknown>;
}

/** An ACP stdio MCP server entry as a client sends it in `session/new|load`. */
export interface FixtureMcpServer {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}
