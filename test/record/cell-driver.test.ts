import { afterEach, describe, expect, it } from "vitest";
import { defineProviderBridge, type BridgeContext } from "../../stack/bridge-kit/define.js";
import { runBridgeRequest } from "../../stack/bridge-kit/run-request.js";
import { PROVIDER_BRIDGE_PROTOCOL_VERSION } from "../../stack/protocol/handshake.js";
import { CellStepSchema, runCellScript, type CellScript, type InteractionAnswer } from "../../harness/runtime/cell-driver.js";
import { openInProcessBridge } from "../../harness/runtime/in-process.js";
import { createJsonRpcClient, type JsonRpcClient } from "../../harness/runtime/json-rpc-client.js";
import { withSessionWaits } from "../../harness/record/record-cell.js";
import { createFakeScheduler } from "../helpers/fake-scheduler.js";

/**
 * A small scripted bridge: every session request is answered with a fixed provider thread id;
 * `turn/start` asks the runtime one approval (when the prompt says "ask"), reports the decision
 * as the agent message, and settles the turn; `hold` prompts open the turn and never settle it.
 */
function scriptedBridge(seen: Array<[string, unknown]>, held: Array<() => void> = []) {
  const deltas = (ctx: BridgeContext, threadId: string, list: unknown[]) => ctx.io.notify("thread/delta", { threadId, deltas: list });
  return defineProviderBridge({
    async handleLine(_line, ctx, message) {
      const record = (method: string) => (_id: unknown, params: unknown) => {
        seen.push([method, params]);
        return undefined;
      };
      await runBridgeRequest(ctx.io, message, {
        initialize: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { grammarVersions: [3, 3] } }),
        "model/list": (id, params) => (record("model/list")(id, params), { models: [] }),
        "thread/start": (id, params) => {
          record("thread/start")(id, params);
          const { threadId } = params as { threadId: string };
          setTimeout(() => deltas(ctx, threadId, [{ kind: "extension.state", extensionKind: "demo/commands", payload: { n: 1 } }]), 1);
          return { providerThreadId: "prov-1" };
        },
        "thread/fork": (id, params) => (record("thread/fork")(id, params), { providerThreadId: "prov-2" }),
        "thread/stop": (id, params) => (record("thread/stop")(id, params), { ok: true }),
        "turn/steer": (id, params) => {
          record("turn/steer")(id, params);
          const p = params as unknown as { threadId: string; clientRequestId: string };
          deltas(ctx, p.threadId, [{ kind: "input.accepted", clientRequestId: p.clientRequestId }]);
          return { threadId: p.threadId };
        },
        "turn/start": (id, params) => {
          record("turn/start")(id, params);
          const p = params as unknown as { threadId: string; input: Array<{ text: string }>; clientRequestId: string };
          const text = p.input[0]?.text ?? "";
          ctx.io.sendResult(id, { threadId: p.threadId });
          deltas(ctx, p.threadId, [{ kind: "turn.open" }, { kind: "input.accepted", clientRequestId: p.clientRequestId }]);
          if (text.startsWith("hold")) {
            // A `hold` turn settles only when the test's model release runs `held`'s closure.
            held.push(() => deltas(ctx, p.threadId, [{ kind: "turn.boundary", status: "completed" }]));
            return undefined;
          }
          void (async () => {
            let said = "no question";
            if (text.startsWith("ask")) {
              const reply = (await ctx.io.request("interaction/request", {
                threadId: p.threadId,
                turnId: null,
                payload: { kind: "approval", subject: { kind: "command", itemId: "c1", command: "touch x" }, availableDecisions: ["allow_once", "deny"] },
              })) as { decision?: string };
              said = `decision ${reply.decision}`;
              seen.push(["decision", reply.decision]);
            }
            deltas(ctx, p.threadId, [
              { kind: "item.textClose", key: { providerItemId: "m1" }, channel: "agentMessage", text: said },
              { kind: "turn.boundary", status: "completed" },
            ]);
          })();
          return undefined;
        },
      });
    },
  });
}

// The driver's and the clients' waits run on a fake clock that no test advances: a wait ends on
// its cause (the answer, the event, the bridge closing, the abort), never on how busy the machine
// is; a hang ends at vitest's test timeout.
const never = createFakeScheduler();

const clients: JsonRpcClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.channel.close();
});

function open(seen: Array<[string, unknown]>, held: Array<() => void> = []): JsonRpcClient {
  const client = createJsonRpcClient(openInProcessBridge(scriptedBridge(seen, held), { providerId: "scripted" }), never);
  clients.push(client);
  return client;
}

const steps = (list: unknown[]) => list.map((s) => CellStepSchema.parse(s));
const script = (list: unknown[], answers: InteractionAnswer[] = []): CellScript => ({
  threadId: "thr_a",
  cwd: "/ws",
  options: { permissionMode: "accept-edits" },
  steps: steps(list),
  answers,
});
const run = { timeoutMs: 5_000, now: () => 0, scheduler: never };

describe("cell script driver", () => {
  it("answers an approval from the cell, in order, and the agent sees the decision", async () => {
    const seen: Array<[string, unknown]> = [];
    const result = await runCellScript(open(seen), script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "ask please" }], [{ kind: "approval", decision: "deny" }]), run);
    expect(result.problems).toEqual([]);
    expect(result.interactions).toBe(1);
    const message = result.events.find((e) => e.type === "item/completed") as { item: { text: string } } | undefined;
    expect(message?.item.text).toBe("decision deny");
  });

  it("an answer with afterPrompt is held until that prompt was answered: a steer sent while the agent waits reaches it first", async () => {
    const steered = (afterPrompt?: number) =>
      script(
        [
          { op: "initialize" },
          { op: "thread/start" },
          { op: "turn/start", text: "ask please", until: { interaction: 1 } },
          // Unheld, the turn may be over by the time the steer is answered: then nothing to wait for.
          { op: "turn/steer", text: "also this", until: afterPrompt ? "turn/completed" : "answer" },
        ],
        [{ kind: "approval", decision: "allow_once", ...(afterPrompt ? { afterPrompt } : {}) }],
      );
    const held: Array<[string, unknown]> = [];
    const result = await runCellScript(open(held), steered(2), run);
    expect(result.problems).toEqual([]);
    expect(held.map(([what]) => what).slice(-3)).toEqual(["turn/start", "turn/steer", "decision"]);
    // Without it the answer goes at once, before the steer: the order the field exists to fix.
    const unheld: Array<[string, unknown]> = [];
    await runCellScript(open(unheld), steered(), run);
    expect(unheld.map(([what]) => what).slice(-3)).toEqual(["turn/start", "decision", "turn/steer"]);
  });

  it("an approval with no scripted answer is denied and noted; an unused answer is noted", async () => {
    const unanswered = await runCellScript(open([]), script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "ask" }]), run);
    expect(unanswered.problems).toEqual(["interaction/request #1 (approval) had no scripted approval answer"]);
    expect((unanswered.events.find((e) => e.type === "item/completed") as { item: { text: string } }).item.text).toBe("decision deny");
    const unused = await runCellScript(open([]), script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "plain" }], [{ kind: "approval", decision: "allow_once" }]), run);
    expect(unused.problems).toEqual(["1 scripted answer(s) were never asked for"]);
  });

  it("sends fork, model/list, stop and options as the protocol names them", async () => {
    const seen: Array<[string, unknown]> = [];
    const result = await runCellScript(
      open(seen),
      script([
        { op: "initialize" },
        { op: "model/list" },
        { op: "thread/start", options: { model: "m1" } },
        { op: "thread/fork", threadId: "thr_b" },
        { op: "turn/start", text: "plain" },
        { op: "thread/stop", intent: "release" },
      ]),
      run,
    );
    expect(seen.map(([m]) => m)).toEqual(["model/list", "thread/start", "thread/fork", "turn/start", "thread/stop"]);
    expect(seen[0]![1]).toEqual({ cwd: "/ws", providerOptions: {} });
    expect(seen[1]![1]).toMatchObject({ threadId: "thr_a", cwd: "/ws", options: { permissionMode: "accept-edits", model: "m1" } });
    expect(seen[2]![1]).toMatchObject({ threadId: "thr_b", sourceProviderThreadId: "prov-1", sourceProviderCheckpointId: null });
    expect(seen[3]![1]).toMatchObject({ threadId: "thr_b", providerThreadId: "prov-2", clientRequestId: "creq_2222222223" });
    expect(seen[4]![1]).toEqual({ threadId: "thr_b", providerThreadId: "prov-2", intent: "release", activeTurnId: null });
    expect(result.lastThreadId).toBe("thr_b");
    expect(result.providerThreadIds).toEqual({ thr_a: "prov-1", thr_b: "prov-2" });
  });

  it("a wait step waits for the event its previous step caused, matched by fields", async () => {
    const result = await runCellScript(
      open([]),
      script(
        withSessionWaits(steps([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "plain" }]), { event: "thread/extensionState/updated", fields: { kind: "demo/commands" } }),
      ),
      run,
    );
    const types = result.events.map((e) => e.type);
    // The state the bridge sends after thread/start always comes before the prompt's turn.
    expect(types.indexOf("thread/extensionState/updated")).toBeLessThan(types.indexOf("turn/started"));
  });

  it("interrupt names the open turn; a wait ends at once when the bridge closes", async () => {
    const seen: Array<[string, unknown]> = [];
    const client = open(seen);
    await runCellScript(client, script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "hold", until: "turn/started" }, { op: "thread/stop", intent: "interrupt" }]), run);
    expect(seen.at(-1)![1]).toMatchObject({ intent: "interrupt", activeTurnId: "da00000000-t1" });

    const second = open([]);
    const waiting = runCellScript(second, script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "hold" }]), {
      timeoutMs: 60_000,
      now: () => 0,
      scheduler: never,
      onStep: (i) => i === 2 && setImmediate(() => void second.channel.close()),
    });
    await expect(waiting).rejects.toThrow(/closed/);
  });

  it("model/release ends the held model response, then waits for the open turn to complete", async () => {
    const held: Array<() => void> = [];
    let releases = 0;
    const releaseModel = () => {
      releases += 1;
      for (const settle of held.splice(0)) settle();
      return 1;
    };
    const result = await runCellScript(open([], held), script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "hold", until: "turn/started" }, { op: "model/release" }]), {
      ...run,
      releaseModel,
    });
    expect(releases).toBe(1);
    expect(result.events.map((e) => e.type)).toEqual(["turn/started", "turn/input/accepted", "turn/completed"]);
  });

  it("model/release with no held response (or no endpoint) fails at once, naming the step", async () => {
    const steps = [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "hold", until: "turn/started" }, { op: "model/release" }];
    await expect(runCellScript(open([]), script(steps), { ...run, timeoutMs: 60_000, releaseModel: () => 0 })).rejects.toMatchObject({
      code: "E_DIVERGED",
      message: expect.stringMatching(/^model\/release: no held model response/),
    });
    await expect(runCellScript(open([]), script(steps), { ...run, timeoutMs: 60_000 })).rejects.toMatchObject({ code: "E_DIVERGED" });
  });

  it("an invalid thread/delta is kept as a note and does not stop the script", async () => {
    const bad = defineProviderBridge({
      async handleLine(_line, ctx, message) {
        await runBridgeRequest(ctx.io, message, {
          initialize: () => ({ protocolVersion: PROVIDER_BRIDGE_PROTOCOL_VERSION, capabilities: { grammarVersions: [3, 3] } }),
          "thread/start": (_id, params) => {
            ctx.io.notify("thread/delta", { threadId: (params as { threadId: string }).threadId, deltas: [{ kind: "no.such.kind" }] });
            return { providerThreadId: "prov-x" };
          },
        });
      },
    });
    const client = createJsonRpcClient(openInProcessBridge(bad, { providerId: "bad" }), never);
    clients.push(client);
    const result = await runCellScript(client, script([{ op: "initialize" }, { op: "thread/start" }]), run);
    expect(result.providerThreadIds).toEqual({ thr_a: "prov-x" });
    expect(result.invalidDeltas).toHaveLength(1);
    expect(result.invalidDeltas[0]).toMatch(/Invalid thread\/delta notification/);
  });

  it("an aborted run rejects its pending wait with the abort reason", async () => {
    const controller = new AbortController();
    const waiting = runCellScript(open([]), script([{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "hold" }]), {
      timeoutMs: 60_000,
      now: () => 0,
      scheduler: never,
      signal: controller.signal,
      onStep: (i) => i === 2 && setImmediate(() => controller.abort(new Error("stop now"))),
    });
    await expect(waiting).rejects.toThrow("stop now");
  });
});
