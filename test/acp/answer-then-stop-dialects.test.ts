/**
 * Every ACP dialect: the runtime's deny and a `thread/stop` written in ONE chunk reach the agent in
 * that order (the permission answer, then `session/cancel`). The answer goes back through the
 * request's handler and the connection some microtasks after it acted; the stop's `session/cancel`
 * is written at once at its own place, so the answer's place names its write (`answerWritten`) and
 * the stop is placed after it (stack/acp/connection/read-order.ts).
 *
 * Each case plays the agent from the dialect's committed approval-deny cell
 * (recordings/acp-<provider>/approval-deny): the bridge's requests answered with the recorded
 * answers, the prompt with the agent's recorded lines up to its `session/request_permission`.
 * Nothing waits on the clock.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { isBoundary, startInProcessBridge, type InProcessBridge, type WireMessage } from "./bridge-harness.js";
import { lineReadingStdin, pipedChild } from "../helpers/piped-child.js";
import { REPO_ROOT } from "./fixture-agent-build.js";

/** The ACP providers with a committed approval-deny cell. */
const PROVIDERS = ["acp-claude", "acp-claude-zed", "acp-codex", "acp-copilot", "acp-cursor", "acp-gemini", "acp-omp", "acp-opencode", "acp-qwen"];

type Entry = { seq: number; message: WireMessage };

/** One lane of a provider's approval-deny cell, in seq order. */
function lane(provider: string, name: string): Entry[] {
  return readFileSync(path.join(REPO_ROOT, "recordings", provider, "approval-deny", name), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { seq: number; line: string })
    .map((entry) => ({ seq: entry.seq, message: JSON.parse(entry.line) as WireMessage }));
}

const isRequest = (message: WireMessage): boolean => typeof message.method === "string" && message.id !== undefined;
const isAnswer = (message: WireMessage): boolean => message.method === undefined && message.id !== undefined;

/** The cell's agent: what it answered to each request the bridge made (by method, in order), and what it said during the prompt up to its permission request. */
function recordedAgent(provider: string) {
  const toAgent = lane(provider, "bridge→provider.ndjson");
  const fromAgent = lane(provider, "provider→bridge.ndjson");
  const answersByMethod = new Map<string, WireMessage[]>();
  for (const { message } of toAgent.filter((entry) => isRequest(entry.message))) {
    const answer = fromAgent.find((entry) => isAnswer(entry.message) && entry.message.id === message.id);
    if (answer) answersByMethod.set(message.method!, [...(answersByMethod.get(message.method!) ?? []), answer.message]);
  }
  const prompt = toAgent.find((entry) => entry.message.method === "session/prompt")!;
  const permission = fromAgent.find((entry) => entry.message.method === "session/request_permission")!;
  // The agent's notifications after the prompt, and its permission request (answers to other requests are the bridge's own business).
  const promptLines = fromAgent.filter((entry) => entry.seq > prompt.seq && entry.seq <= permission.seq && (entry === permission || entry.message.id === undefined)).map((entry) => entry.message);
  const deny = toAgent.find((entry) => isAnswer(entry.message) && entry.message.id === permission.message.id)!.message;
  return { answersByMethod, promptLines, permission: permission.message, deny };
}

/** An agent child played by `play`; each line the bridge writes is pushed to `written`, synchronously, in order. */
function playedChild(play: (message: WireMessage, write: (line: WireMessage) => void) => void, written: WireMessage[]): ChildProcess {
  const stdout = new PassThrough();
  const write = (message: WireMessage): void => void stdout.emit("data", Buffer.from(`${JSON.stringify(message)}\n`));
  const stdin = lineReadingStdin<WireMessage>((message) => {
    written.push(message);
    play(message, write);
  });
  return pipedChild({ stdin, stdout, stderr: new PassThrough() });
}

const open: InProcessBridge[] = [];
afterEach(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
});

describe("ACP dialects: the runtime's deny and a thread/stop in one chunk reach the agent as the runtime wrote them", () => {
  it.each(PROVIDERS)("%s: the deny's answer (the committed one), then session/cancel", async (provider) => {
    const agent = recordedAgent(provider);
    const runtimeLines = lane(provider, "runtime→bridge.ndjson").map((entry) => entry.message);
    const threadStart = runtimeLines.find((message) => message.method === "thread/start")!;
    const turnStart = runtimeLines.find((message) => message.method === "turn/start")!;
    const denyLine = runtimeLines.find((message) => isAnswer(message))!;
    const written: WireMessage[] = [];
    const asked = new Map<string, number>();
    let promptId: WireMessage["id"];
    const play = (message: WireMessage, write: (line: WireMessage) => void): void => {
      if (message.method === "session/prompt") {
        promptId = message.id;
        agent.promptLines.forEach(write);
      } else if (message.method === "session/cancel") write({ jsonrpc: "2.0", id: promptId, result: { stopReason: "cancelled" } });
      else if (isRequest(message)) {
        const at = asked.get(message.method!) ?? 0;
        asked.set(message.method!, at + 1);
        const answer = agent.answersByMethod.get(message.method!)?.[at];
        write(answer ? { ...answer, id: message.id } : { jsonrpc: "2.0", id: message.id, result: {} });
      }
    };
    const bridge = startInProcessBridge({ spawn: () => playedChild(play, written) });
    open.push(bridge);
    let stopped: Promise<WireMessage> | undefined;
    bridge.onRuntimeRequest((method) => {
      expect(method).toBe("interaction/request");
      const question = bridge.out.filter((message) => message.method === "interaction/request").at(-1)!;
      // The deny and the stop, as the runtime writes them in one chunk: both read synchronously, the deny first.
      void bridge.sendLine(JSON.stringify({ ...denyLine, id: question.id }));
      stopped = bridge.request("thread/stop", { threadId: turnStart.params.threadId, intent: "interrupt" });
      return new Promise(() => undefined);
    });
    await bridge.request("thread/start", { ...threadStart.params, cwd: bridge.dir });
    await bridge.request("turn/start", turnStart.params);
    await bridge.waitFor(isBoundary);
    expect((await stopped!).result).toEqual({ ok: true });
    const answers = written.filter((message) => isAnswer(message) && message.id === agent.permission.id);
    expect(answers).toEqual([agent.deny]);
    const cancel = written.findIndex((message) => message.method === "session/cancel");
    expect(cancel).toBeGreaterThan(written.indexOf(answers[0]!));
  });
});
