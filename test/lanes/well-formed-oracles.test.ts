/**
 * Every committed oracle (lanes/<provider>/<cell>.json) is a well-formed thread: no item is
 * started or settled as another type than it was first seen as, every item started in a turn that
 * completed also completed in that turn, and no agentMessage item is empty.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const lanesRoot = path.join(repoRoot, "lanes");

type LaneEvent = { type: string; scope?: { kind?: string; turnId?: string }; item?: { id?: string; type?: string; text?: string } };

/** Thread-scoped completions of these shapes settle outside their turn by design (spec 10 §2.7). */
const THREAD_SETTLED_TYPES = new Set(["backgroundTask", "delegation"]);

/** The ways `events` is not a well-formed thread, one line each; empty when it is. */
export function threadProblems(events: readonly LaneEvent[]): string[] {
  const problems: string[] = [];
  const typeOf = new Map<string, string>();
  const startedIn = new Map<string, { turnId: string; at: number }>();
  const completedIn = new Map<string, Set<string>>();
  const completedTurns = new Set<string>();
  events.forEach((event, at) => {
    const turnId = event.scope?.kind === "turn" ? event.scope.turnId : undefined;
    if (event.type === "turn/completed" && turnId !== undefined) completedTurns.add(turnId);
    if (event.type !== "item/started" && event.type !== "item/completed") return;
    const id = event.item?.id;
    const type = event.item?.type;
    if (id === undefined || type === undefined) return;
    const seen = typeOf.get(id);
    if (seen !== undefined && seen !== type) problems.push(`/${at}: item ${id} was ${seen}, now ${event.type} as ${type}`);
    if (seen === undefined) typeOf.set(id, type);
    if (event.type === "item/started" && turnId !== undefined && !startedIn.has(id)) startedIn.set(id, { turnId, at });
    if (event.type === "item/completed") {
      const turns = completedIn.get(id) ?? new Set<string>();
      turns.add(turnId ?? "thread");
      completedIn.set(id, turns);
      if (type === "agentMessage" && (event.item?.text ?? "") === "") problems.push(`/${at}: agentMessage ${id} completed empty`);
    }
  });
  for (const [id, { turnId, at }] of startedIn) {
    if (!completedTurns.has(turnId)) continue;
    const turns = completedIn.get(id);
    const settled = turns?.has(turnId) || (THREAD_SETTLED_TYPES.has(typeOf.get(id) ?? "") && turns?.has("thread"));
    if (!settled) problems.push(`/${at}: ${typeOf.get(id)} ${id} started in turn ${turnId}, which completed without it`);
  }
  return problems;
}

function oracleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return oracleFiles(full);
    return entry.name.endsWith(".json") ? [full] : [];
  });
}

const oracles = oracleFiles(lanesRoot).map((file) => path.relative(lanesRoot, file));

describe("the well-formed thread check", () => {
  const turn = { kind: "turn", turnId: "#1" };
  const open = (id: string, type: string) => ({ type: "item/started", scope: turn, item: { id, type } });
  const done = (id: string, type: string, extra: Record<string, unknown> = {}) => ({ type: "item/completed", scope: turn, item: { id, type, ...extra } });
  const turnDone = { type: "turn/completed", scope: turn };

  it("passes a thread whose items settle as they opened", () => {
    expect(threadProblems([open("#2", "toolCall"), done("#2", "toolCall"), done("#3", "agentMessage", { text: "hi" }), turnDone])).toEqual([]);
  });

  it("names an item settled as another type, an item left open in a completed turn, and an empty message", () => {
    expect(
      threadProblems([open("#2", "toolCall"), done("#2", "fileChange"), open("#3", "agentMessage"), open("#4", "agentMessage"), done("#4", "agentMessage", { text: "" }), turnDone]),
    ).toEqual([
      "/1: item #2 was toolCall, now item/completed as fileChange",
      "/4: agentMessage #4 completed empty",
      "/2: agentMessage #3 started in turn #1, which completed without it",
    ]);
  });
});

describe("committed oracles are well-formed threads", () => {
  it("finds the oracles", () => {
    expect(oracles.length).toBeGreaterThan(0);
  });

  it.each(oracles)("%s", (file) => {
    const events = JSON.parse(readFileSync(path.join(lanesRoot, file), "utf8")) as LaneEvent[];
    expect(threadProblems(events)).toEqual([]);
  });
});
