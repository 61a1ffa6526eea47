/**
 * Cursor's MCP approvals file (spec 20 §2.7): path, slug, id, append-if-absent under a lock,
 * removal only by the bridge that added it.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cursorMcpApprovalId, cursorProjectSlug, installCursorMcpApproval, isCursorAgentCommand } from "../../stack/acp/interaction/cursor-mcp-approval.js";

const server = { name: "bb-bridge", command: "/usr/bin/node", args: ["/x/mcp-main.js"], env: [{ name: "BB_ACP_DYNAMIC_TOOL_PORT", value: "4242" }] };

describe("Cursor MCP approval", () => {
  it("recognises cursor-agent commands and builds slugs and ids", () => {
    expect(isCursorAgentCommand("/opt/bin/Cursor-Agent.EXE")).toBe(true);
    expect(isCursorAgentCommand("cursor")).toBe(false);
    expect(cursorProjectSlug("/home/user/my repo/")).toBe("home-user-my-repo");
    const id = cursorMcpApprovalId("/w", server);
    expect(id).toMatch(/^bb-bridge-[0-9a-f]{16}$/);
    expect(cursorMcpApprovalId("/w", server)).toBe(id);
    expect(cursorMcpApprovalId("/other", server)).not.toBe(id);
  });

  it("appends the id once (mode 0600), and only the installer that added it removes it", async () => {
    const home = mkdtempSync(join(tmpdir(), "acp-cursor-home-"));
    const input = { agentCommand: "cursor-agent", cwd: "/proj/app", server, env: { HOME: home }, projectRoot: async () => "/proj/app" };
    const first = await installCursorMcpApproval(input);
    const second = await installCursorMcpApproval(input);
    const file = join(home, ".cursor", "projects", "proj-app", "mcp-approvals.json");
    expect(first?.file).toBe(file);
    expect(first?.added).toBe(true);
    expect(second?.added).toBe(false);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([cursorMcpApprovalId("/proj/app", server)]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await second!.revoke();
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveLength(1);
    await first!.revoke();
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([]);
  });

  it("honours CURSOR_DATA_DIR and does nothing for other agents or servers", async () => {
    const data = mkdtempSync(join(tmpdir(), "acp-cursor-data-"));
    const approval = await installCursorMcpApproval({ agentCommand: "cursor-agent", cwd: "/p", server, env: { CURSOR_DATA_DIR: data }, projectRoot: async () => "/p" });
    expect(approval?.file).toBe(join(data, "projects", "p", "mcp-approvals.json"));
    expect(await installCursorMcpApproval({ agentCommand: "opencode", cwd: "/p", server, env: { HOME: data } })).toBeNull();
    expect(await installCursorMcpApproval({ agentCommand: "cursor-agent", cwd: "/p", server: { ...server, name: "other" }, env: { HOME: data } })).toBeNull();
  });
});
