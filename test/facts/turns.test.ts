import { describe, expect, it } from "vitest";
import { modelFact, turnFacts } from "../../harness/facts/turns.js";
import { CellDefinitionSchema } from "../../harness/runtime/cells.js";

const cell = (steps: unknown[], responses: unknown[]) =>
  CellDefinitionSchema.parse({ description: "d", threadId: "t", steps: [{ op: "initialize" }, { op: "thread/start" }, ...steps], model: { responses } });

describe("turnFacts: the responses each turn takes and how it ends", () => {
  it("a held answer interrupted by thread/stop ends its turn interrupted; the next turn takes the rest", () => {
    const def = cell(
      [{ op: "turn/start", text: "a", until: "turn/started" }, { op: "thread/stop", intent: "interrupt" }, { op: "thread/resume" }, { op: "turn/start", text: "b" }],
      [{ text: "…", hold: true }, { text: "4" }],
    );
    expect(turnFacts(def)).toEqual([
      { prompt: 1, responses: [0], end: "interrupted" },
      { prompt: 2, responses: [1], end: "completed" },
    ]);
  });

  it("a steer is a prompt of the open turn, which goes on after its held answer", () => {
    const def = cell(
      [
        { op: "turn/start", text: "a", until: "turn/started" },
        { op: "turn/steer", text: "b" },
        { op: "turn/start", text: "c" },
      ],
      [{ text: "…", hold: true }, { text: "x" }, { text: "y" }],
    );
    expect(turnFacts(def)).toEqual([
      { prompt: 1, responses: [0, 1], end: "completed" },
      { prompt: 3, responses: [2], end: "completed" },
    ]);
  });

  it("a model error fails its turn, and ends it; tool calls keep a turn going; the last turn takes every retry", () => {
    const def = cell(
      [
        { op: "turn/start", text: "a" },
        { op: "turn/start", text: "b" },
      ],
      [{ error: { status: 429, message: "slow down" } }, { toolCalls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "" }, { text: "" }],
    );
    expect(turnFacts(def)).toEqual([
      { prompt: 1, responses: [0], end: "failed" },
      { prompt: 2, responses: [1, 2, 3], end: "completed" },
    ]);
  });

  it("a cell with no model script still has its turns (an echo variant)", () => {
    const def = CellDefinitionSchema.parse({
      description: "d",
      threadId: "t",
      steps: [{ op: "initialize" }, { op: "thread/start" }, { op: "turn/start", text: "/hold x", until: "turn/started" }, { op: "thread/stop", intent: "interrupt" }],
    });
    expect(turnFacts(def)).toEqual([{ prompt: 1, responses: [], end: "interrupted" }]);
  });

  it("a model error's type is the script's, else the usual one for its status", () => {
    expect(modelFact({ error: { status: 401, message: "no" }, hold: false, repeat: true }, 0).error).toEqual({ status: 401, type: "authentication_error", message: "no" });
    expect(modelFact({ error: { status: 500, message: "x", type: "server_error" }, hold: false, repeat: false }, 3).error).toEqual({ status: 500, type: "server_error", message: "x" });
  });
});
