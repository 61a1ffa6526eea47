/**
 * How an agent connection ends (see connection.ts): the reasons, the facts reported once, the
 * sentence that names the agent and the cause, and the bounded stderr tail that goes with it
 * (spec 20 §2.2).
 */

/** Lines of agent stderr kept for error messages (spec 20 §2.2). */
export const AGENT_STDERR_TAIL_LINES = 40;

/** Why the connection ended. */
export type AgentExitReason = "exit" | "spawn-error" | "stdin-error" | "oversized-line" | "killed";

/** Facts about the end of an agent connection. */
export interface AgentExitInfo {
  reason: AgentExitReason;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** One sentence naming the agent and the cause, with the stderr tail when there is one. */
  message: string;
  stderrTail: string;
}

/** What names the agent in an exit sentence: its label, and the command for a failed launch. */
export interface AgentNames {
  label: string;
  command: string;
}

/**
 * The exit facts of one end: `cause` is the spawn error's text, the byte cap of an oversized
 * line, or the stdin error's code. The stderr tail is appended except after a requested stop.
 */
export function agentExitInfo(names: AgentNames, end: { reason: AgentExitReason; code: number | null; signal: NodeJS.Signals | null; cause?: string | undefined }, stderrTail: string): AgentExitInfo {
  const { reason, code, signal, cause } = end;
  const { label } = names;
  let message: string;
  if (reason === "spawn-error") message = `Failed to launch ACP agent "${names.command}": ${cause ?? "unknown error"}`;
  else if (reason === "oversized-line") message = `ACP agent "${label}" wrote a stdout line over ${cause} bytes; the bridge stopped it`;
  else if (reason === "stdin-error") message = `ACP agent "${label}" closed its stdin (${cause ?? "EPIPE"})`;
  else if (reason === "killed") message = `ACP agent "${label}" was stopped`;
  else message = `ACP agent "${label}" exited unexpectedly (code ${code ?? signal ?? "unknown"})`;
  if (stderrTail && reason !== "killed") message += `: ${stderrTail}`;
  return { reason, code, signal, message, stderrTail };
}

/** The last {@link AGENT_STDERR_TAIL_LINES} lines of an agent's stderr, fed as text arrives. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";

  /** Takes a piece of stderr text; complete lines are kept (a trailing `\r` dropped), the rest waits. */
  push(text: string): void {
    const pieces = (this.partial + text).split("\n");
    this.partial = pieces.pop() ?? "";
    for (const piece of pieces) {
      this.lines.push(piece.replace(/\r$/, ""));
      if (this.lines.length > AGENT_STDERR_TAIL_LINES) this.lines.shift();
    }
  }

  /** The kept lines and any unterminated last one, newline-joined. */
  text(): string {
    return [...this.lines, ...(this.partial ? [this.partial] : [])].join("\n");
  }
}
