/**
 * The fixture agent's MCP client: launches one stdio MCP server from an ACP `mcpServers` entry,
 * calls one tool and closes it (for `mcpCall` script steps). Uses `@modelcontextprotocol/sdk`,
 * imported on the first call only: loading the SDK costs about 0.35 s of CPU, more than the rest of
 * the agent's start-up, and most scripts never make an MCP call.
 */
import type { FixtureMcpServer } from "./agent-io.js";

/**
 * Calls `tool` with `args` on `server` and resolves with the MCP `tools/call` result.
 * The server's env is this process's env plus the entry's `{name, value}` pairs.
 * @throws the MCP client's error when the server cannot start or the call fails.
 */
export async function callMcpTool(server: FixtureMcpServer, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  for (const pair of server.env) env[pair.name] = pair.value;
  const [{ Client }, { StdioClientTransport }] = await Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), import("@modelcontextprotocol/sdk/client/stdio.js")]);
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env, stderr: "inherit" });
  const client = new Client({ name: "fixture-agent", version: "1.0.0" });
  await client.connect(transport);
  try {
    return await client.callTool({ name: tool, arguments: args });
  } finally {
    await client.close();
  }
}
