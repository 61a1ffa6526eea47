#!/usr/bin/env node
/**
 * Entry point of the `bb-bridge` MCP stdio proxy (spec 20 §2.6), launched by the ACP agent from the
 * `mcpServers` entry the bridge sends: `node dist/stack/acp/dynamic-tools/mcp-main.js` with the
 * `BB_ACP_DYNAMIC_TOOL_*` env. Exits 2 with one line on a bad environment.
 */
import { createRealScheduler } from "../../bridge-kit/scheduler.js";
import { readMcpProxyConfig, runMcpProxy, type McpProxyConfig } from "./mcp-proxy.js";

let config: McpProxyConfig;
try {
  config = readMcpProxyConfig(process.env);
} catch (error) {
  process.stderr.write(`bb-bridge MCP proxy: ${(error as Error).message}\n`);
  process.exit(2);
}
let calls = 0;
// A process of its own: the entry wires the real scheduler, and the call id carries its wall clock
// (epoch ms) as the reference's does.
const scheduler = createRealScheduler();
void runMcpProxy(config, (tool) => `acp-mcp-${tool}-${Math.floor(scheduler.now())}-${++calls}`, scheduler);
