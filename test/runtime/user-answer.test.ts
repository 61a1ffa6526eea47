/**
 * A cell's scripted user-question answer → the runtime's `user_answer` resolution for the
 * questions the bridge actually asked (harness/runtime/user-answer.ts).
 */
import { describe, expect, it } from "vitest";
import { userAnswerFor } from "../../harness/runtime/user-answer.js";
import { UserAnswerResolutionSchema } from "../../stack/protocol/user-question.js";

const payload = {
  kind: "user_question",
  questions: [
    {
      id: "color",
      prompt: "Color?",
      multiSelect: false,
      options: [
        { value: "red", label: "Red" },
        { value: "green", label: "Green" },
      ],
      allowFreeText: false,
    },
    {
      id: "regions",
      prompt: "Regions?",
      multiSelect: true,
      options: [
        { value: "eu", label: "EU" },
        { value: "us", label: "US" },
      ],
      allowFreeText: false,
    },
    { id: "replicas", prompt: "Replicas?", multiSelect: false, allowFreeText: true },
  ],
};

describe("userAnswerFor", () => {
  it("option values become selected, anything else free text", () => {
    const answer = userAnswerFor(payload, "accept", { color: "green", regions: ["eu", "us"], replicas: 3 });
    expect(UserAnswerResolutionSchema.parse(answer)).toEqual({
      kind: "user_answer",
      answers: { color: { selected: ["green"] }, regions: { selected: ["eu", "us"] }, replicas: { selected: [], freeText: "3" } },
    });
    // A value that is not an option is passed on as typed text for the bridge to judge.
    expect(userAnswerFor(payload, "accept", { color: "mauve" })).toEqual({ kind: "user_answer", answers: { color: { selected: [], freeText: "mauve" } } });
  });

  it("decline and cancel carry no answers", () => {
    expect(userAnswerFor(payload, "decline", { color: "red" })).toEqual({ action: "decline" });
    expect(userAnswerFor(payload, "cancel", {})).toEqual({ action: "cancel" });
  });
});
