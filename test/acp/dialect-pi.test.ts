/**
 * The pi dialect (pi-acp) on the committed real recordings (recordings/acp-pi, pi-acp 0.0.23 with
 * pi 0.73.1): pi-acp reports its `bash` tool as kind `other` with `rawInput.command`, and a failed
 * run's exit code only as the trailer "\n\nCommand exited with code N" of its text (issue 37).
 * Each case drives a cell through the translator as the bridge does and reads the deltas back;
 * the seq in a title is the agent's line that carries what is checked.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { genericAcpDialect, piAcpDialect, piCommandResult, piStreamedCommandOutput, selectAcpDialect, type AcpToolCallEvent } from "../../stack/acp/dialects/index.js";
import type { AcpDialect } from "../../stack/acp/dialects/index.js";
import type { ThreadDelta } from "../../stack/protocol/thread-delta.js";
import { driveCell, readLane, REPO_ROOT } from "./translate-recording-driver.js";

type Close = Extract<ThreadDelta, { kind: "item.close" }>;
type Open = Extract<ThreadDelta, { kind: "item.open" }>;

const PI_RECORDINGS = path.join(REPO_ROOT, "recordings", "acp-pi");

/** The dialect the bridge picks for the recorded launch command (`/repo/agents/node_modules/.bin/pi-acp`). */
const recordedDialect = (): AcpDialect => selectAcpDialect({ command: "/repo/agents/node_modules/.bin/pi-acp" });

function deltasOf(cell: string, dialect: AcpDialect = recordedDialect()): ThreadDelta[] {
  return driveCell(cell, dialect, PI_RECORDINGS).deltas;
}

function closeOf(deltas: ThreadDelta[], toolCallId: string): Close {
  const found = deltas.find((delta): delta is Close => delta.kind === "item.close" && delta.key.providerItemId === toolCallId);
  if (found === undefined) throw new Error(`no item.close of ${toolCallId}`);
  return found;
}

const opensOf = (deltas: ThreadDelta[], toolCallId: string) => deltas.filter((delta): delta is Open => delta.kind === "item.open" && delta.key.providerItemId === toolCallId);

const snapshotsOf = (deltas: ThreadDelta[], toolCallId: string) => deltas.flatMap((delta) => (delta.kind === "command.outputSnapshot" && delta.key.providerItemId === toolCallId ? [delta.text] : []));

/** The merged tool call `toolCallId` of a committed acp-pi cell up to and including seq `upTo`, as the translator holds it. */
function mergedCall(cell: string, toolCallId: string, upTo: number): AcpToolCallEvent {
  let event: Record<string, unknown> = {};
  for (const line of readLane(cell, "provider→bridge.ndjson", PI_RECORDINGS)) {
    const update = line.message.params?.update;
    if (line.seq > upTo || update?.toolCallId !== toolCallId) continue;
    const { sessionUpdate: _kind, ...fields } = update as Record<string, unknown>;
    event = { ...event, ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) };
  }
  return event as unknown as AcpToolCallEvent;
}

describe("selection", () => {
  it("the command pi-acp (by basename, as recorded) selects the pi dialect", () => {
    expect(recordedDialect()).toBe(piAcpDialect);
    expect(selectAcpDialect({ command: "pi-acp" }).id).toBe("pi");
    expect(selectAcpDialect({ command: "pi" }).id).toBe("acp");
  });
});

describe("acp-pi command-fails: the exit code out of pi's trailer, the output exact", () => {
  it("seq 24/43: the bash call is a command that failed with exit 3 and printed exactly its three lines", () => {
    const closed = closeOf(deltasOf("command-fails"), "call_parity_1_1");
    expect(closed.status).toBe("failed");
    expect(closed.item).toEqual({ type: "command", command: "sh -c 'echo first line; echo second line; echo something went wrong >&2; exit 3'", cwd: "" });
    expect(closed.aggregatedOutput).toBe("first line\nsecond line\nsomething went wrong\n");
    expect(closed.resultText).toBe("first line\nsecond line\nsomething went wrong\n");
    expect(closed.exitCode).toBe(3);
  });

  it("the generic dialect (the bridge before this dialect) shows a tool call with pi's trailer in its text, the exit code only the 1 of any failed call", () => {
    const closed = closeOf(deltasOf("command-fails", genericAcpDialect), "call_parity_1_1");
    expect(closed.item.type).toBe("tool");
    expect(closed.resultText).toBe("first line\nsecond line\nsomething went wrong\n\n\nCommand exited with code 3");
    expect(closed.exitCode).toBe(1);
  });

  it("seq 24: the call opens once, as the command it settles as", () => {
    const opens = opensOf(deltasOf("command-fails"), "call_parity_1_1");
    expect(opens).toHaveLength(1);
    expect(opens[0]!.item).toMatchObject({ type: "command", command: "sh -c 'echo first line; echo second line; echo something went wrong >&2; exit 3'" });
    expect(opens[0]!.presentation!.title).toBe("sh -c 'echo first line; echo second line; echo something went wrong >&2; exit 3'");
  });

  it("seq 37–41: the streamed output is what it printed so far; pi-acp's rendering of the empty result (seq 37) is not output", () => {
    expect(snapshotsOf(deltasOf("command-fails"), "call_parity_1_1")).toEqual(["first line\nsecond line\n", "first line\nsecond line\nsomething went wrong\n"]);
    const empty = mergedCall("command-fails", "call_parity_1_1", 37);
    expect(empty.content?.[0]?.content?.text).toBe('{\n  "content": []\n}');
    expect(piStreamedCommandOutput(empty)).toBeNull();
  });
});

describe("acp-pi successful and signalled runs: the output as sent, no exit code pi-acp did not give", () => {
  it("exact-bytes seq 35: tabs, CRs, escapes, blank lines and the missing final newline all stay; completed, no exit code", () => {
    const closed = closeOf(deltasOf("exact-bytes"), "call_parity_1_1");
    expect(closed.status).toBe("completed");
    expect(closed.item.type).toBe("command");
    expect(closed.aggregatedOutput).toBe("tab\there\r\nback\\slash \u001b[1mbold\u001b[0m\r\n  two leading spaces\n\n\nlast line without newline");
    expect(closed.exitCode).toBeUndefined();
  });

  it("command-signal seq 41: pi-acp closes the SIGTERM-ended run completed with its output and no trailer; the lane says the same and invents no code", () => {
    const closed = closeOf(deltasOf("command-signal"), "call_parity_1_1");
    expect(closed.status).toBe("completed");
    expect(closed.item).toMatchObject({ type: "command", command: "sh -c 'echo before the signal; kill -TERM $$; echo never printed'" });
    expect(closed.aggregatedOutput).toBe("before the signal\n");
    expect(closed.exitCode).toBeUndefined();
  });

  it("turn-tools seq 61: `wc -l notes.txt` keeps its trailing newline; the read and the edit keep their own types", () => {
    const deltas = deltasOf("turn-tools");
    const closed = closeOf(deltas, "call_parity_3_1");
    expect(closed.item).toEqual({ type: "command", command: "wc -l notes.txt", cwd: "" });
    expect(closed.aggregatedOutput).toBe("3 notes.txt\n");
    expect(closed.exitCode).toBeUndefined();
    expect(closeOf(deltas, "call_parity_1_1").item.type).toBe("fileRead");
    expect(closeOf(deltas, "call_parity_2_1").item.type).toBe("fileChange");
  });

  it("two-tool-calls seq 51: the bash call beside a read is a command with its exact output", () => {
    const deltas = deltasOf("two-tool-calls");
    expect(closeOf(deltas, "call_parity_1_2")).toMatchObject({ status: "completed", aggregatedOutput: "23 notes.txt\n", item: { type: "command", command: "wc -c notes.txt" } });
    expect(closeOf(deltas, "call_parity_1_2").exitCode).toBeUndefined();
    expect(closeOf(deltas, "call_parity_1_1").item.type).toBe("fileRead");
  });
});

describe("piCommandResult: only pi's exact trailer of a failed call comes off", () => {
  // The real closing call of command-fails (seq 43), varied one field at a time.
  const failed = () => mergedCall("command-fails", "call_parity_1_1", 43);
  const withText = (event: AcpToolCallEvent, text: string, status = event.status): AcpToolCallEvent => ({ ...event, status, rawOutput: { content: [{ type: "text", text }], details: {} } });

  it("the recorded close: output without the trailer, exit code 3", () => {
    expect(piCommandResult(failed())).toEqual({ output: "first line\nsecond line\nsomething went wrong\n", exitCode: 3 });
  });

  it("a completed call's text that ends like the trailer is the command's own output", () => {
    const text = "first line\n\n\nCommand exited with code 3";
    expect(piCommandResult(withText(failed(), text, "completed"))).toEqual({ output: text });
  });

  it("a trailer without its blank line, or with text after it, is output", () => {
    for (const text of ["out\nCommand exited with code 3", "out\n\nCommand exited with code 3\n", "out\n\nCommand exited with code three"]) {
      expect(piCommandResult(withText(failed(), text))).toEqual({ output: text });
    }
  });

  it("only the last trailer comes off; pi's placeholder for no output stays for the translator to drop", () => {
    expect(piCommandResult(withText(failed(), "x\n\nCommand exited with code 5\n\nCommand exited with code 2"))).toEqual({ output: "x\n\nCommand exited with code 5", exitCode: 2 });
    expect(piCommandResult(withText(failed(), "(no output)\n\nCommand exited with code 2"))).toEqual({ output: "(no output)", exitCode: 2 });
  });

  it("a call that is not pi's bash, or has no text blocks, is left to the shared reader", () => {
    expect(piCommandResult({ ...failed(), title: "sh" })).toBeUndefined();
    expect(piCommandResult({ ...failed(), kind: "read" })).toBeUndefined();
    expect(piCommandResult({ ...failed(), rawInput: { command: "  " } })).toBeUndefined();
    expect(piCommandResult({ ...failed(), rawOutput: { content: [] } })).toBeUndefined();
    expect(piAcpDialect.classifyToolCall?.(mergedCall("turn-tools", "call_parity_1_1", 37))).toBeUndefined();
  });
});
