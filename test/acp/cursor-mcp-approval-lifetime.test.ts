/**
 * A `cursor-agent` session with bb dynamic tools approves the `bb-bridge` MCP server in Cursor's
 * approvals file (spec 20 §2.7) and `thread/stop` revokes it (spec 30 §5 step 5). The agent is the
 * fixture agent run through a link named `cursor-agent`; Cursor's data dir is a temp dir.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fixtureLaunchSpec, startInProcessBridge, threadStartParams, type InProcessBridge } from "./bridge-harness.js";
import { mcpProxyMain } from "./fixture-agent-build.js";

const TOOL = { name: "noop_tool", description: "Unused.", inputSchema: { type: "object", properties: {} } };

let bridge: InProcessBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** Ids in every approvals file under `dataDir`. */
function approvedIds(dataDir: string): string[] {
  const projects = join(dataDir, "projects");
  if (!existsSync(projects)) return [];
  return readdirSync(projects)
    .map((slug) => join(projects, slug, "mcp-approvals.json"))
    .filter((file) => existsSync(file))
    .flatMap((file) => JSON.parse(readFileSync(file, "utf8")) as string[]);
}

describe("Cursor MCP approval lifetime (spec 20 §2.7, spec 30 §5 step 5)", () => {
  for (const intent of ["interrupt", "release"] as const) {
    it(`thread/stop ${intent} revokes the approval the session installed`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "acp-cursor-data-"));
      // The harness passes process.env to the bridge as its context env (the stub is undone after the test).
      vi.stubEnv("CURSOR_DATA_DIR", dataDir);
      bridge = startInProcessBridge({ mcpProxy: { command: process.execPath, args: [mcpProxyMain()] }, randomToken: () => "t0ken" });
      const { spec } = fixtureLaunchSpec(bridge.dir, {});
      const link = join(bridge.dir, "cursor-agent");
      symlinkSync(process.execPath, link);
      const cursorSpec = { ...spec, command: link };
      const start = await bridge.request("thread/start", { ...threadStartParams("thr_cur_ap", cursorSpec, bridge.dir), dynamicTools: [TOOL] });
      expect(start.error).toBeUndefined();
      const ids = approvedIds(dataDir);
      expect(ids).toHaveLength(1);
      const stop = await bridge.request("thread/stop", { threadId: "thr_cur_ap", intent });
      expect(stop.result).toEqual({ ok: true });
      expect(approvedIds(dataDir)).toEqual([]);
    });
  }
});
