/**
 * One scripted step of the fixture CLI as stream-json lines: streamed text or thinking (held
 * until `interrupt` for a hold step), a tool call with its permission request and result, an
 * API error. The state a process shares between steps and its control protocol is passed in.
 */
import { assistantLine, resultLine, streamEvent, toolResultLine, type LineContext } from "./events.js";
import type { FixtureStep } from "./script.js";

type Json = Record<string, unknown>;

/** What the steps of one process share with its control protocol. */
export interface FixtureState {
  readonly ctx: LineContext;
  send(value: object): void;
  /** The permission mode `set_permission_mode` last set. */
  mode: string;
  messages: number;
  permissions: number;
  /** Resolves the held stream (set while a hold step waits). */
  interrupted: (() => void) | undefined;
  /** User lines sent during the turn, taken in at the next tool result. */
  readonly absorbed: string[];
  /** Pending `can_use_tool` answers by request id. */
  readonly answers: Map<string, (response: Json) => void>;
}

/** Runs one step; returns how the turn ends when the step ends it (an interrupt or an API error). */
export async function runFixtureStep(state: FixtureState, step: FixtureStep): Promise<"interrupted" | "apiError" | undefined> {
  const { ctx, send } = state;
  const streamText = async (messageId: string, kind: "text" | "thinking", text: string, hold: boolean) => {
    send(streamEvent(ctx, { type: "content_block_start", index: 0, content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" } }));
    const words = text.match(/\S+\s*/g) ?? [];
    for (const word of words) {
      const delta = kind === "text" ? { type: "text_delta", text: word } : { type: "thinking_delta", thinking: word };
      send(streamEvent(ctx, { type: "content_block_delta", index: 0, delta }));
    }
    if (hold) {
      await new Promise<void>((resolve) => (state.interrupted = resolve));
      send(assistantLine(ctx, messageId, { type: "text", text }, { aborted: true }));
      send({ type: "user", message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] }, parent_tool_use_id: null, session_id: ctx.sessionId });
    } else {
      send(assistantLine(ctx, messageId, kind === "text" ? { type: "text", text } : { type: "thinking", thinking: text, signature: "fixture" }));
    }
    send(streamEvent(ctx, { type: "content_block_stop", index: 0 }));
  };

  const askPermission = (step: Extract<FixtureStep, { tool: unknown }>, toolUseId: string): Promise<Json> => {
    state.permissions += 1;
    const requestId = `fixture-permission-${state.permissions}`;
    const answer = new Promise<Json>((resolve) => state.answers.set(requestId, resolve));
    send({
      type: "control_request",
      request_id: requestId,
      request: { subtype: "can_use_tool", tool_name: step.tool.name, input: step.tool.input, permission_suggestions: [], tool_use_id: toolUseId },
    });
    return answer;
  };

  const runTool = async (step: Extract<FixtureStep, { tool: unknown }>, messageId: string) => {
    const toolUseId = `toolu_fixture_${state.messages}`;
    send(assistantLine(ctx, messageId, { type: "tool_use", id: toolUseId, name: step.tool.name, input: step.tool.input }));
    const answer = step.ask && state.mode !== "bypassPermissions" ? await askPermission(step, toolUseId) : { behavior: "allow" };
    const steer = state.absorbed
      .splice(0)
      .map((text) => `\n\nThe user sent a new message while you were working:\n${text}`)
      .join("");
    if (answer.behavior !== "allow") {
      send(toolResultLine(ctx, toolUseId, String(answer.message ?? "denied"), true, undefined));
      return;
    }
    send(toolResultLine(ctx, toolUseId, step.result.content + steer, step.result.isError, step.result.structured));
  };

  state.messages += 1;
  const messageId = `msg_fixture_${state.messages}`;
  send({ type: "system", subtype: "status", status: "requesting", session_id: ctx.sessionId });
  if ("apiError" in step) {
    // The CLI's own message for an API error: model "<synthetic>", no stream events (spec 60 "Turn end").
    const synthetic = assistantLine(ctx, messageId, { type: "text", text: `API Error: ${step.apiError.status} ${step.apiError.message}` }, { error: "unknown" }) as {
      message: Record<string, unknown>;
    };
    synthetic.message.model = "<synthetic>";
    send(synthetic);
    send(
      resultLine(ctx, { isError: true, subtype: "success", result: `API Error: ${step.apiError.status} ${step.apiError.message}`, terminalReason: "api_error", apiErrorStatus: step.apiError.status }),
    );
    return "apiError";
  }
  send(streamEvent(ctx, { type: "message_start", message: { id: messageId, type: "message", role: "assistant", content: [] } }));
  if ("text" in step) await streamText(messageId, "text", step.text, false);
  else if ("thinking" in step) await streamText(messageId, "thinking", step.thinking, false);
  else if ("hold" in step) await streamText(messageId, "text", "holding", true);
  else await runTool(step, messageId);
  send(streamEvent(ctx, { type: "message_stop" }));
  return "hold" in step ? "interrupted" : undefined;
}
