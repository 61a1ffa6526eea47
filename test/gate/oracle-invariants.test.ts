/**
 * What every committed oracle (`lanes/<provider>/<cell>.json`) must say about what happened
 * (issue 24; house rule "a bridge translates; it never invents"), checked over all of them, so a
 * rerecord that makes a lane lie fails here whatever the cell:
 *
 * - no empty agent message (a whitespace chunk the agent streamed is no message);
 * - no turn without input or agent work (an agent turn with nothing in it is a phantom);
 * - every approval-deny lane has its denied item (`approvalStatus: "denied"`), and a denied
 *   command has no exit code (it never ran);
 * - no command output the command did not print: none of the wrappings agents put around it
 *   (a markdown fence, a shell trailer, a labelled report, a placeholder, an exit-code header;
 *   stack/acp/translate/command-text.ts), omp's wall-time and exit-code trailers, or a permission
 *   request's text (codex-acp's "Available Decisions").
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unwrapCommandText } from "../../stack/acp/translate/command-text.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const lanesRoot = path.join(repoRoot, "lanes");

type LaneEvent = { type: string; item?: Record<string, any> };

/** Every committed oracle as [provider/cell, events]. */
function oracles(): Array<[string, LaneEvent[]]> {
  const out: Array<[string, LaneEvent[]]> = [];
  for (const provider of readdirSync(lanesRoot, { withFileTypes: true })) {
    if (!provider.isDirectory()) continue;
    for (const file of readdirSync(path.join(lanesRoot, provider.name)).sort()) {
      if (!file.endsWith(".json")) continue;
      const value = JSON.parse(readFileSync(path.join(lanesRoot, provider.name, file), "utf8")) as LaneEvent[] | { events: LaneEvent[] };
      out.push([`${provider.name}/${file.replace(/\.json$/, "")}`, Array.isArray(value) ? value : value.events]);
    }
  }
  return out;
}

/** The events of each turn, from `turn/started` to its `turn/completed`. */
function turns(events: LaneEvent[]): LaneEvent[][] {
  const out: LaneEvent[][] = [];
  let current: LaneEvent[] | undefined;
  for (const event of events) {
    if (event.type === "turn/started") current = [];
    else if (event.type === "turn/completed") {
      if (current) out.push(current);
      current = undefined;
    } else current?.push(event);
  }
  return out;
}

/** Text agents write around a command's output (spec 50; cells/command-fails recordings). */
const AGENT_TEXT = [/^Wall time: [\d.]+ seconds$/m, /^Command exited with code -?\d+$/m, /^Available Decisions:/m, /^Proposed Amendment:/m];

const all = oracles();

describe("every committed oracle tells what happened", () => {
  it("there are oracles to check", () => {
    expect(all.length).toBeGreaterThan(50);
  });

  it("no empty agent message", () => {
    const empty = all.flatMap(([name, events]) => events.filter((e) => e.type === "item/completed" && e.item?.type === "agentMessage" && String(e.item.text ?? "").trim() === "").map(() => name));
    expect(empty).toEqual([]);
  });

  it("no turn without input or agent work", () => {
    const work = (e: LaneEvent) => e.type === "turn/input/accepted" || e.type.startsWith("item/") || e.type === "error" || e.type.startsWith("provider/");
    const phantoms = all.flatMap(([name, events]) =>
      turns(events)
        .filter((turn) => !turn.some(work))
        .map(() => name),
    );
    expect(phantoms).toEqual([]);
  });

  it("every approval-deny lane has its denied item, and a denied command has no exit code", () => {
    const denyLanes = all.filter(([name]) => name.endsWith("/approval-deny"));
    expect(denyLanes.length).toBeGreaterThan(5);
    const missing = denyLanes.filter(([, events]) => !events.some((e) => e.type === "item/completed" && e.item?.approvalStatus === "denied")).map(([name]) => name);
    expect(missing).toEqual([]);
    const invented = all.flatMap(([name, events]) => events.filter((e) => e.item?.type === "commandExecution" && e.item.approvalStatus === "denied" && e.item.exitCode != null).map(() => name));
    expect(invented).toEqual([]);
  });

  it("no command output wrapped in text the command did not print", () => {
    const wrapped = all.flatMap(([name, events]) =>
      events
        .filter((e) => e.type === "item/completed" && e.item?.type === "commandExecution" && typeof e.item.aggregatedOutput === "string")
        .filter((e) => {
          const output = e.item!.aggregatedOutput as string;
          return unwrapCommandText(output).text !== output || AGENT_TEXT.some((pattern) => pattern.test(output));
        })
        .map((e) => `${name}: ${JSON.stringify(e.item!.aggregatedOutput)}`),
    );
    expect(wrapped).toEqual([]);
  });
});
