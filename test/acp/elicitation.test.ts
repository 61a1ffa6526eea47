/**
 * `elicitation/create` → `user_question` → typed form content (spec 30 §6.3): the plan for each
 * ACP field type, the answer read back into the schema's types, and the whole round trip through
 * the bridge with the fixture agent asking and a runtime answering.
 */
import { afterEach, describe, expect, it } from "vitest";
import { elicitationResponseOf, planAcpElicitation, USER_QUESTION_MAX_FIELDS } from "../../stack/acp/interaction/elicitation-plan.js";
import { UserQuestionPayloadSchema } from "../../stack/protocol/user-question.js";
import { agentReceived, fixtureLaunchSpec, isBoundary, startInProcessBridge, threadStartParams, turnStartParams, type InProcessBridge } from "./bridge-harness.js";

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  sessionId: "fixture-session-1",
  mode: "form",
  message: "Set up the deploy",
  requestedSchema: { type: "object", properties, ...extra },
});

const deployForm = form(
  {
    target: {
      type: "string",
      title: "Target",
      oneOf: [
        { const: "stg", title: "Staging", description: "the test cluster" },
        { const: "prd", title: "Production" },
      ],
    },
    dryRun: { type: "boolean", title: "Dry run?" },
    replicas: { type: "integer", title: "Replicas", description: "How many replicas" },
    regions: { type: "array", title: "Regions", items: { type: "string", enum: ["eu", "us", "ap"] } },
  },
  { required: ["target", "replicas"] },
);

describe("planAcpElicitation", () => {
  it("asks one question per field, typed by the ACP property schema", () => {
    const plan = planAcpElicitation(deployForm);
    expect(plan.kind).toBe("form");
    if (plan.kind !== "form") return;
    expect(UserQuestionPayloadSchema.safeParse(plan.payload).success).toBe(true);
    expect(plan.payload.questions).toEqual([
      {
        id: "target",
        prompt: "Target",
        shortLabel: "Target",
        multiSelect: false,
        options: [
          { value: "stg", label: "Staging", description: "the test cluster" },
          { value: "prd", label: "Production" },
        ],
        allowFreeText: false,
      },
      {
        id: "dryRun",
        prompt: "Dry run?",
        shortLabel: "Dry run?",
        multiSelect: false,
        options: [
          { value: "true", label: "Yes" },
          { value: "false", label: "No" },
        ],
        allowFreeText: false,
      },
      { id: "replicas", prompt: "How many replicas", shortLabel: "Replicas", multiSelect: false, allowFreeText: true },
      {
        id: "regions",
        prompt: "Regions",
        shortLabel: "Regions",
        multiSelect: true,
        options: [
          { value: "eu", label: "eu" },
          { value: "us", label: "us" },
          { value: "ap", label: "ap" },
        ],
        allowFreeText: false,
      },
    ]);
  });

  it("a lone field is asked with the agent's message; no fields is Accept/Decline; a request without mode is a form", () => {
    const single = planAcpElicitation(form({ name: { type: "string", title: "Name" } }));
    expect(single.kind === "form" && single.payload.questions[0]).toMatchObject({ id: "name", prompt: "Set up the deploy", shortLabel: "Name", allowFreeText: true });
    const confirm = planAcpElicitation({ sessionId: "s", message: "Proceed?", requestedSchema: { type: "object" } });
    expect(confirm).toEqual({
      kind: "confirm",
      payload: {
        kind: "user_question",
        questions: [
          {
            id: "confirm",
            prompt: "Proceed?",
            multiSelect: false,
            options: [
              { value: "accept", label: "Accept" },
              { value: "decline", label: "Decline" },
            ],
            allowFreeText: false,
          },
        ],
      },
    });
  });

  it("refuses what a user question cannot hold", () => {
    const many = Object.fromEntries(Array.from({ length: USER_QUESTION_MAX_FIELDS + 1 }, (_, i) => [`f${i}`, { type: "string" }]));
    expect(planAcpElicitation(form(many))).toEqual({ kind: "unshowable", reason: `${USER_QUESTION_MAX_FIELDS + 1} fields (at most ${USER_QUESTION_MAX_FIELDS})` });
    expect(planAcpElicitation({ sessionId: "s", mode: "url", message: "Open", url: "https://example.invalid/x", elicitationId: "e1" })).toEqual({ kind: "unshowable", reason: "URL mode" });
    expect(planAcpElicitation(form({ blob: { type: "object" } }))).toEqual({ kind: "unshowable", reason: 'field "blob": type "object" cannot be asked' });
    // The SDK's guard refuses a multi-select whose items name no choices at all.
    expect(planAcpElicitation(form({ tags: { type: "array", items: { type: "string" } } }))).toEqual({ kind: "unshowable", reason: "a malformed form" });
    expect(planAcpElicitation(form({ tags: { type: "array", items: { type: "string", enum: [] } } }))).toEqual({ kind: "unshowable", reason: 'field "tags": a multi-select without options' });
    expect(planAcpElicitation({ sessionId: "s", mode: "wizard", message: "?" }).kind).toBe("unshowable");
    expect(planAcpElicitation("nope")).toEqual({ kind: "unshowable", reason: "params are not an object" });
  });
});

describe("elicitationResponseOf", () => {
  const plan = planAcpElicitation(deployForm);
  if (plan.kind !== "form") throw new Error("deploy form must plan as a form");

  it("converts answers to the schema's types", () => {
    const reply = {
      kind: "user_answer",
      answers: { target: { selected: ["prd"] }, dryRun: { selected: ["false"] }, replicas: { selected: [], freeText: " 3 " }, regions: { selected: ["eu", "ap"] } },
    };
    expect(elicitationResponseOf(plan, reply)).toEqual({ action: "accept", content: { target: "prd", dryRun: false, replicas: 3, regions: ["eu", "ap"] } });
  });

  it("leaves unanswered optional fields out, declines when a required one is empty, maps decline and cancel", () => {
    expect(elicitationResponseOf(plan, { kind: "user_answer", answers: { target: { selected: ["stg"] }, replicas: { selected: [], freeText: "1" } } })).toEqual({
      action: "accept",
      content: { target: "stg", replicas: 1 },
    });
    expect(elicitationResponseOf(plan, { kind: "user_answer", answers: { target: { selected: ["stg"] } } })).toEqual({ action: "decline" });
    expect(elicitationResponseOf(plan, { action: "decline" })).toEqual({ action: "decline" });
    expect(elicitationResponseOf(plan, { decision: "deny" })).toEqual({ action: "decline" });
    expect(elicitationResponseOf(plan, { action: "cancel" })).toEqual({ action: "cancel" });
    expect(elicitationResponseOf(plan, { answers: { target: "stg" } })).toEqual({ action: "cancel" });
  });

  it("throws on an answer that does not fit its field", () => {
    const answer = (answers: Record<string, unknown>) => () =>
      elicitationResponseOf(plan, { kind: "user_answer", answers: { target: { selected: ["stg"] }, replicas: { selected: [], freeText: "2" }, ...answers } });
    expect(answer({ replicas: { selected: [], freeText: "2.5" } })).toThrow('"2.5" is not an integer for replicas');
    expect(answer({ replicas: { selected: [], freeText: "many" } })).toThrow('"many" is not an integer for replicas');
    expect(answer({ target: { selected: ["dev"] } })).toThrow('"dev" is not an option of target');
    expect(answer({ regions: { selected: ["mars"] } })).toThrow('"mars" is not an option of regions');
    expect(answer({ dryRun: { selected: ["maybe"] } })).toThrow('"maybe" is not yes or no for dryRun');
  });
});

describe("elicitation through the bridge", () => {
  let bridge: InProcessBridge | undefined;
  afterEach(async () => {
    await bridge?.close();
    bridge = undefined;
  });
  const replies = (log: string) => agentReceived(log).filter((m) => m.method === undefined && typeof m.id === "number" && m.id < 100);

  async function ask(threadId: string, params: unknown, answer: (payload: any) => unknown): Promise<{ asked: any[]; reply: any }> {
    bridge = startInProcessBridge();
    const asked: any[] = [];
    bridge.onRuntimeRequest((method, p) => {
      asked.push({ method, ...p });
      return answer(p.payload);
    });
    const { spec, log } = fixtureLaunchSpec(bridge.dir, { prompts: [{ steps: [{ request: { method: "elicitation/create", params } }, { end: "end_turn" }] }] });
    await bridge.request("thread/start", threadStartParams(threadId, spec, bridge.dir));
    await bridge.request("turn/start", turnStartParams(threadId, "ask", `creq_${threadId}`.padEnd(15, "0")));
    await bridge.waitFor(isBoundary);
    return { asked, reply: replies(log)[0] };
  }

  it("sends the user_question to the runtime and the typed answer to the agent", async () => {
    const { asked, reply } = await ask("thr_elq", deployForm, () => ({
      kind: "user_answer",
      answers: { target: { selected: ["stg"] }, dryRun: { selected: ["true"] }, replicas: { selected: [], freeText: "2" }, regions: { selected: ["us"] } },
    }));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ method: "interaction/request", threadId: "thr_elq", providerThreadId: "fixture-session-1", turnId: null });
    expect(UserQuestionPayloadSchema.parse(asked[0].payload).questions.map((q) => q.id)).toEqual(["target", "dryRun", "replicas", "regions"]);
    expect(reply.result).toEqual({ action: "accept", content: { target: "stg", dryRun: true, replicas: 2, regions: ["us"] } });
  });

  it("answers cancel with a warning when the runtime's answer does not fit the form", async () => {
    const { reply } = await ask("thr_elx", deployForm, () => ({ kind: "user_answer", answers: { target: { selected: ["stg"] }, replicas: { selected: [], freeText: "lots" } } }));
    expect(reply.result).toEqual({ action: "cancel" });
    const warning = bridge!.deltas("thr_elx").find((d) => d.kind === "provider.warning");
    expect(warning).toMatchObject({ summary: "The answer to the agent's question could not be sent", details: '"lots" is not an integer for replicas' });
  });

  it("a form with no fields is Accept/Decline", async () => {
    const { asked, reply } = await ask("thr_elc", form({}), () => ({ kind: "user_answer", answers: { confirm: { selected: ["decline"] } } }));
    expect(asked[0].payload.questions[0].options.map((o: any) => o.value)).toEqual(["accept", "decline"]);
    expect(reply.result).toEqual({ action: "decline" });
  });

  it("declines with a warning, asking the runtime nothing, when the form cannot be shown (URL mode)", async () => {
    const { asked, reply } = await ask("thr_elu", { sessionId: "fixture-session-1", mode: "url", message: "Open this", url: "https://example.invalid/x", elicitationId: "e1" }, () => ({}));
    expect(asked).toEqual([]);
    expect(reply.result).toEqual({ action: "decline" });
    expect(bridge!.deltas("thr_elu").find((d) => d.kind === "provider.warning")).toMatchObject({ summary: "The agent asked a question bb could not show", details: "Open this" });
  });

  it("answers cancel when the runtime's interaction request fails", async () => {
    const { reply } = await ask("thr_elf", deployForm, () => {
      throw new Error("runtime refused");
    });
    expect(reply.result).toEqual({ action: "cancel" });
  });
});
