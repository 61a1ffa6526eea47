/**
 * The approval gate (spec 60 "pi": pi has no approvals of its own). A pi extension, loaded with
 * `-e <file>`, that asks the client through `ctx.ui.confirm` before every tool the session's
 * gate file names and blocks the call when refused. pi 0.73.1 loads `.ts` extensions itself
 * (through jiti), so the bridge writes this source into its temp directory at session start.
 * The confirm's `message` is JSON `{toolCallId, toolName, input}`: the bridge reads which call
 * is asked about from it, never from the order of events.
 */

/** The confirm title prefix the bridge recognises as its own gate's question. */
export const GATE_TITLE_PREFIX = "parity-approval:";

/** What a denied call's tool result says to the model. */
export const DENIED_REASON = "The user denied this tool call.";

/**
 * The tools each permission mode gates (spec 20 §2.1 permission modes): `full` asks for
 * nothing (pi then runs without the gate); `accept-edits` asks before shell commands;
 * every other mode asks before shell commands and file writes.
 */
export function gatedToolsFor(permissionMode: string | undefined): string[] {
  if (permissionMode === "full") return [];
  if (permissionMode === "accept-edits" || permissionMode === undefined) return ["bash"];
  return ["bash", "edit", "write"];
}

/** The gate file's content: `{"tools":[…]}`. */
export function gateFileContent(tools: readonly string[]): string {
  return `${JSON.stringify({ tools })}\n`;
}

/**
 * The extension's TypeScript source, reading the gate file `gateFile` on every tool call (so a
 * turn's own permission mode applies without restarting pi). A gate file that cannot be read
 * gates bash, edit and write: failing closed.
 */
export function gateExtensionSource(gateFile: string): string {
  return `import { readFileSync } from "node:fs";

const GATE_FILE = ${JSON.stringify(gateFile)};

function gatedTools(): string[] {
  try {
    const tools = JSON.parse(readFileSync(GATE_FILE, "utf8")).tools;
    return Array.isArray(tools) ? tools : ["bash", "edit", "write"];
  } catch {
    return ["bash", "edit", "write"];
  }
}

export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (!gatedTools().includes(event.toolName)) return undefined;
    const message = JSON.stringify({ toolCallId: event.toolCallId, toolName: event.toolName, input: event.input });
    const allowed = await ctx.ui.confirm(${JSON.stringify(GATE_TITLE_PREFIX)} + event.toolName, message);
    return allowed ? undefined : { block: true, reason: ${JSON.stringify(DENIED_REASON)} };
  });
}
`;
}

/** The tool call a gate confirm asks about, from its `message`; undefined for a confirm that is not the gate's. */
export function gatedCallOf(request: { title?: unknown; message?: unknown }): { toolCallId: string; toolName: string; input: Record<string, unknown> } | undefined {
  if (typeof request.title !== "string" || !request.title.startsWith(GATE_TITLE_PREFIX) || typeof request.message !== "string") return undefined;
  try {
    const parsed = JSON.parse(request.message) as { toolCallId?: unknown; toolName?: unknown; input?: unknown };
    if (typeof parsed.toolCallId !== "string" || typeof parsed.toolName !== "string") return undefined;
    const input = typeof parsed.input === "object" && parsed.input !== null ? (parsed.input as Record<string, unknown>) : {};
    return { toolCallId: parsed.toolCallId, toolName: parsed.toolName, input };
  } catch {
    return undefined;
  }
}
